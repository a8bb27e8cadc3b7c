// zstd_exec: sequence execution (RFC 8878 section 3.1.2): copies literals and matches into the
// output stream and the history buffer, up to 8 bytes per cycle.
//
/// Commands (ll, ml, off) arrive checked (zstd_seq): off <= HistBytes and <= bytes produced. A
/// source command (cmd_src_i) in the same queue sets the literal source of the following commands:
/// RLE byte, or 4 literal-RAM regions (lengths src_len_i) either at k x 32 KiB (whole RAM) or at
/// half x 64 KiB + k x 16 KiB (src_half_mode_i), so the next block's literals can be written into
/// the other half while this one is copied out. busy_half_o: the current source still has literal
/// bytes to read from that half (both halves for whole-RAM regions). The literal reader streams the regions through a byte queue.
/// History: 8 byte-wide banks (HistBytes in all), so any 8 consecutive bytes are read or written
/// in one cycle. Two stages: S0 picks a chunk (literals: up to 8 from the queue; match: up to
/// min(8, off) bytes, read issued to the banks), S1 writes it to history and the output FIFO. A
/// match chunk that would read bytes S1 is writing waits a cycle (off < chunk + S1 chunk).
`include "ndp_assert.svh"

module zstd_exec #(
  parameter int unsigned HistBytes = 65536,
  parameter int unsigned LitWAW    = 14,
  localparam int unsigned HAW      = $clog2(HistBytes)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              cmd_valid_i,
  output logic              cmd_ready_o,
  input  logic [17:0]       cmd_ll_i,
  input  logic [17:0]       cmd_ml_i,
  input  logic [16:0]       cmd_off_i,
  // source command payload (valid with cmd_src_i)
  input  logic              cmd_src_i,
  input  logic              src_rle_i,
  input  logic [7:0]        src_rle_byte_i,
  input  logic [4*18-1:0]   src_len_i,
  input  logic              src_half_mode_i,
  input  logic              src_half_i,
  output logic [1:0]        busy_half_o,
  output logic              lr_re_o,
  output logic [LitWAW-1:0] lr_addr_o,
  input  logic [63:0]       lr_data_i,
  // output rows
  output logic              out_valid_o,
  input  logic              out_ready_i,
  output logic [63:0]       out_data_o,
  output logic [3:0]        out_cnt_o,
  output logic              idle_o      // no command pending or in flight (history written)
);
  // ---- literal reader -------------------------------------------------------------------------
  logic [1:0]        reg_q;
  logic [17:0]       rrem_q;
  logic [LitWAW-1:0] raddr_q;
  logic              rinfl_q, rdone_q;
  logic [3:0]        rcnt_q;
  logic [4:0]        lq_count;
  logic [63:0]       lq_head;
  logic [3:0]        lq_pop;
  logic [17:0]       rlen [4];
  logic              lit_go, rle_q, hmode_q, half_q;
  logic [7:0]        rleb_q;
  logic [4*18-1:0]   len_q;
  always_comb for (int k = 0; k < 4; k++) rlen[k] = len_q[k*18 +: 18];
  // literal-RAM word address of region k
  function automatic logic [LitWAW-1:0] rbase(input logic [1:0] k, input logic hm, input logic h);
    rbase = hm ? LitWAW'({h, k, {(LitWAW-3){1'b0}}}) : LitWAW'({k, {(LitWAW-2){1'b0}}});
  endfunction
  assign lit_go      = cmd_valid_i && cmd_src_i && cmd_ready_o;
  assign busy_half_o = rdone_q ? 2'b00 : !hmode_q ? 2'b11 : half_q ? 2'b10 : 2'b01;

  assign lr_re_o   = !rdone_q && !rle_q && rrem_q != '0 &&
                     (5'(lq_count) + (rinfl_q ? 5'(rcnt_q) : 5'd0) <= 5'd16) && !lit_go;
  assign lr_addr_o = raddr_q;

  zstd_byteq #(.Bytes(24)) u_litq (
    .clk_i, .rst_ni,
    .clear_i    (lit_go),
    .push_i     (rinfl_q),
    .push_data_i(lr_data_i),
    .push_cnt_i (rcnt_q),
    .pop_cnt_i  (lq_pop),
    .head_o     (lq_head),
    .count_o    (lq_count)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reg_q <= '0; rrem_q <= '0; raddr_q <= '0; rinfl_q <= 1'b0; rdone_q <= 1'b1; rcnt_q <= '0;
      rle_q <= 1'b0; rleb_q <= '0; len_q <= '0; hmode_q <= 1'b0; half_q <= 1'b0;
    end else if (lit_go) begin
      rle_q   <= src_rle_i;
      rleb_q  <= src_rle_byte_i;
      len_q   <= src_len_i;
      hmode_q <= src_half_mode_i;
      half_q  <= src_half_i;
      reg_q   <= '0;
      rrem_q  <= src_len_i[17:0];
      raddr_q <= rbase(2'd0, src_half_mode_i, src_half_i);
      rinfl_q <= 1'b0;
      rdone_q <= src_rle_i;
    end else begin
      rinfl_q <= lr_re_o;
      if (lr_re_o) begin
        rcnt_q  <= (rrem_q >= 18'd8) ? 4'd8 : 4'(rrem_q);
        rrem_q  <= (rrem_q >= 18'd8) ? rrem_q - 18'd8 : '0;
        raddr_q <= raddr_q + 1'b1;
      end else if (!rdone_q && rrem_q == '0) begin
        // next non-empty region (rbase)
        if (reg_q == 2'd3) rdone_q <= 1'b1;
        else begin
          reg_q   <= reg_q + 2'd1;
          rrem_q  <= rlen[reg_q + 2'd1];
          raddr_q <= rbase(reg_q + 2'd1, hmode_q, half_q);
        end
      end
    end
  end

  // ---- S0: chunk selection ----------------------------------------------------------------------
  logic        have_q;
  logic [17:0] ll_q, ml_q;
  logic [16:0] off_q;
  logic [HAW-1:0] pos_q;          // history position of the next S0 chunk
  logic        s1v_q, s1m_q;
  logic [3:0]  s1n_q;
  logic [HAW-1:0] s1p_q;
  logic [2:0]  s1r_q;             // match: read start low bits
  logic [63:0] s1d_q;
  logic [2:0]  ofcnt;
  logic        ofree;
  logic        ofifo_ready;

  logic [3:0]  n_lit, n_mat;
  logic        lit_ok, mat_ok, go_lit, go_mat;
  logic [HAW-1:0] rdp;
  always_comb begin
    n_lit  = (ll_q >= 18'd8) ? 4'd8 : 4'(ll_q);
    n_mat  = (ml_q >= 18'd8) ? 4'd8 : 4'(ml_q);
    if (32'(off_q) < 32'(n_mat)) n_mat = 4'(off_q);
    ofree  = (32'(ofcnt) + (s1v_q ? 32'd1 : 32'd0)) < 32'd4;
    lit_ok = rle_q || (5'(n_lit) <= lq_count);
    mat_ok = !(s1v_q && (32'(off_q) < 32'(n_mat) + 32'(s1n_q)));
    go_lit = have_q && ll_q != '0 && ofree && lit_ok;
    go_mat = have_q && ll_q == '0 && ml_q != '0 && ofree && mat_ok;
    lq_pop = (go_lit && !rle_q) ? n_lit : 4'd0;
    rdp    = pos_q - HAW'(off_q);
  end
  assign cmd_ready_o = !have_q || (ll_q == '0 && ml_q == '0);

  // history banks
  logic [7:0]       hb_rdata [8];
  logic [HAW-4:0]   hb_raddr [8];
  logic [HAW-4:0]   hb_waddr [8];
  logic [7:0]       hb_wdata [8];
  logic [7:0]       hb_we;
  logic [63:0]      s1_data;
  always_comb begin
    for (int b = 0; b < 8; b++) begin
      logic [2:0] j;
      j = 3'(b) - rdp[2:0];
      hb_raddr[b] = (HAW-3)'((rdp + HAW'(j)) >> 3);
      j = 3'(b) - s1p_q[2:0];
      hb_waddr[b] = (HAW-3)'((s1p_q + HAW'(j)) >> 3);
      hb_we[b]    = s1v_q && (4'(j) < s1n_q);
    end
  end
  always_comb begin
    for (int j = 0; j < 8; j++) begin
      logic [2:0] b;
      b = s1r_q + 3'(j);
      s1_data[j*8 +: 8] = s1m_q ? hb_rdata[b] : s1d_q[j*8 +: 8];
    end
  end
  always_comb begin
    for (int b = 0; b < 8; b++) begin
      logic [2:0] j;
      j = 3'(b) - s1p_q[2:0];
      hb_wdata[b] = s1_data[{j, 3'b000} +: 8];
    end
  end

  for (genvar b = 0; b < 8; b++) begin : gen_hist
    // the macro's read port on a plain net: Yosys 0.23 drops a black-box output bound to an
    // unpacked-array element (the RAM then vanished from synthesis)
    logic [7:0] rd_hb_rdata;
    ram_1r1w #(.Width(8), .Depth(HistBytes / 8)) u_bank (
      .clk_i, .rst_ni,
      .we_i   (hb_we[b]),
      .waddr_i(hb_waddr[b]),
      .wlane_i(1'b1),
      .wdata_i(hb_wdata[b]),
      .re_i   (go_mat),
      .raddr_i(hb_raddr[b]),
      .rdata_o(rd_hb_rdata)
    );
    assign hb_rdata[b] = rd_hb_rdata;
  end

  fifo_sync #(.Width(68), .Depth(4)) u_ofifo (
    .clk_i, .rst_ni,
    .in_valid_i (s1v_q),
    .in_ready_o (ofifo_ready),
    .in_data_i  ({s1n_q, s1_data}),
    .out_valid_o(out_valid_o),
    .out_ready_i(out_ready_i),
    .out_data_o ({out_cnt_o, out_data_o}),
    .count_o    (ofcnt)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      have_q <= 1'b0; ll_q <= '0; ml_q <= '0; off_q <= '0; pos_q <= '0;
      s1v_q <= 1'b0; s1m_q <= 1'b0; s1n_q <= '0; s1p_q <= '0; s1r_q <= '0; s1d_q <= '0;
    end else begin
      s1v_q <= go_lit || go_mat;
      s1m_q <= go_mat;
      s1p_q <= pos_q;
      s1r_q <= rdp[2:0];
      s1n_q <= go_lit ? n_lit : n_mat;
      s1d_q <= rle_q ? {8{rleb_q}} : lq_head;
      if (go_lit) begin
        ll_q  <= ll_q - 18'(n_lit);
        pos_q <= pos_q + HAW'(n_lit);
      end
      if (go_mat) begin
        ml_q  <= ml_q - 18'(n_mat);
        pos_q <= pos_q + HAW'(n_mat);
      end
      if (cmd_valid_i && cmd_ready_o && !cmd_src_i) begin
        have_q <= 1'b1;
        ll_q   <= cmd_ll_i;
        ml_q   <= cmd_ml_i;
        off_q  <= cmd_off_i;
      end else if (have_q && ll_q == '0 && ml_q == '0) begin
        have_q <= 1'b0;
      end
    end
  end

  assign idle_o = !have_q && !cmd_valid_i && !s1v_q;

  `NDP_ASSERT(ofifo_never_full_a, !s1v_q || ofifo_ready)
  `NDP_ASSERT(match_off_legal_a, !go_mat || (off_q != '0 && 32'(off_q) <= HistBytes))
  `NDP_ASSERT(lit_pop_legal_a, !go_lit || rle_q || 5'(n_lit) <= lq_count)
endmodule
