// lz4_dec_parser: turns an LZ4 block (lz4_Block_format.md) into sequence commands and a literal
// byte stream, validating every field against the block's raw size.
//
/// Registers: the parse state, the decoded-size counter and the fields of a sequence that the
/// slow path assembles over several cycles. Everything else is combinational on the input window
/// (a register view in lz4_byteq): the fast path chains up to Seqs sequences per cycle through a
/// next-token table computed for every window position; the slow path handles one sequence with
/// long literal runs or 255-byte length chains, a field per cycle and literals Win bytes per cycle.
/// Checks (docs/lz4.md "Rejected blocks"), per sequence in this order: literal run past raw_size,
/// truncation inside the sequence, the final literal run ending short of raw_size, match past
/// raw_size, offset 0, offset before the block start, the end-of-block rules (a match starts at
/// most raw-12 and ends at most raw-5); then a missing final literal run. The slow path checks a
/// length against raw_size at every length byte, so 255-chains stop as soon as they overrun.
`include "ndp_assert.svh"

module lz4_dec_parser #(
  parameter int unsigned Win           = 64,     // window bytes visible per cycle
  parameter int unsigned Seqs          = 4,      // sequences per cycle on the fast path
  parameter int unsigned MaxBlockBytes = 65536,
  parameter int unsigned AvailW        = 7,      // width of avail_i
  parameter int unsigned CmdSpaceW     = 5,
  parameter int unsigned LitSpaceW     = 8,
  localparam int unsigned WinCW  = $clog2(Win + 1),
  localparam int unsigned SeqCW  = $clog2(Seqs + 1)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // input window (head of the input byte queue)
  input  logic [Win*8-1:0]        win_i,
  input  logic [AvailW-1:0]       avail_i,      // bytes queued (may exceed Win)
  input  logic                    eob_i,        // the block's last input byte is queued
  input  logic                    blk_valid_i,  // a block is open (its first beat was taken)
  input  logic [16:0]             raw_size_i,   // the open block's decoded size
  output logic [WinCW-1:0]        pop_o,
  // commands to the back end
  input  logic [CmdSpaceW-1:0]    cmd_space_i,
  output logic [SeqCW-1:0]        cmd_push_cnt_o,
  output logic [Seqs*lz4_pkg::CmdW-1:0] cmd_push_data_o,
  // literal bytes to the back end
  input  logic [LitSpaceW-1:0]    lit_space_i,
  output logic [WinCW-1:0]        lit_push_cnt_o,
  output logic [Win*8-1:0]        lit_push_data_o,
  // error hand-off: held until acknowledged by the back end
  output logic                    err_o,
  output lz4_pkg::err_e           err_code_o,
  input  logic                    err_ack_i,
  // one-cycle pulse: the block is fully parsed (or drained after an error)
  output logic                    blk_done_o,
  // the block's last command is pushed this cycle
  output logic                    push_last_o
);
  typedef enum logic [3:0] {
    StFast, StLlx, StLitCmd, StLit, StLitEnd, StOff, StMlx, StMCmd, StDone, StErr
  } st_e;

  st_e              st_q, st_d;
  logic [16:0]      pos_q, pos_d;          // decoded bytes so far in this block
  logic [16:0]      ll_q, ll_d, ml_q, ml_d, rem_q, rem_d;
  logic [15:0]      off_q, off_d;
  logic [3:0]       mln_q, mln_d;
  logic             any_q, any_d;          // a sequence with a match has been parsed
  logic             err_q, err_d;
  lz4_pkg::err_e    code_q, code_d;

  logic [WinCW-1:0] vis;                   // visible bytes
  logic             raw_bad;
  logic [17:0]      raw;

  always_comb begin
    vis     = (32'(avail_i) >= Win) ? WinCW'(Win) : WinCW'(avail_i);
    raw     = {1'b0, raw_size_i};
    raw_bad = (raw_size_i == '0) || (32'(raw_size_i) > MaxBlockBytes);
  end

  function automatic logic [7:0] wbyte(input logic [Win*8-1:0] w, input logic [9:0] idx);
    wbyte = (32'(idx) < Win) ? w[idx[$clog2(Win)-1:0]*8 +: 8] : 8'h00;
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Fast path: next-token table for every window position, then a chain of Seqs look-ups.
  logic [9:0] nx_tab [Win];
  always_comb begin
    for (int s = 0; s < Win; s++) begin
      logic [7:0] t, e1;
      logic [8:0] ll;
      t  = win_i[s*8 +: 8];
      e1 = (s + 1 < Win) ? win_i[(s+1)*8 +: 8] : 8'h00;
      ll = (t[7:4] == 4'hF) ? 9'(15) + 9'(e1) : 9'(t[7:4]);
      nx_tab[s] = 10'(s) + 10'd1 + 10'(t[7:4] == 4'hF) + 10'(ll) + 10'd2 + 10'(t[3:0] == 4'hF);
    end
  end

  logic [9:0]  sp   [Seqs+1];   // token position of sequence k
  logic        cmp  [Seqs];     // sequence k complete in the window
  logic        last [Seqs];     // sequence k is the block's last (literals end at input end)
  logic        bad  [Seqs];     // sequence k violates a rule
  lz4_pkg::err_e bcode [Seqs];
  logic [16:0] sll  [Seqs];
  logic [16:0] sml  [Seqs];
  logic [15:0] soff [Seqs];
  logic [9:0]  sls  [Seqs];     // literal start in the window
  logic [9:0]  sle  [Seqs];     // literal end
  logic [17:0] spos [Seqs+1];   // decoded position before sequence k
  logic        take [Seqs];
  logic [SeqCW-1:0] ntake;
  logic        fast_err;
  lz4_pkg::err_e fast_code;
  logic [9:0]  fast_pop;  // <= Win when used (bits above are zero)
  logic [10:0] litsum [Seqs+1];

  always_comb begin
    sp[0]     = '0;
    spos[0]   = {1'b0, pos_q};
    litsum[0] = '0;
    for (int k = 0; k < Seqs; k++) begin
      logic [7:0] t, e1, e2, olo, ohi;
      logic       llx, mlx;
      logic [8:0] ll9;
      logic [9:0] s, le;
      logic [17:0] pl;
      s   = sp[k];
      t   = wbyte(win_i, s);
      e1  = wbyte(win_i, s + 10'd1);
      llx = (t[7:4] == 4'hF);
      mlx = (t[3:0] == 4'hF);
      ll9 = llx ? 9'(15) + 9'(e1) : 9'(t[7:4]);
      le  = s + 10'd1 + 10'(llx) + 10'(ll9);
      olo = wbyte(win_i, le);
      ohi = wbyte(win_i, le + 10'd1);
      e2  = wbyte(win_i, le + 10'd2);
      sls[k]  = s + 10'd1 + 10'(llx);
      sle[k]  = le;
      sll[k]  = 17'(ll9);
      soff[k] = {ohi, olo};
      sml[k]  = mlx ? 17'(19) + 17'(e2) : 17'(t[3:0]) + 17'd4;
      sp[k+1] = (32'(s) < Win) ? nx_tab[s[$clog2(Win)-1:0]] : 10'h3FF;
      // completeness
      last[k] = eob_i && (32'(le) == 32'(avail_i));
      cmp[k]  = (32'(s) < 32'(vis)) && (!llx || (32'(s) + 1 < 32'(vis) && e1 != 8'hFF)) &&
                (last[k] ? (32'(le) <= 32'(vis))
                         : (32'(sp[k+1]) <= 32'(vis) && (!mlx || e2 != 8'hFF)));
      // rules
      pl = spos[k] + 18'(ll9);
      bad[k]   = 1'b0;
      bcode[k] = lz4_pkg::ErrNone;
      if (last[k]) begin
        if (pl != raw) begin
          bad[k]   = 1'b1;
          bcode[k] = (pl > raw) ? lz4_pkg::ErrOverrun : lz4_pkg::ErrShort;
        end
      end else if (pl > raw || pl + 18'(sml[k]) > raw) begin
        bad[k] = 1'b1; bcode[k] = lz4_pkg::ErrOverrun;
      end else if (soff[k] == '0) begin
        bad[k] = 1'b1; bcode[k] = lz4_pkg::ErrOffsetZero;
      end else if (18'(soff[k]) > pl) begin
        bad[k] = 1'b1; bcode[k] = lz4_pkg::ErrOffsetRange;
      end else if (pl + 18'd12 > raw || pl + 18'(sml[k]) + 18'd5 > raw) begin
        bad[k] = 1'b1; bcode[k] = lz4_pkg::ErrEndRule;
      end
      spos[k+1]   = pl + (last[k] ? 18'd0 : 18'(sml[k]));
      litsum[k+1] = litsum[k] + 11'(ll9);
    end
    // what is taken this cycle
    fast_err  = 1'b0;
    fast_code = lz4_pkg::ErrNone;
    ntake     = '0;
    fast_pop  = '0;
    begin
      logic run, ok_prefix, chk_prefix;
      run        = (st_q == StFast) && blk_valid_i && !raw_bad && !err_q;
      ok_prefix  = run;   // every earlier sequence is taken this cycle
      chk_prefix = run;   // every earlier sequence is complete and valid (resources aside), so a
                          // rule violation is reported even while the queues are full
      for (int k = 0; k < Seqs; k++) begin
        take[k] = 1'b0;
        if (chk_prefix && cmp[k] && bad[k] && !fast_err) begin
          fast_err  = 1'b1;
          fast_code = bcode[k];
        end
        if (ok_prefix && cmp[k] && !bad[k] && 32'(cmd_space_i) >= k + 1 &&
            32'(lit_space_i) >= 32'(litsum[k+1])) begin
          take[k]  = 1'b1;
          ntake    = SeqCW'(k + 1);
          fast_pop = last[k] ? sle[k] : sp[k+1];
        end else begin
          ok_prefix = 1'b0;
        end
        if (!cmp[k] || bad[k] || last[k]) begin
          chk_prefix = 1'b0;
          ok_prefix  = 1'b0;
        end
      end
    end
  end

  // fast-path command records and literal bytes (runs packed back to back)
  logic [Seqs*lz4_pkg::CmdW-1:0] fast_cmds;
  logic [Win*8-1:0]              fast_lits;
  logic                          fast_last;
  always_comb begin
    fast_lits = '0;
    fast_last = 1'b0;
    for (int k = 0; k < Seqs; k++) begin
      logic [Win*8-1:0] run;
      fast_cmds[k*lz4_pkg::CmdW +: lz4_pkg::CmdW] =
          {sll[k], last[k] ? 17'd0 : sml[k], last[k] ? 16'd0 : soff[k], last[k]};
      // literal run k: window bytes [sls, sle) placed at litsum[k]
      run = (win_i >> {sls[k], 3'b000});
      for (int b = 0; b < Win; b++) if (32'(b) >= 32'(sll[k])) run[b*8 +: 8] = 8'h00;
      if (take[k]) begin
        fast_lits = fast_lits | (run << {litsum[k], 3'b000});
        if (last[k]) fast_last = 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // State machine (slow path, errors, block end)
  logic [16:0]   slow_ll, slow_ml;    // the slow path's command
  logic [15:0]   slow_off;
  logic          slow_last;
  logic          slow_push;
  logic [WinCW-1:0] lit_n;
  always_comb begin
    st_d   = st_q;
    pos_d  = pos_q;
    ll_d   = ll_q;
    ml_d   = ml_q;
    rem_d  = rem_q;
    off_d  = off_q;
    mln_d  = mln_q;
    any_d  = any_q;
    err_d  = err_q;
    code_d = code_q;
    pop_o  = '0;
    slow_push = 1'b0;
    slow_ll   = '0;
    slow_ml   = '0;
    slow_off  = '0;
    slow_last = 1'b0;
    lit_n     = '0;
    blk_done_o = 1'b0;
    cmd_push_cnt_o  = '0;
    cmd_push_data_o = fast_cmds;
    lit_push_cnt_o  = '0;
    lit_push_data_o = fast_lits;

    unique case (st_q)
      StFast: begin
        if (blk_valid_i && !err_q) begin
          if (raw_bad) begin
            err_d = 1'b1; code_d = lz4_pkg::ErrBadSize; st_d = StErr;
          end else if (fast_err) begin
            err_d = 1'b1; code_d = fast_code; st_d = StErr;
          end else if (ntake != '0) begin
            cmd_push_cnt_o = ntake;
            lit_push_cnt_o = WinCW'(litsum[ntake]);
            pop_o          = WinCW'(fast_pop);
            // fast_pop <= vis <= Win by construction (cmp)
            pos_d          = spos[ntake][16:0];
            any_d          = 1'b1;
            if (fast_last) st_d = StDone;
          end else if (avail_i == '0) begin
            if (eob_i) begin
              err_d  = 1'b1;
              code_d = any_q ? lz4_pkg::ErrNoLastLits : lz4_pkg::ErrTruncated;
              st_d   = StErr;
            end
          end else if (!cmp[0] && (32'(vis) == Win || eob_i)) begin
            // the head sequence does not fit the window: take its token, go field by field
            pop_o = WinCW'(1);
            mln_d = win_i[3:0];
            ll_d  = 17'(win_i[7:4]);
            st_d  = (win_i[7:4] == 4'hF) ? StLlx : StLitCmd;
          end
        end
      end
      StLlx: begin
        if (avail_i != '0) begin
          pop_o = WinCW'(1);
          ll_d  = ll_q + 17'(win_i[7:0]);
          if ({1'b0, pos_q} + 18'(ll_q) + 18'(win_i[7:0]) > raw) begin
            err_d = 1'b1; code_d = lz4_pkg::ErrOverrun; st_d = StErr;
          end else if (win_i[7:0] != 8'hFF) begin
            st_d = StLitCmd;
          end
        end else if (eob_i) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrTruncated; st_d = StErr;
        end
      end
      StLitCmd: begin
        if ({1'b0, pos_q} + 18'(ll_q) > raw) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrOverrun; st_d = StErr;
        end else if (cmd_space_i != '0) begin
          slow_push     = 1'b1;
          slow_ll       = ll_q;
          pos_d         = pos_q + ll_q;
          rem_d         = ll_q;
          st_d          = StLit;
        end
      end
      StLit: begin
        lit_n = WinCW'(Win);
        if (32'(rem_q) < 32'(lit_n)) lit_n = WinCW'(rem_q);
        if (vis < lit_n) lit_n = vis;
        if (32'(lit_space_i) < 32'(lit_n)) lit_n = WinCW'(lit_space_i);
        lit_push_cnt_o  = lit_n;
        lit_push_data_o = win_i;
        pop_o           = lit_n;
        rem_d           = rem_q - 17'(lit_n);
        if (rem_d == '0) st_d = StLitEnd;
        else if (eob_i && 32'(avail_i) == 32'(lit_n)) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrTruncated; st_d = StErr;
        end
      end
      StLitEnd: begin
        if (eob_i && avail_i == '0) begin
          // literals end at the input end: this was the last sequence
          if (pos_q != raw_size_i) begin
            err_d = 1'b1; code_d = lz4_pkg::ErrShort; st_d = StErr;
          end else if (cmd_space_i != '0) begin
            slow_push     = 1'b1;
            slow_last     = 1'b1;
            st_d          = StDone;
          end
        end else if (32'(avail_i) >= 2) begin
          st_d = StOff;
        end else if (eob_i) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrTruncated; st_d = StErr;
        end
      end
      StOff: begin
        pop_o = WinCW'(2);
        off_d = win_i[15:0];
        ml_d  = 17'(mln_q) + 17'd4;
        st_d  = (mln_q == 4'hF) ? StMlx : StMCmd;
      end
      StMlx: begin
        if (avail_i != '0) begin
          pop_o = WinCW'(1);
          ml_d  = ml_q + 17'(win_i[7:0]);
          if ({1'b0, pos_q} + 18'(ml_q) + 18'(win_i[7:0]) > raw) begin
            err_d = 1'b1; code_d = lz4_pkg::ErrOverrun; st_d = StErr;
          end else if (win_i[7:0] != 8'hFF) begin
            st_d = StMCmd;
          end
        end else if (eob_i) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrTruncated; st_d = StErr;
        end
      end
      StMCmd: begin
        if ({1'b0, pos_q} + 18'(ml_q) > raw) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrOverrun; st_d = StErr;
        end else if (off_q == '0) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrOffsetZero; st_d = StErr;
        end else if (17'(off_q) > pos_q) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrOffsetRange; st_d = StErr;
        end else if ({1'b0, pos_q} + 18'd12 > raw || {1'b0, pos_q} + 18'(ml_q) + 18'd5 > raw) begin
          err_d = 1'b1; code_d = lz4_pkg::ErrEndRule; st_d = StErr;
        end else if (cmd_space_i != '0) begin
          slow_push    = 1'b1;
          slow_ml      = ml_q;
          slow_off     = off_q;
          pos_d        = pos_q + ml_q;
          any_d        = 1'b1;
          st_d         = StFast;
        end
      end
      StDone: begin
        blk_done_o = 1'b1;
        st_d  = StFast;
        pos_d = '0;
        any_d = 1'b0;
      end
      StErr: begin
        // drain the rest of the block's input; finish once the back end took the error
        pop_o = (32'(avail_i) > Win) ? WinCW'(Win) : WinCW'(avail_i);
        if (err_ack_i) err_d = 1'b0;
        if (!err_d && eob_i && 32'(avail_i) <= Win) begin
          blk_done_o = 1'b1;
          st_d  = StFast;
          pos_d = '0;
          any_d = 1'b0;
        end
      end
      default: st_d = StFast;
    endcase

    push_last_o = (st_q == StFast && st_d == StDone) || (slow_push && slow_last);
    if (slow_push) begin
      cmd_push_cnt_o = SeqCW'(1);
      cmd_push_data_o = '0;
      cmd_push_data_o[lz4_pkg::CmdW-1:0] = {slow_ll, slow_ml, slow_off, slow_last};
    end
  end

  assign err_o      = err_q;
  assign err_code_o = code_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= StFast;
      pos_q  <= '0;
      ll_q   <= '0;
      ml_q   <= '0;
      rem_q  <= '0;
      off_q  <= '0;
      mln_q  <= '0;
      any_q  <= 1'b0;
      err_q  <= 1'b0;
      code_q <= lz4_pkg::ErrNone;
    end else begin
      st_q   <= st_d;
      pos_q  <= pos_d;
      ll_q   <= ll_d;
      ml_q   <= ml_d;
      rem_q  <= rem_d;
      off_q  <= off_d;
      mln_q  <= mln_d;
      any_q  <= any_d;
      err_q  <= err_d;
      code_q <= code_d;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Seqs >= 1 && Win >= 16 && MaxBlockBytes <= 65536)
  `NDP_ASSERT(fast_pop_a, 32'(fast_pop) <= Win)
  `NDP_ASSERT(pop_le_avail_a, 32'(pop_o) <= 32'(avail_i))
  `NDP_ASSERT(pos_bound_a, !blk_valid_i || raw_bad || 32'(pos_q) <= 32'(raw_size_i))
  `NDP_ASSERT(cmd_fits_a, 32'(cmd_push_cnt_o) <= 32'(cmd_space_i))
  `NDP_ASSERT(lit_fits_a, 32'(lit_push_cnt_o) <= 32'(lit_space_i))
  `NDP_ASSERT(no_push_in_err_a, !err_q || (cmd_push_cnt_o == '0 && lit_push_cnt_o == '0))
  `NDP_ASSERT(err_in_err_state_a, !err_q || st_q == StErr)
  `NDP_ASSERT(idle_a, blk_valid_i || (st_q == StFast && pos_q == '0 && !err_q))

  // ---------------------------------------------------------------------------------------------
  // Bounded response (simulation and `make formal`, job lz4_parser). Once the block's last byte is
  // queued (eob_i), the parser finishes the block (blk_done_o, after its last command or its error)
  // within RespK cycles of its own: cycles in which the back end stalls it (no command space, less
  // than a window of literal space, an unacknowledged error) while nothing moves do not count. The
  // ranking function 2 x avail_i + resp_w (resp_w per state) drops by at least 1 on every own cycle
  // (each pop of n bytes lowers it by 2n; the states that pop nothing step to a lower weight), and
  // nothing is pushed after eob_i, so resp_q + 2 x avail_i + resp_w <= RespK holds by induction.
`ifdef VERILATOR
  `define LZ4_PARSER_RESP
`endif
`ifdef FORMAL
  `define LZ4_PARSER_RESP
`endif
`ifdef LZ4_PARSER_RESP
  localparam int unsigned RespK = 2 * ((1 << AvailW) - 1) + 4;
  logic [AvailW+2:0] resp_q;
  logic [2:0]        resp_w;
  logic              resp_stall;
  always_comb begin
    unique case (st_q)
      StLlx, StLitCmd, StMlx, StMCmd: resp_w = 3'd4;
      StFast, StLit:                  resp_w = 3'd3;
      StLitEnd:                       resp_w = 3'd2;
      StOff:                          resp_w = 3'd1;
      default:                        resp_w = 3'd0;   // StDone, StErr
    endcase
    resp_stall = (cmd_space_i == '0 || 32'(lit_space_i) < Win || (err_q && !err_ack_i)) &&
                 st_d == st_q && pop_o == '0 && err_d == err_q;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) resp_q <= '0;
    else if (!eob_i || blk_done_o) resp_q <= '0;
    else if (!resp_stall) resp_q <= resp_q + 1'b1;
  end
  `NDP_ASSERT(response_a, !eob_i || 32'(resp_q) + 2 * 32'(avail_i) + 32'(resp_w) <= RespK)
`endif
`undef LZ4_PARSER_RESP
`ifdef FORMAL
  // The parser's input contract (lz4_decoder keeps it): the queue grows only by pushes and shrinks
  // by pop_o, nothing is pushed once eob_i is set, and eob_i, blk_valid_i and raw_size_i hold until
  // blk_done_o.
  logic f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  always @(*) if (eob_i) assume (blk_valid_i);
  always @(posedge clk_i) begin
    if (f_past_valid && rst_ni && $past(rst_ni)) begin
      assume (32'(avail_i) + 32'($past(pop_o)) >= 32'($past(avail_i)));
      if ($past(blk_valid_i) && !$past(blk_done_o)) assume (blk_valid_i && raw_size_i == $past(raw_size_i));
      if ($past(eob_i) && !$past(blk_done_o))
        assume (eob_i && 32'(avail_i) + 32'($past(pop_o)) == 32'($past(avail_i)));
    end
  end
  always @(posedge clk_i) if (rst_ni) begin
    cover (blk_done_o && eob_i && resp_q >= 3'd4);
    cover (blk_done_o && eob_i && st_q == StErr && !resp_stall);
  end
`endif
endmodule
