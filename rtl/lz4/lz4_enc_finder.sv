// lz4_enc_finder: the LZ4 encoder's match finder, shared by lz4_encoder (LZ4 block format) and
// zstd_encoder (ZSTD sequences): the input ring, the windowed hash match finder and the greedy
// selector, whose sequence records wait in a RAM FIFO for the back end (docs/lz4.md section 3).
///
/// Input: one block per packet, beats of P bytes (in_cnt_i = P) except the last, the block size on
/// in_size_i (1..MaxBlockBytes, held for the whole block). Output: sequence records
/// {lit_start[15:0] (ring address), ll[16:0], off[15:0], ml[16:0], last} (lz4_enc_select), the oldest
/// PopN visible at seq_head_o, and ring read port B (OutBytes bytes from any ring address, data the
/// next cycle) for the back end's literal reads. Up to two blocks are in flight: the input RAM is a
/// ring of MaxBlockBytes bytes, and a block's input is taken while the previous block is still in the
/// back end as long as both fit in the ring (always for blocks up to half of it); the back end
/// releases a block with blk_done_i.
///
/// Pipeline: lz4_enc_front (window + hash of HashBytes bytes per position) -> lz4_enc_match (table look-up, compare) ->
/// lz4_enc_select (greedy parse, match extension) -> sequence queue (lz4_mfifo). lz4_enc_inram keeps
/// the block for match extension and literal reads.
`include "ndp_assert.svh"

module lz4_enc_finder #(
  parameter int unsigned InBytes       = 16,     // P: input bytes (positions) per cycle: 4, 8, 16
  parameter int unsigned OutBytes      = 32,     // ring read port B width (>= InBytes)
  parameter int unsigned HashBits      = 13,
  parameter int unsigned HashBytes     = 4,      // bytes hashed per position: 4 (liblz4's) or 8
  parameter int unsigned HashBanks     = 64,
  parameter int unsigned MatchBytes    = 16,     // D, >= InBytes (>= 7 with HashBytes = 8)
  parameter bit          Lazy          = 1'b1,
  parameter bit          BackExt       = 1'b1,
  parameter int unsigned MaxBlockBytes = 65536,
  parameter int unsigned SeqQueue      = 512,    // sequence records buffered (RAM)
  parameter int unsigned PopN          = InBytes / 4 + 1,  // records visible at the head
  localparam int unsigned InCW  = $clog2(InBytes + 1),
  localparam int unsigned SeqW  = 16 + 17 + 16 + 17 + 1,
  localparam int unsigned PushN = InBytes / 4 + 2,
  localparam int unsigned MfN   = (PushN <= 4) ? 4 : 8,
  localparam int unsigned HQCW  = $clog2(MfN + PopN + 2)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  in_valid_i,
  output logic                  in_ready_o,
  input  logic [InBytes*8-1:0]  in_data_i,
  input  logic [InCW-1:0]       in_cnt_i,
  input  logic                  in_last_i,
  input  logic [16:0]           in_size_i,
  input  logic                  in_nomatch_i,  // the block is stored without matches (held)
  output logic                  start_o,       // a block's first beat is taken
  output logic [15:0]           start_base_o,  // ring address of its byte 0
  // sequence records
  output logic [PopN*SeqW-1:0]  seq_head_o,
  output logic [HQCW-1:0]       seq_cnt_o,
  input  logic [$clog2(PopN+1)-1:0] seq_pop_i,
  // ring read port B
  input  logic [15:0]           b_pos_i,
  output logic [OutBytes*8-1:0] b_data_o,
  input  logic                  blk_done_i     // the back end is done with the oldest block
);
  localparam int unsigned P      = InBytes;
  localparam int unsigned D      = MatchBytes;
  localparam int unsigned X      = P + D;
  localparam int unsigned LCW    = $clog2(D + 1);
  localparam int unsigned SQD    = SeqQueue;
  localparam int unsigned SQCW   = $clog2(SQD + 1);

  // blocks in flight (input started, last output beat not yet taken): at most two, so that the
  // next block's input overlaps the previous block's formatting. Their ring positions, oldest first.
  logic [1:0]  nb_q;
  logic [19:0] bq_q [2];
  logic        start, blk_done;
  logic [19:0] start_base;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      nb_q  <= '0;
      bq_q[0] <= '0;
      bq_q[1] <= '0;
    end else begin
      nb_q <= nb_q + 2'(start) - 2'(blk_done);
      if (blk_done) begin
        bq_q[0] <= (start && nb_q == 2'd1) ? start_base : bq_q[1];
        if (start && nb_q == 2'd2) bq_q[1] <= start_base;
      end else if (start) begin
        if (nb_q == 2'd0) bq_q[0] <= start_base;
        else bq_q[1] <= start_base;
      end
    end
  end

  // front
  logic                   adv, consume;
  logic                   ram_we;
  logic [15:0]            ram_wpos;
  logic                   w_v, w_first, w_last;
  logic [16:0]            w_pos;
  logic [15:0]            w_base;
  logic [16:0]            w_n;
  logic [X*8-1:0]         w_bytes;
  logic [7:0]             w_prev;
  logic [P*HashBits-1:0]  w_hash;
  logic [P-1:0]           w_part;

  lz4_enc_front #(
    .P(P), .D(D), .HashBits(HashBits), .HashBytes(HashBytes), .RingBytes(MaxBlockBytes)
  ) u_front (
    .clk_i, .rst_ni,
    .in_valid_i, .in_ready_o, .in_data_i, .in_cnt_i, .in_last_i, .in_size_i, .in_nomatch_i,
    .can_start_i(nb_q != 2'd2),
    .busy_i     (nb_q != 2'd0),
    .tail_i     (bq_q[0]),
    .start_o    (start),
    .start_base_o(start_base),
    .ram_we_o   (ram_we),
    .ram_wpos_o (ram_wpos),
    .adv_i      (adv),
    .w_v_o      (w_v),
    .w_pos_o    (w_pos),
    .w_base_o   (w_base),
    .w_n_o      (w_n),
    .w_bytes_o  (w_bytes),
    .w_prev_o   (w_prev),
    .w_hash_o   (w_hash),
    .w_part_o   (w_part),
    .w_first_o  (w_first),
    .w_last_o   (w_last)
  );

  // match finder
  logic                  m_v, m_last;
  logic [16:0]           m_pos;
  logic [15:0]           m_base;
  logic [16:0]           m_n;
  logic [P*8-1:0]        m_bytes;
  logic [P*LCW-1:0]      m_len;
  logic [P*16-1:0]       m_off;
  logic [P-1:0]          m_bok;

  lz4_enc_match #(.P(P), .D(D), .HashBits(HashBits), .HashBanks(HashBanks)) u_match (
    .clk_i, .rst_ni,
    .adv_i    (adv),
    .w_v_i    (w_v),
    .w_pos_i  (w_pos),
    .w_base_i (w_base),
    .w_n_i    (w_n),
    .w_first_i(w_first),
    .w_bytes_i(w_bytes),
    .w_prev_i (w_prev),
    .w_hash_i (w_hash),
    .w_part_i (w_part),
    .w_last_i (w_last),
    .m_v_o    (m_v),
    .m_pos_o  (m_pos),
    .m_base_o (m_base),
    .m_n_o    (m_n),
    .m_bytes_o(m_bytes),
    .m_len_o  (m_len),
    .m_off_o  (m_off),
    .m_bok_o  (m_bok),
    .m_last_o (m_last)
  );

  assign adv = !m_v || consume;

  // input RAM
  logic [15:0]           a_pos;
  logic [P*8-1:0]        a_data;
  
  lz4_enc_inram #(.P(P), .OutBytes(OutBytes), .MaxBlockBytes(MaxBlockBytes)) u_inram (
    .clk_i, .rst_ni,
    .we_i    (ram_we),
    .wpos_i  (ram_wpos),
    .wdata_i (in_data_i),
    .wcnt_i  (in_cnt_i),
    .a_pos_i (a_pos),
    .a_data_o(a_data),
    .b_pos_i (b_pos_i),
    .b_data_o(b_data_o)
  );

  // selector
  logic [SQCW-1:0]            sq_free;
  logic [$clog2(PushN+1)-1:0] sq_push;
  logic [PushN*SeqW-1:0]      sq_push_data;

  lz4_enc_select #(.P(P), .D(D), .Lazy(Lazy), .BackExt(BackExt)) u_select (
    .clk_i, .rst_ni,
    .n_i       (m_n),
    .m_v_i     (m_v),
    .m_pos_i   (m_pos),
    .m_base_i  (m_base),
    .m_bytes_i (m_bytes),
    .m_len_i   (m_len),
    .m_off_i   (m_off),
    .m_bok_i   (m_bok),
    .m_last_i  (m_last),
    .consume_o (consume),
    .ram_pos_o (a_pos),
    .ram_data_i(a_data),
    .seq_room_i(32'(sq_free) >= PushN),
    .seq_cnt_o (sq_push),
    .seq_data_o(sq_push_data)
  );

  lz4_mfifo #(.Width(SeqW), .Depth(SQD), .N(MfN), .PopN(PopN)) u_seqq (
    .clk_i, .rst_ni,
    .push_cnt_i ($clog2(MfN+1)'(sq_push)),
    .push_data_i((MfN*SeqW)'(sq_push_data)),
    .free_o     (sq_free),
    .head_o     (seq_head_o),
    .count_o    (seq_cnt_o),
    .pop_cnt_i  (seq_pop_i)
  );

  assign blk_done     = blk_done_i;
  assign start_o      = start;
  assign start_base_o = start_base[15:0];

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, InBytes >= 4 && InBytes <= 16 && MatchBytes >= InBytes &&
                   OutBytes >= InBytes && MaxBlockBytes <= 65536 && PopN >= 1)
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o,
                     {in_data_i, in_cnt_i, in_last_i, in_size_i, in_nomatch_i})
  `NDP_ASSERT(size_a, !in_valid_i || 32'(in_size_i) <= MaxBlockBytes)
  `NDP_ASSERT(first_window_a, !(w_v && w_first) || w_pos == '0)
  `NDP_ASSERT(inflight_a, nb_q <= 2'd2 && !(blk_done && nb_q == 2'd0))
endmodule
