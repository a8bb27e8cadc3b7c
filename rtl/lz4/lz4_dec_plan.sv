// lz4_dec_plan: first stage of the decoder's copy back end. Each cycle it lays out the next output
// row of up to OutBytes bytes: which literal bytes and which match copies (at most MatchSlots)
// fill which lanes, taking commands and literal bytes off their queues.
//
/// Registers: the position within the command at the queue head (cursor), the output position,
/// and the row plan handed to lz4_dec_copy (one register stage). The segment walk is a chain of
/// 2*(MatchSlots+1) min/subtract steps on 6-bit budgets. A parser error flushes both queues and
/// turns into an error row (no data, last) that follows every row planned before it.
`include "ndp_assert.svh"

module lz4_dec_plan #(
  parameter int unsigned OutBytes   = 32,
  parameter int unsigned MatchSlots = 4,
  parameter int unsigned CmdCntW    = 5,
  parameter int unsigned LitCntW    = 8,
  localparam int unsigned Cmds = MatchSlots + 1,
  localparam int unsigned Segs = 2 * Cmds,
  localparam int unsigned CW   = $clog2(OutBytes + 1),
  localparam int unsigned SW   = (MatchSlots > 1) ? $clog2(MatchSlots) : 1
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          adv_i,        // the plan register may load
  // command queue
  input  logic [Cmds*lz4_pkg::CmdW-1:0] cmd_head_i,
  input  logic [CmdCntW-1:0]            cmd_cnt_i,
  output logic [$clog2(Cmds+1)-1:0]     cmd_pop_o,
  // literal queue
  input  logic [OutBytes*8-1:0]         lit_head_i,
  input  logic [LitCntW-1:0]            lit_cnt_i,
  output logic [CW-1:0]                 lit_pop_o,
  output logic                          flush_o,      // drop both queues (error)
  // parser error; push_last_i: the parser pushed a block's last command (blocks before the
  // erroneous one finish their rows before the error is taken and the queues are flushed)
  input  logic                          push_last_i,
  input  logic                          err_i,
  input  lz4_pkg::err_e                 err_code_i,
  output logic                          err_ack_o,
  // row plan (registered)
  output logic                          pl_v_o,
  output logic [16:0]                   pl_p_o,       // block position of lane 0
  output logic [16:0]                   pl_pprev_o,   // start of the previous row of the block
  output logic [CW-1:0]                 pl_n_o,       // bytes in the row
  output logic                          pl_last_o,
  output logic                          pl_err_o,
  output lz4_pkg::err_e                 pl_code_o,
  output logic [Segs*CW-1:0]            pl_st_o,      // segment start lane
  output logic [Segs*CW-1:0]            pl_len_o,     // segment length (0: unused)
  output logic [Segs-1:0]               pl_match_o,   // segment is a match copy
  output logic [Segs*17-1:0]            pl_src_o,     // match: source position of its first lane
  output logic [Segs*SW-1:0]            pl_slot_o,    // match: history replica used
  output logic [Segs*CW-1:0]            pl_lb_o,      // literal: index of its first literal byte
  output logic [OutBytes*8-1:0]         pl_lits_o
);
  logic        cpart_q, cpart_d;   // 0: in the literal part of the head command, 1: in its match
  logic [4:0]  lasts_q;            // blocks whose last command is queued but not yet planned
  logic        err_take;           // take the parser's error now (no earlier block left)
  logic [16:0] cdone_q, cdone_d;   // bytes of that part already written
  logic [16:0] p_q, p_d, pprev_q, pprev_d;

  // combinational plan
  logic [CW-1:0]  st   [Segs];
  logic [CW-1:0]  len  [Segs];
  logic           ism  [Segs];
  logic [16:0]    src  [Segs];
  logic [SW-1:0]  slot [Segs];
  logic [CW-1:0]  lb   [Segs];
  logic [CW-1:0]  n_out, lused;
  logic           row_last;
  logic [$clog2(Cmds+1)-1:0] ncons;

  function automatic logic [CW-1:0] min3(input logic [16:0] a, input logic [CW-1:0] b,
                                         input logic [CW-1:0] c);
    logic [16:0] m;
    m = a;
    if (17'(b) < m) m = 17'(b);
    if (17'(c) < m) m = 17'(c);
    min3 = CW'(m);
  endfunction

  always_comb begin
    logic [CW-1:0] rem, lav;
    logic          stop;
    logic [$clog2(MatchSlots+1)-1:0] slots;
    rem      = CW'(OutBytes);
    lav      = (32'(lit_cnt_i) > OutBytes) ? CW'(OutBytes) : CW'(lit_cnt_i);
    stop     = 1'b0;
    slots    = '0;
    lused    = '0;
    row_last = 1'b0;
    ncons    = '0;
    cpart_d  = cpart_q;
    cdone_d  = cdone_q;
    for (int c = 0; c < Cmds; c++) begin
      logic          valid, e_last;
      logic [16:0]   lrem, mrem, done0, tk, e_ll, e_ml;
      logic [15:0]   e_off;
      e_ll   = cmd_head_i[c*lz4_pkg::CmdW + lz4_pkg::CmdLl +: 17];
      e_ml   = cmd_head_i[c*lz4_pkg::CmdW + lz4_pkg::CmdMl +: 17];
      e_off  = cmd_head_i[c*lz4_pkg::CmdW + lz4_pkg::CmdOff +: 16];
      e_last = cmd_head_i[c*lz4_pkg::CmdW + lz4_pkg::CmdLast];
      valid = (32'(cmd_cnt_i) > c);
      done0 = (c == 0) ? cdone_q : 17'd0;
      lrem  = (c == 0 && cpart_q) ? 17'd0 : e_ll - done0;
      mrem  = (c == 0 && cpart_q) ? e_ml - done0 : e_ml;
      // literal segment
      st[2*c]   = CW'(OutBytes) - rem;
      lb[2*c]   = lused;
      ism[2*c]  = 1'b0;
      src[2*c]  = '0;
      slot[2*c] = '0;
      tk        = (!stop && valid) ? 17'(min3(lrem, rem, lav)) : 17'd0;
      len[2*c]  = CW'(tk);
      rem       = rem - CW'(tk);
      lav       = lav - CW'(tk);
      lused     = lused + CW'(tk);
      if (!stop && valid && tk < lrem) begin
        stop    = 1'b1;
        cpart_d = 1'b0;
        cdone_d = ((c == 0) ? cdone_q : 17'd0) + tk;
        ncons   = ($clog2(Cmds+1))'(c);
      end else if (!stop && !valid) begin
        stop    = 1'b1;
        cpart_d = 1'b0;
        cdone_d = '0;
        ncons   = ($clog2(Cmds+1))'(c);
      end
      // match segment
      st[2*c+1]   = CW'(OutBytes) - rem;
      lb[2*c+1]   = '0;
      ism[2*c+1]  = 1'b1;
      src[2*c+1]  = p_q + 17'(OutBytes) - 17'(rem) - 17'(e_off);
      slot[2*c+1] = SW'(slots);
      tk          = 17'd0;
      if (!stop) begin
        if (mrem != '0 && 32'(slots) == MatchSlots) begin
          stop    = 1'b1;
          cpart_d = 1'b1;
          cdone_d = (c == 0 && cpart_q) ? cdone_q : 17'd0;
          ncons   = ($clog2(Cmds+1))'(c);
        end else begin
          tk = 17'(min3(mrem, rem, CW'(OutBytes)));
          if (tk != '0) slots = slots + 1'b1;
          rem = rem - CW'(tk);
          if (tk < mrem) begin
            stop    = 1'b1;
            cpart_d = 1'b1;
            cdone_d = ((c == 0 && cpart_q) ? cdone_q : 17'd0) + tk;
            ncons   = ($clog2(Cmds+1))'(c);
          end else begin
            ncons   = ($clog2(Cmds+1))'(c + 1);
            cpart_d = 1'b0;
            cdone_d = '0;
            if (e_last) begin
              stop     = 1'b1;
              row_last = 1'b1;
            end
          end
        end
      end
      len[2*c+1] = CW'(tk);
    end
    n_out = CW'(OutBytes) - rem;
  end

  assign err_take = err_i && lasts_q == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) lasts_q <= '0;
    else lasts_q <= lasts_q + 5'(push_last_i) - 5'(adv_i && !err_take && row_last);
  end

  // queue control and next state
  always_comb begin
    cmd_pop_o = '0;
    lit_pop_o = '0;
    flush_o   = 1'b0;
    err_ack_o = 1'b0;
    p_d       = p_q;
    pprev_d   = pprev_q;
    if (adv_i) begin
      if (err_take) begin
        flush_o   = 1'b1;
        err_ack_o = 1'b1;
        p_d       = '0;
        pprev_d   = '0;
      end else begin
        cmd_pop_o = ncons;
        lit_pop_o = lused;
        if (row_last) begin
          p_d     = '0;
          pprev_d = '0;
        end else if (n_out != '0) begin
          p_d     = p_q + 17'(n_out);
          pprev_d = p_q;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cpart_q <= 1'b0;
      cdone_q <= '0;
      p_q     <= '0;
      pprev_q <= '0;
      pl_v_o  <= 1'b0;
    end else if (adv_i) begin
      p_q     <= p_d;
      pprev_q <= pprev_d;
      if (err_take) begin
        cpart_q   <= 1'b0;
        cdone_q   <= '0;
        pl_v_o    <= 1'b1;
      end else begin
        cpart_q   <= row_last ? 1'b0 : cpart_d;
        cdone_q   <= row_last ? 17'd0 : cdone_d;
        pl_v_o    <= (n_out != '0) || row_last;
      end
    end
  end

  // plan payload: no reset needed (qualified by pl_v_o)
  always_ff @(posedge clk_i) begin
    if (adv_i) begin
      pl_p_o     <= p_q;
      pl_pprev_o <= pprev_q;
      pl_n_o     <= err_take ? '0 : n_out;
      pl_last_o  <= err_take || row_last;
      pl_err_o   <= err_take;
      pl_code_o  <= err_take ? err_code_i : lz4_pkg::ErrNone;
      pl_lits_o  <= lit_head_i;
      for (int g = 0; g < Segs; g++) begin
        pl_st_o[g*CW +: CW]   <= st[g];
        pl_len_o[g*CW +: CW]  <= err_take ? '0 : len[g];
        pl_match_o[g]         <= ism[g];
        pl_src_o[g*17 +: 17]  <= src[g];
        pl_slot_o[g*SW +: SW] <= slot[g];
        pl_lb_o[g*CW +: CW]   <= lb[g];
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, OutBytes >= 4 && (OutBytes & (OutBytes - 1)) == 0 && MatchSlots >= 1)
  `NDP_ASSERT(lit_pop_a, !adv_i || 32'(lit_pop_o) <= 32'(lit_cnt_i))
  `NDP_ASSERT(cmd_pop_a, !adv_i || 32'(cmd_pop_o) <= 32'(cmd_cnt_i))
  `NDP_ASSERT(row_fits_a, 32'(n_out) <= OutBytes)
  `NDP_ASSERT(lasts_a, !(adv_i && !err_take && row_last) || lasts_q != '0 || push_last_i)
endmodule
