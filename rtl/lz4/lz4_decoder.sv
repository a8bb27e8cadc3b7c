// lz4_decoder: LZ4 block decoder (lz4_Block_format.md) for blocks of up to MaxBlockBytes bytes,
// OutBytes decoded bytes per cycle at most, MatchSlots match copies per output row.
//
/// Input: one LZ4 block per packet (in_last_i on its final beat; a beat carries in_cnt_i bytes in
/// lanes 0..cnt-1, 0 allowed), with the block's decoded size on in_raw_size_i (sampled with the
/// first beat). Output: the decoded bytes in rows of 0..OutBytes bytes (out_cnt_o, lanes 0..cnt-1),
/// out_last_o on the block's final row. A malformed block ends with an error row (out_err_o,
/// out_code_o, no data, out_last_o): rows before it are not valid data. After an error the rest of
/// the block's input is read and dropped. docs/lz4.md gives the rules, the bounds and the figures.
///
/// Pipeline: input byte queue -> parser (fast path: Seqs sequences/cycle) -> command queue and
/// literal queue -> row plan -> lane resolve + history read -> row out. Registers everywhere
/// except the output payload, which is combinational from the history RAM data.
`include "ndp_assert.svh"

module lz4_decoder #(
  parameter int unsigned InBytes       = 32,
  parameter int unsigned OutBytes      = 32,
  parameter int unsigned MatchSlots    = 4,
  parameter int unsigned Seqs          = 4,
  parameter int unsigned MaxBlockBytes = 65536,
  localparam int unsigned InCW  = $clog2(InBytes + 1),
  localparam int unsigned OutCW = $clog2(OutBytes + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  in_valid_i,
  output logic                  in_ready_o,
  input  logic [InBytes*8-1:0]  in_data_i,
  input  logic [InCW-1:0]       in_cnt_i,
  input  logic                  in_last_i,
  input  logic [16:0]           in_raw_size_i,
  output logic                  out_valid_o,
  input  logic                  out_ready_i,
  output logic [OutBytes*8-1:0] out_data_o,
  output logic [OutCW-1:0]      out_cnt_o,
  output logic                  out_last_o,
  output logic                  out_err_o,
  output lz4_pkg::err_e         out_code_o
);
  localparam int unsigned Win      = 64;
  localparam int unsigned InDepth  = Win + InBytes;
  localparam int unsigned InCntW   = $clog2(InDepth + 1);
  localparam int unsigned CmdDepth = 16;
  localparam int unsigned CmdCntW  = $clog2(CmdDepth + 1);
  localparam int unsigned LitDepth = 2 * Win;
  localparam int unsigned LitCntW  = $clog2(LitDepth + 1);
  localparam int unsigned Cmds     = MatchSlots + 1;
  localparam int unsigned Segs     = 2 * Cmds;
  localparam int unsigned SW       = (MatchSlots > 1) ? $clog2(MatchSlots) : 1;
  localparam int unsigned WinCW    = $clog2(Win + 1);
  localparam int unsigned SeqCW    = $clog2(Seqs + 1);

  // ---------------------------------------------------------------------------------------------
  // Block framing and the input window
  logic               blk_valid_q, eob_q;
  logic [16:0]        raw_q;
  logic               in_hs, blk_done;
  logic [Win*8-1:0]   win;
  logic [InCntW-1:0]  in_count;
  logic [WinCW-1:0]   in_pop;

  assign in_ready_o = !eob_q && (32'(in_count) + InBytes <= InDepth);
  assign in_hs      = in_valid_i && in_ready_o;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      blk_valid_q <= 1'b0;
      eob_q       <= 1'b0;
      raw_q       <= '0;
    end else begin
      if (blk_done) begin
        blk_valid_q <= 1'b0;
        eob_q       <= 1'b0;
      end else if (in_hs) begin
        if (!blk_valid_q) raw_q <= in_raw_size_i;
        blk_valid_q <= 1'b1;
        if (in_last_i) eob_q <= 1'b1;
      end
    end
  end

  lz4_byteq #(.Depth(InDepth), .PushW(InBytes), .PopW(Win)) u_inq (
    .clk_i,
    .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (in_hs ? in_cnt_i : '0),
    .push_data_i(in_data_i),
    .pop_cnt_i  (in_pop),
    .head_o     (win),
    .count_o    (in_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Parser
  logic [CmdCntW-1:0]               cmd_count;
  logic [LitCntW-1:0]               lit_count;
  logic [SeqCW-1:0]                 cmd_push_cnt;
  logic [Seqs*lz4_pkg::CmdW-1:0]    cmd_push_data;
  logic [WinCW-1:0]                 lit_push_cnt;
  logic [Win*8-1:0]                 lit_push_data;
  logic                             perr, perr_ack, flush, push_last;
  lz4_pkg::err_e                    perr_code;

  lz4_dec_parser #(
    .Win(Win), .Seqs(Seqs), .MaxBlockBytes(MaxBlockBytes), .AvailW(InCntW),
    .CmdSpaceW(CmdCntW), .LitSpaceW(LitCntW)
  ) u_parser (
    .clk_i,
    .rst_ni,
    .win_i          (win),
    .avail_i        (in_count),
    .eob_i          (eob_q),
    .blk_valid_i    (blk_valid_q),
    .raw_size_i     (raw_q),
    .pop_o          (in_pop),
    .cmd_space_i    (CmdCntW'(CmdDepth) - cmd_count),
    .cmd_push_cnt_o (cmd_push_cnt),
    .cmd_push_data_o(cmd_push_data),
    .lit_space_i    (LitCntW'(LitDepth) - lit_count),
    .lit_push_cnt_o (lit_push_cnt),
    .lit_push_data_o(lit_push_data),
    .err_o          (perr),
    .err_code_o     (perr_code),
    .err_ack_i      (perr_ack),
    .blk_done_o     (blk_done),
    .push_last_o    (push_last)
  );

  // ---------------------------------------------------------------------------------------------
  // Command and literal queues
  logic [Cmds*lz4_pkg::CmdW-1:0] cmd_head;
  logic [$clog2(Cmds+1)-1:0]     cmd_pop;
  logic [OutBytes*8-1:0]         lit_head;
  logic [OutCW-1:0]              lit_pop;

  lz4_mq #(.Width(lz4_pkg::CmdW), .Depth(CmdDepth), .PushN(Seqs), .PopN(Cmds)) u_cmdq (
    .clk_i,
    .rst_ni,
    .flush_i    (flush),
    .push_cnt_i (cmd_push_cnt),
    .push_data_i(cmd_push_data),
    .pop_cnt_i  (cmd_pop),
    .head_o     (cmd_head),
    .count_o    (cmd_count)
  );

  lz4_byteq #(.Depth(LitDepth), .PushW(Win), .PopW(OutBytes)) u_litq (
    .clk_i,
    .rst_ni,
    .flush_i    (flush),
    .push_cnt_i (lit_push_cnt),
    .push_data_i(lit_push_data),
    .pop_cnt_i  (lit_pop),
    .head_o     (lit_head),
    .count_o    (lit_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Copy back end
  logic                   adv;
  logic                   pl_v, pl_last, pl_err;
  lz4_pkg::err_e          pl_code;
  logic [16:0]            pl_p, pl_pprev;
  logic [OutCW-1:0]       pl_n;
  logic [Segs*OutCW-1:0]  pl_st, pl_len, pl_lb;
  logic [Segs-1:0]        pl_match;
  logic [Segs*17-1:0]     pl_src;
  logic [Segs*SW-1:0]     pl_slot;
  logic [OutBytes*8-1:0]  pl_lits;

  lz4_dec_plan #(
    .OutBytes(OutBytes), .MatchSlots(MatchSlots), .CmdCntW(CmdCntW), .LitCntW(LitCntW)
  ) u_plan (
    .clk_i,
    .rst_ni,
    .adv_i     (adv),
    .cmd_head_i(cmd_head),
    .cmd_cnt_i (cmd_count),
    .cmd_pop_o (cmd_pop),
    .lit_head_i(lit_head),
    .lit_cnt_i (lit_count),
    .lit_pop_o (lit_pop),
    .flush_o   (flush),
    .push_last_i(push_last),
    .err_i     (perr),
    .err_code_i(perr_code),
    .err_ack_o (perr_ack),
    .pl_v_o    (pl_v),
    .pl_p_o    (pl_p),
    .pl_pprev_o(pl_pprev),
    .pl_n_o    (pl_n),
    .pl_last_o (pl_last),
    .pl_err_o  (pl_err),
    .pl_code_o (pl_code),
    .pl_st_o   (pl_st),
    .pl_len_o  (pl_len),
    .pl_match_o(pl_match),
    .pl_src_o  (pl_src),
    .pl_slot_o (pl_slot),
    .pl_lb_o   (pl_lb),
    .pl_lits_o (pl_lits)
  );

  lz4_dec_copy #(
    .OutBytes(OutBytes), .MatchSlots(MatchSlots), .MaxBlockBytes(MaxBlockBytes)
  ) u_copy (
    .clk_i,
    .rst_ni,
    .adv_o      (adv),
    .pl_v_i     (pl_v),
    .pl_p_i     (pl_p),
    .pl_pprev_i (pl_pprev),
    .pl_n_i     (pl_n),
    .pl_last_i  (pl_last),
    .pl_err_i   (pl_err),
    .pl_code_i  (pl_code),
    .pl_st_i    (pl_st),
    .pl_len_i   (pl_len),
    .pl_match_i (pl_match),
    .pl_src_i   (pl_src),
    .pl_slot_i  (pl_slot),
    .pl_lb_i    (pl_lb),
    .pl_lits_i  (pl_lits),
    .out_valid_o,
    .out_ready_i,
    .out_data_o,
    .out_cnt_o,
    .out_last_o,
    .out_err_o,
    .out_code_o
  );

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, InBytes >= 1 && InBytes <= Win && OutBytes <= Win &&
                   MaxBlockBytes % OutBytes == 0 && MaxBlockBytes <= 65536)
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o,
                     {in_data_i, in_cnt_i, in_last_i, in_raw_size_i})
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i,
                     {out_data_o, out_cnt_o, out_last_o, out_err_o, out_code_o})
  `NDP_ASSERT(in_cnt_a, !in_valid_i || 32'(in_cnt_i) <= InBytes)
  `NDP_ASSERT(raw_stable_a, !(in_valid_i && blk_valid_q && !eob_q) || in_raw_size_i == raw_q)
endmodule
