// lz4_encoder: LZ4 block compressor (lz4_Block_format.md) with a hardware hash match finder that
// takes P input bytes per cycle. Its output is bit-exact with sw/codec lz4_hw_compress()
// (include/ndp/lz4_hw_model.h) for the same parameters; docs/lz4.md gives the algorithm, the
// ratio against liblz4 and the throughput.
///
/// Input: one block per packet, beats of P bytes (in_cnt_i = P) except the last, the block size on
/// in_size_i (1..MaxBlockBytes, held for the whole block). Output: the LZ4 block in beats of
/// OutBytes bytes except the last (out_last_o). Up to two blocks are in flight: the input RAM is a
/// ring of MaxBlockBytes bytes, and a block's input is taken while the previous block is still
/// being formatted as long as both fit in the ring (always for blocks up to half of it).
///
/// Pipeline: lz4_enc_finder (front, match, select, input ring and sequence queue; shared with the
/// ZSTD encoder) -> lz4_enc_format (LZ4 bytes, output packing).
`include "ndp_assert.svh"

module lz4_encoder #(
  parameter int unsigned InBytes       = 16,     // P: input bytes (positions) per cycle: 4, 8, 16
  parameter int unsigned OutBytes      = 32,     // >= InBytes (literal runs leave at this rate)
  parameter int unsigned HashBits      = 13,
  parameter int unsigned HashBanks     = 64,     // 4 * InBytes keeps bank conflicts rare
  parameter int unsigned MatchBytes    = 16,     // D, >= InBytes
  parameter bit          Lazy          = 1'b1,
  parameter bit          BackExt       = 1'b1,
  parameter int unsigned MaxBlockBytes = 65536,
  parameter int unsigned SeqQueue      = 512,    // sequence records buffered (RAM)
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
  input  logic [16:0]           in_size_i,
  output logic                  out_valid_o,
  input  logic                  out_ready_i,
  output logic [OutBytes*8-1:0] out_data_o,
  output logic [OutCW-1:0]      out_cnt_o,
  output logic                  out_last_o
);
  localparam int unsigned SeqW  = 16 + 17 + 16 + 17 + 1;
  localparam int unsigned Fmt   = InBytes / 4 + 1;   // sequences formatted per cycle
  localparam int unsigned PushN = InBytes / 4 + 2;
  localparam int unsigned MfN   = (PushN <= 4) ? 4 : 8;
  localparam int unsigned HQCW  = $clog2(MfN + Fmt + 2);

  logic [Fmt*SeqW-1:0]      sq_head;
  logic [HQCW-1:0]          sq_cnt;
  logic [$clog2(Fmt+1)-1:0] sq_pop;
  logic [15:0]              b_pos;
  logic [OutBytes*8-1:0]    b_data;
  logic                     blk_done;
  /* verilator lint_off UNUSEDSIGNAL */
  logic                     start_unused;
  logic [15:0]              start_base_unused;
  /* verilator lint_on UNUSEDSIGNAL */

  lz4_enc_finder #(
    .InBytes(InBytes), .OutBytes(OutBytes), .HashBits(HashBits), .HashBanks(HashBanks),
    .MatchBytes(MatchBytes), .Lazy(Lazy), .BackExt(BackExt), .MaxBlockBytes(MaxBlockBytes),
    .SeqQueue(SeqQueue), .PopN(Fmt)
  ) u_finder (
    .clk_i, .rst_ni,
    .in_valid_i, .in_ready_o, .in_data_i, .in_cnt_i, .in_last_i, .in_size_i,
    .in_nomatch_i(1'b0),
    .start_o     (start_unused),
    .start_base_o(start_base_unused),
    .seq_head_o  (sq_head),
    .seq_cnt_o   (sq_cnt),
    .seq_pop_i   (sq_pop),
    .b_pos_i     (b_pos),
    .b_data_o    (b_data),
    .blk_done_i  (blk_done)
  );

  lz4_enc_format #(.OutBytes(OutBytes), .Fmt(Fmt), .SeqCntW(HQCW)) u_format (
    .clk_i, .rst_ni,
    .seq_head_i (sq_head),
    .seq_cnt_i  (sq_cnt),
    .seq_pop_o  (sq_pop),
    .ram_pos_o  (b_pos),
    .ram_data_i (b_data),
    .out_valid_o,
    .out_ready_i,
    .out_data_o,
    .out_cnt_o,
    .out_last_o,
    .blk_done_o (blk_done)
  );

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, InBytes >= 4 && InBytes <= 16 && MatchBytes >= InBytes &&
                   OutBytes >= InBytes && MaxBlockBytes <= 65536)
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o, {in_data_i, in_cnt_i, in_last_i, in_size_i})
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, {out_data_o, out_cnt_o, out_last_o})
  `NDP_ASSERT(size_a, !in_valid_i || 32'(in_size_i) <= MaxBlockBytes)
endmodule
