// lz4_dec_copy: second and third stages of the decoder's copy back end. Resolves every output
// lane of a planned row to its source (a literal byte, a history byte, a byte of the previous row
// or an earlier lane of the same row), reads the history replicas and emits the row.
//
/// Registers: the per-lane source record (stage 2), the history RAM read data, and `last row`
/// register L (the previous row, bank-indexed) that covers the one-row read-after-write gap of the
/// RAMs. Every history replica is written with each output row (OutBytes byte banks, bank =
/// position mod OutBytes); replica k serves match slot k, so a row can hold MatchSlots matches
/// with arbitrary offsets without bank conflicts. Overlapping copies (offset < length) inside a row
/// resolve by pointer jumping over lane indices in log2(OutBytes) steps. The output payload is
/// combinational from the RAM data and the stage-2 register (stable while stalled).
`include "ndp_assert.svh"

module lz4_dec_copy #(
  parameter int unsigned OutBytes      = 32,
  parameter int unsigned MatchSlots    = 4,
  parameter int unsigned MaxBlockBytes = 65536,
  localparam int unsigned Cmds = MatchSlots + 1,
  localparam int unsigned Segs = 2 * Cmds,
  localparam int unsigned CW   = $clog2(OutBytes + 1),
  localparam int unsigned LW   = $clog2(OutBytes),
  localparam int unsigned SW   = (MatchSlots > 1) ? $clog2(MatchSlots) : 1,
  localparam int unsigned Rows = MaxBlockBytes / OutBytes,
  localparam int unsigned RW   = (Rows > 1) ? $clog2(Rows) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  output logic                 adv_o,        // the whole back end advances this cycle
  // row plan from lz4_dec_plan
  input  logic                 pl_v_i,
  input  logic [16:0]          pl_p_i,
  input  logic [16:0]          pl_pprev_i,
  input  logic [CW-1:0]        pl_n_i,
  input  logic                 pl_last_i,
  input  logic                 pl_err_i,
  input  lz4_pkg::err_e        pl_code_i,
  input  logic [Segs*CW-1:0]   pl_st_i,
  input  logic [Segs*CW-1:0]   pl_len_i,
  input  logic [Segs-1:0]      pl_match_i,
  input  logic [Segs*17-1:0]   pl_src_i,
  input  logic [Segs*SW-1:0]   pl_slot_i,
  input  logic [Segs*CW-1:0]   pl_lb_i,
  input  logic [OutBytes*8-1:0] pl_lits_i,
  // decoded output
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [OutBytes*8-1:0] out_data_o,
  output logic [CW-1:0]        out_cnt_o,
  output logic                 out_last_o,
  output logic                 out_err_o,
  output lz4_pkg::err_e        out_code_o
);
  // ---------------------------------------------------------------------------------------------
  // Stage 2 (combinational on the plan register): per-lane sources and RAM read addresses
  logic [LW-1:0] ptr0 [OutBytes];
  logic          lit_l   [OutBytes];   // lane source is a literal byte
  logic [LW-1:0] litix_l [OutBytes];
  logic [SW-1:0] slot_l  [OutBytes];
  logic [LW-1:0] bank_l  [OutBytes];
  logic          usel_l  [OutBytes];   // source is in the previous row (register L)

  // One small process per lane (generate blocks keep the synthesis front end's work per process
  // small; one process over all lanes made Yosys' proc pass run for hours).
  for (genvar j = 0; j < OutBytes; j++) begin : gen_src
    always_comb begin
      ptr0[j]    = LW'(j);
      lit_l[j]   = 1'b1;
      litix_l[j] = '0;
      slot_l[j]  = '0;
      bank_l[j]  = '0;
      usel_l[j]  = 1'b0;
      for (int g = 0; g < Segs; g++) begin
        logic [CW-1:0] st, ln;
        logic [16:0]   s;
        s  = '0;
        st = pl_st_i[g*CW +: CW];
        ln = pl_len_i[g*CW +: CW];
        if (32'(j) >= 32'(st) && 32'(j) < 32'(st) + 32'(ln)) begin
          if (!pl_match_i[g]) begin
            lit_l[j]   = 1'b1;
            litix_l[j] = LW'(pl_lb_i[g*CW +: CW] + CW'(j) - st);
          end else begin
            s          = pl_src_i[g*17 +: 17] + 17'(CW'(j)) - 17'(st);
            lit_l[j]   = 1'b0;
            slot_l[j]  = pl_slot_i[g*SW +: SW];
            bank_l[j]  = s[LW-1:0];
            usel_l[j]  = (s >= pl_pprev_i);
            if (s >= pl_p_i) ptr0[j] = LW'(s - pl_p_i);  // an earlier lane of this row
          end
        end
      end
    end
  end

  // pointer jumping: every lane ends on a lane whose source is a literal, L or the RAM
  // (one signal per step, lane j's pointer at bits j*LW)
  for (genvar r = 0; r <= LW; r++) begin : gen_jump
    logic [OutBytes*LW-1:0] p;
    if (r == 0) begin : gen_first
      for (genvar j = 0; j < OutBytes; j++) begin : gen_lane
        assign p[j*LW +: LW] = ptr0[j];
      end
    end else begin : gen_step
      for (genvar j = 0; j < OutBytes; j++) begin : gen_lane
        assign p[j*LW +: LW] = gen_jump[r-1].p[gen_jump[r-1].p[j*LW +: LW]*LW +: LW];
      end
    end
  end

  // RAM read address of every replica bank: the slot's match segment covers consecutive source
  // positions, so each bank holds at most one of them.
  logic [RW-1:0] raddr [MatchSlots][OutBytes];
  for (genvar k = 0; k < MatchSlots; k++) begin : gen_raddr
    logic [16:0] s0;
    always_comb begin
      s0 = '0;
      for (int g = 0; g < Segs; g++) begin
        if (pl_match_i[g] && pl_len_i[g*CW +: CW] != '0 && 32'(pl_slot_i[g*SW +: SW]) == k)
          s0 = pl_src_i[g*17 +: 17];
      end
    end
    // bank b holds source position s0 + ((b - s0) mod OutBytes): the next row when b < s0 mod OutBytes
    assign raddr[k][0]          = RW'((s0 >> LW) + 17'(s0[LW-1:0] != '0));
    assign raddr[k][OutBytes-1] = RW'(s0 >> LW);
    for (genvar b = 1; b < OutBytes - 1; b++) begin : gen_bank
      assign raddr[k][b] = RW'((s0 >> LW) + 17'(LW'(b) < s0[LW-1:0]));
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 3 register and history
  logic                 v3_q, last3_q, err3_q;
  lz4_pkg::err_e        code3_q;
  logic [16:0]          p3_q;
  logic [CW-1:0]        n3_q;
  logic [OutBytes*8-1:0] lits3_q;
  logic [LW-1:0]        ptr3_q   [OutBytes];
  logic                 lit3_q   [OutBytes];
  logic [LW-1:0]        litix3_q [OutBytes];
  logic [SW-1:0]        slot3_q  [OutBytes];
  logic [LW-1:0]        bank3_q  [OutBytes];
  logic                 usel3_q  [OutBytes];
  logic [7:0]           l_q      [OutBytes];   // previous row, by bank

  logic                 adv, wr;
  logic [7:0]           rdata [MatchSlots][OutBytes];
  logic [7:0]           row   [OutBytes];

  assign adv   = !v3_q || out_ready_i;
  assign adv_o = adv;
  assign wr    = v3_q && out_ready_i && !err3_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v3_q <= 1'b0;
    else if (adv) v3_q <= pl_v_i;
  end

  always_ff @(posedge clk_i) begin
    if (adv) begin
      last3_q <= pl_last_i;
      err3_q  <= pl_err_i;
      code3_q <= pl_code_i;
      p3_q    <= pl_p_i;
      n3_q    <= pl_n_i;
      lits3_q <= pl_lits_i;
      for (int j = 0; j < OutBytes; j++) begin
        ptr3_q[j]   <= gen_jump[LW].p[j*LW +: LW];
        lit3_q[j]   <= lit_l[j];
        litix3_q[j] <= litix_l[j];
        slot3_q[j]  <= slot_l[j];
        bank3_q[j]  <= bank_l[j];
        usel3_q[j]  <= usel_l[j];
      end
    end
  end

  // row data: each lane's own source, then the pointer gather
  logic [OutBytes*8-1:0] base;
  for (genvar j = 0; j < OutBytes; j++) begin : gen_row
    logic [7:0] hist;
    always_comb begin
      hist = '0;
      for (int k = 0; k < MatchSlots; k++) if (32'(slot3_q[j]) == k) hist = rdata[k][bank3_q[j]];
    end
    assign base[j*8 +: 8] = lit3_q[j] ? lits3_q[litix3_q[j]*8 +: 8] : usel3_q[j] ? l_q[bank3_q[j]] : hist;
    assign row[j] = (32'(j) < 32'(n3_q)) ? base[ptr3_q[j]*8 +: 8] : 8'h00;
    assign out_data_o[j*8 +: 8] = row[j];
  end

  // write the row into every replica (bank = position mod OutBytes) and into L
  logic [RW-1:0] waddr [OutBytes];
  logic [7:0]    wdata [OutBytes];
  logic          we    [OutBytes];
  for (genvar b = 0; b < OutBytes; b++) begin : gen_wr
    logic [LW-1:0] j;
    logic [16:0]   pos;
    assign j        = LW'(b) - p3_q[LW-1:0];
    assign pos      = p3_q + 17'(j);
    assign we[b]    = wr && (32'(j) < 32'(n3_q));
    assign waddr[b] = RW'(pos >> LW);
    assign wdata[b] = row[j];
  end

  always_ff @(posedge clk_i) begin
    for (int b = 0; b < OutBytes; b++) if (we[b]) l_q[b] <= wdata[b];
  end

  for (genvar k = 0; k < MatchSlots; k++) begin : gen_rep
    for (genvar b = 0; b < OutBytes; b++) begin : gen_bank
      // the macro's read port on a plain net: Yosys 0.23 drops a black-box output bound to an
      // unpacked-array element (the RAM then vanished from synthesis)
      logic [7:0] rd_rdata;
      ram_1r1w #(.Width(8), .Depth(Rows)) u_ram (
        .clk_i,
        .rst_ni,
        .we_i   (we[b]),
        .waddr_i(waddr[b]),
        .wlane_i(1'b1),
        .wdata_i(wdata[b]),
        .re_i   (adv),
        .raddr_i(raddr[k][b]),
        .rdata_o(rd_rdata)
      );
      assign rdata[k][b] = rd_rdata;
    end
  end

  assign out_valid_o = v3_q;
  assign out_cnt_o   = n3_q;
  assign out_last_o  = last3_q;
  assign out_err_o   = err3_q;
  assign out_code_o  = code3_q;

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, (OutBytes & (OutBytes - 1)) == 0 && Rows * OutBytes == MaxBlockBytes)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i,
                     {out_data_o, out_cnt_o, out_last_o, out_err_o, out_code_o})
  `NDP_ASSERT(in_block_a, !v3_q || err3_q || 32'(p3_q) + 32'(n3_q) <= MaxBlockBytes)
  `NDP_ASSERT(err_empty_a, !(v3_q && err3_q) || (n3_q == '0 && last3_q))
endmodule
