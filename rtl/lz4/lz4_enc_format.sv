// lz4_enc_format: writes the encoder's sequence records as LZ4 block bytes (token, literal-length
// bytes, literals, offset, match-length bytes) and packs them into OutBytes-byte output beats.
//
/// Registers: the slow-path state (one sequence, a field per cycle), the stage-F2 register (a
/// byte template plus where the literals read from the input RAM go) and the output byte queue.
/// Fast path: up to Fmt sequences per cycle when each is short (fewer than 15 literals, at most
/// one match-length byte), all fit in OutBytes bytes and at most one of them carries literals (one
/// RAM read port). Other sequences: token, then one length byte per cycle, literals OutBytes per
/// cycle, offset, match-length bytes. Literal bytes come from the input RAM (read port B, data one
/// cycle after the address), so F1 issues the read and F2 merges the data.
`include "ndp_assert.svh"

module lz4_enc_format #(
  parameter int unsigned OutBytes = 16,
  parameter int unsigned Fmt      = 3,   // sequence records visible / formatted per cycle
  parameter int unsigned SeqCntW  = 5,
  localparam int unsigned SeqW = 16 + 17 + 16 + 17 + 1,
  localparam int unsigned OCW  = $clog2(OutBytes + 1),
  localparam int unsigned FCW  = $clog2(Fmt + 1)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // sequence queue
  input  logic [Fmt*SeqW-1:0]     seq_head_i,
  input  logic [SeqCntW-1:0]      seq_cnt_i,
  output logic [FCW-1:0]          seq_pop_o,
  // input RAM read port B (OutBytes bytes from ring address ram_pos_o, data next cycle)
  output logic [15:0]             ram_pos_o,
  input  logic [OutBytes*8-1:0]   ram_data_i,
  // compressed output
  output logic                    out_valid_o,
  input  logic                    out_ready_i,
  output logic [OutBytes*8-1:0]   out_data_o,
  output logic [OCW-1:0]          out_cnt_o,
  output logic                    out_last_o,
  output logic                    blk_done_o    // the block's last beat is taken this cycle
);
  typedef enum logic [2:0] {FFast, FLlx, FLit, FOff, FMlx} fst_e;

  localparam int unsigned QD  = 4 * OutBytes;
  localparam int unsigned QCW = $clog2(QD + 1);

  fst_e        st_q, st_d;
  logic        end_q;           // the block's last bytes are queued
  logic [16:0] v_q, v_d;        // remaining length value of a length-byte run
  logic [16:0] rem_q, rem_d;    // literal bytes left (slow path)
  logic [15:0] lp_q, lp_d;      // next literal ring address (slow path)
  logic [QCW-1:0] qcnt;
  logic        room;

  // F2 register
  logic                 f2_v_q, f2_last_q;
  logic [OutBytes*8-1:0] f2_tmpl_q;
  logic [OCW-1:0]       f2_cnt_q, f2_lpos_q, f2_lcnt_q;

  logic                 f2_v_d, f2_last_d;
  logic [OutBytes*8-1:0] f2_tmpl_d;
  logic [OCW-1:0]       f2_cnt_d, f2_lpos_d, f2_lcnt_d;

  // room for this cycle's bytes and those in F2; a block's first bytes wait until the previous
  // block's last beat has left (beats never mix blocks)
  assign room = (32'(qcnt) + 2 * OutBytes <= QD) && !end_q && !(f2_v_q && f2_last_q);

  // ---------------------------------------------------------------------------------------------
  // F1: choose what to write this cycle
  // sequence records {lit_start[15:0], ll[16:0], off[15:0], ml[16:0], last}, field by field
  logic [15:0] s_a    [Fmt];
  logic [16:0] s_ll   [Fmt];
  logic [15:0] s_off  [Fmt];
  logic [16:0] s_ml   [Fmt];
  logic        s_last [Fmt];
  logic        simple [Fmt];
  logic [5:0]  size   [Fmt];
  always_comb begin
    for (int j = 0; j < Fmt; j++) begin
      s_a[j]    = seq_head_i[j*SeqW + 51 +: 16];
      s_ll[j]   = seq_head_i[j*SeqW + 34 +: 17];
      s_off[j]  = seq_head_i[j*SeqW + 18 +: 16];
      s_ml[j]   = seq_head_i[j*SeqW + 1 +: 17];
      s_last[j] = seq_head_i[j*SeqW];
      size[j]   = 6'd1 + 6'(s_ll[j][3:0]) + (s_last[j] ? 6'd0 : 6'd2 + 6'(s_ml[j] >= 17'd19));
      simple[j] = (32'(seq_cnt_i) > j) && (s_ll[j] < 17'd15) &&
                  (s_last[j] || s_ml[j] < 17'd274) && (32'(size[j]) <= OutBytes);
    end
  end

  // token byte of a sequence
  function automatic logic [7:0] token(input logic [16:0] ll, input logic [16:0] ml, input logic last);
    token = {(ll >= 17'd15) ? 4'hF : ll[3:0],
             last ? 4'h0 : ((ml >= 17'd19) ? 4'hF : 4'(ml - 17'd4))};
  endfunction

  always_comb begin
    logic        go, lit_used;
    logic [6:0]  o;
    logic [OutBytes*8-1:0] b;
    logic [4:0]  l;
    logic [16:0] k;
    go = 1'b0; lit_used = 1'b0; o = '0; b = '0; l = '0; k = '0;
    st_d      = st_q;
    v_d       = v_q;
    rem_d     = rem_q;
    lp_d      = lp_q;
    seq_pop_o = '0;
    ram_pos_o = s_a[0];
    f2_v_d    = 1'b0;
    f2_last_d = 1'b0;
    f2_tmpl_d = '0;
    f2_cnt_d  = '0;
    f2_lpos_d = '0;
    f2_lcnt_d = '0;
    if (room) begin
      unique case (st_q)
        FFast: begin
          if (simple[0]) begin
            go       = 1'b1;
            lit_used = 1'b0;
            o        = '0;
            for (int j = 0; j < Fmt; j++) begin
              if (go && simple[j] && 32'(o) + 32'(size[j]) <= OutBytes &&
                  !(lit_used && s_ll[j] != '0)) begin
                l = 5'(s_ll[j]);
                b = '0;
                b[7:0] = token(s_ll[j], s_ml[j], s_last[j]);
                if (!s_last[j]) begin
                  b[(32'(l) + 1)*8 +: 8] = s_off[j][7:0];
                  b[(32'(l) + 2)*8 +: 8] = s_off[j][15:8];
                  if (s_ml[j] >= 17'd19) b[(32'(l) + 3)*8 +: 8] = 8'(s_ml[j] - 17'd19);
                end
                f2_tmpl_d = f2_tmpl_d | (b << {o, 3'b000});
                if (s_ll[j] != '0) begin
                  lit_used  = 1'b1;
                  ram_pos_o = s_a[j];
                  f2_lpos_d = OCW'(o + 7'd1);
                  f2_lcnt_d = OCW'(l);
                end
                o         = o + 7'(size[j]);
                seq_pop_o = FCW'(j + 1);
                if (s_last[j]) begin
                  f2_last_d = 1'b1;
                  go        = 1'b0;
                end
              end else begin
                go = 1'b0;
              end
            end
            f2_v_d   = 1'b1;
            f2_cnt_d = OCW'(o);
          end else if (32'(seq_cnt_i) > 0) begin
            // slow path: the token alone
            f2_v_d         = 1'b1;
            f2_tmpl_d[7:0] = token(s_ll[0], s_ml[0], s_last[0]);
            f2_cnt_d       = OCW'(1);
            lp_d           = s_a[0];
            rem_d          = s_ll[0];
            if (s_ll[0] >= 17'd15) begin
              st_d = FLlx;
              v_d  = s_ll[0] - 17'd15;
            end else if (s_ll[0] != '0) begin
              st_d = FLit;
            end else begin
              st_d = FOff;  // a non-simple sequence without literals has a match
            end
          end
        end
        FLlx: begin
          f2_v_d         = 1'b1;
          f2_cnt_d       = OCW'(1);
          f2_tmpl_d[7:0] = (v_q >= 17'd255) ? 8'hFF : v_q[7:0];
          if (v_q >= 17'd255) v_d = v_q - 17'd255;
          else st_d = FLit;
        end
        FLit: begin
          k         = (rem_q < 17'(OutBytes)) ? rem_q : 17'(OutBytes);
          ram_pos_o = lp_q;
          f2_v_d    = 1'b1;
          f2_cnt_d  = OCW'(k);
          f2_lpos_d = '0;
          f2_lcnt_d = OCW'(k);
          lp_d      = lp_q + 16'(k);
          rem_d     = rem_q - k;
          if (rem_d == '0) begin
            if (s_last[0]) begin
              st_d      = FFast;
              seq_pop_o = FCW'(1);
              f2_last_d = 1'b1;
            end else begin
              st_d = FOff;
            end
          end
        end
        FOff: begin
          f2_v_d          = 1'b1;
          f2_cnt_d        = OCW'(2);
          f2_tmpl_d[15:0] = s_off[0];
          if (s_ml[0] >= 17'd19) begin
            st_d = FMlx;
            v_d  = s_ml[0] - 17'd19;
          end else begin
            st_d      = FFast;
            seq_pop_o = FCW'(1);
          end
        end
        FMlx: begin
          f2_v_d         = 1'b1;
          f2_cnt_d       = OCW'(1);
          f2_tmpl_d[7:0] = (v_q >= 17'd255) ? 8'hFF : v_q[7:0];
          if (v_q >= 17'd255) begin
            v_d = v_q - 17'd255;
          end else begin
            st_d      = FFast;
            seq_pop_o = FCW'(1);
          end
        end
        default: st_d = FFast;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= FFast;
      v_q    <= '0;
      rem_q  <= '0;
      lp_q   <= '0;
      f2_v_q <= 1'b0;
    end else begin
      st_q   <= st_d;
      v_q    <= v_d;
      rem_q  <= rem_d;
      lp_q   <= lp_d;
      f2_v_q <= f2_v_d;
    end
  end
  always_ff @(posedge clk_i) begin
    f2_last_q <= f2_last_d;
    f2_tmpl_q <= f2_tmpl_d;
    f2_cnt_q  <= f2_cnt_d;
    f2_lpos_q <= f2_lpos_d;
    f2_lcnt_q <= f2_lcnt_d;
  end

  // ---------------------------------------------------------------------------------------------
  // F2: merge the literal bytes, push to the output queue
  logic [OutBytes*8-1:0] f2_bytes, lits;
  always_comb begin
    lits = ram_data_i;
    for (int b = 0; b < OutBytes; b++) if (32'(b) >= 32'(f2_lcnt_q)) lits[b*8 +: 8] = 8'h00;
    f2_bytes = f2_tmpl_q | (lits << {f2_lpos_q, 3'b000});
  end

  logic [OutBytes*8-1:0] qhead;
  logic                  out_hs;

  assign out_valid_o = (32'(qcnt) >= OutBytes) || (end_q && qcnt != '0);
  assign out_last_o  = end_q && (32'(qcnt) <= OutBytes);
  assign out_cnt_o   = (32'(qcnt) >= OutBytes) ? OCW'(OutBytes) : OCW'(qcnt);
  assign out_data_o  = qhead;
  assign out_hs      = out_valid_o && out_ready_i;
  assign blk_done_o  = out_hs && out_last_o;

  lz4_byteq #(.Depth(QD), .PushW(OutBytes), .PopW(OutBytes)) u_outq (
    .clk_i,
    .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (f2_v_q ? f2_cnt_q : '0),
    .push_data_i(f2_bytes),
    .pop_cnt_i  (out_hs ? out_cnt_o : '0),
    .head_o     (qhead),
    .count_o    (qcnt)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) end_q <= 1'b0;
    else if (f2_v_q && f2_last_q) end_q <= 1'b1;
    else if (blk_done_o) end_q <= 1'b0;
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, OutBytes >= 8 && Fmt >= 1)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, {out_data_o, out_cnt_o, out_last_o})
  `NDP_ASSERT(pop_a, 32'(seq_pop_o) <= 32'(seq_cnt_i))
  `NDP_ASSERT(f2_fits_a, !f2_v_q || 32'(f2_cnt_q) <= OutBytes)
  `NDP_ASSERT(lits_fit_a, !f2_v_q || 32'(f2_lpos_q) + 32'(f2_lcnt_q) <= 32'(f2_cnt_q))
  `NDP_ASSERT(one_block_a, !(end_q && f2_v_q))
endmodule
