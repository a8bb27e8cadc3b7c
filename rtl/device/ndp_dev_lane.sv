// ndp_dev_lane: one decode lane of the device's codec complex. Fetches one stored plane block
// from DRAM (its own AXI read ID, bursts of up to 16 beats issued only against free input-FIFO
// space, so the shared R channel never waits for a lane), aligns the 64-byte DRAM beats into the
// lane's 32-byte byte stream, decodes it with codec_lane_dec (header checks, RAW/CONST/LZ4/ZSTD,
// XXH32) and writes the decoded plane as 32-byte words into its staging bank. Ends every block
// with one done beat carrying the device error code: 0, 16 + the lane status (lane_pkg::status_e),
// or 4 (BlockSpan) when the lane accepts a block whose 12 + comp_size does not fill its span.
//
/// Registers: the assignment, the fetch pointers, the lines left to request, the FIFO words in use
/// (the burst credit), the input FIFO (fifo_ram: a RAM macro of 64-byte words with their valid
/// byte range), the aligner's half-word phase, the output byte queue and write pointer. The lane's own registers are in codec_lane_dec.
`include "ndp_assert.svh"

module ndp_dev_lane #(
  parameter int unsigned FifoWords = 32,     // input FIFO, 64-byte words
  parameter int unsigned BankAw    = 10,     // staging word address bits (32-byte words)
  localparam int unsigned FCW = $clog2(FifoWords + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // assignment: one block [start, end) of DRAM
  input  logic              as_valid_i,
  output logic              as_ready_o,
  input  logic [39:0]       as_start_i,
  input  logic [39:0]       as_end_i,
  input  logic [15:0]       as_block_id_i,
  input  logic [7:0]        as_plane_i,
  input  logic [16:0]       as_raw_i,
  input  logic [7:0]        as_pad_i,
  input  logic [4:0]        as_bank_i,
  // DRAM read requests (line address, beats - 1) and this lane's read data
  output logic              ar_valid_o,
  input  logic              ar_ready_i,
  output logic [33:0]       ar_line_o,
  output logic [7:0]        ar_len_o,
  input  logic              r_valid_i,
  input  logic [511:0]      r_data_i,
  // staging writes
  output logic              st_we_o,
  output logic [4:0]        st_bank_o,
  output logic [BankAw-1:0] st_addr_o,
  output logic [255:0]      st_data_o,
  // one done beat per block
  output logic              dn_valid_o,
  input  logic              dn_ready_i,
  output logic [7:0]        dn_code_o
);
  // ---------------------------------------------------------------------------------------------
  // Assignment and fetch
  logic        busy_q, fetch_done_q, fed_q, st_done_q;
  logic [33:0] first_q, last_q, next_q, rline_q;
  logic [5:0]  start_q, end_q;   // byte offsets in the first and last line
  logic [15:0] bid_q;
  logic [7:0]  plane_q, pad_q;
  logic [16:0] raw_q;
  logic [4:0]  bank_q;
  logic [FCW-1:0] inflight_q, fcount;
  logic [FCW:0]   used_q;     // inflight_q + fcount: FIFO words requested and not yet popped
  logic [11:0]    rem_q;      // lines of the block not yet requested (a span is <= 1026 lines)
  logic [11:0]    span_lines;
  logic [7:0]  blen;
  logic        ar_fire, as_fire;

  assign as_ready_o = !busy_q;
  assign as_fire    = as_valid_i && as_ready_o;
  // lines of [start, end): 12-bit difference of the line numbers (the index checks bound a span
  // to 65548 bytes, so the true difference is below 2^12)
  assign span_lines = 12'(((as_end_i[17:0] - 18'd1) >> 6) - 18'(as_start_i[17:6])) + 12'd1;

  // Burst: up to 16 lines, not across a 4 KiB boundary, not beyond the block. The remaining lines
  // and the FIFO occupancy are registers of their own, so the burst and its credit check are
  // small compares (not a 34-bit subtract and a 32-bit add in series).
  always_comb begin
    blen = 8'd16;
    if (rem_q < 12'd16) blen = 8'(rem_q);
    if (7'(blen) > 7'd64 - 7'(next_q[5:0])) blen = 8'(7'd64 - 7'(next_q[5:0]));
  end
  assign ar_valid_o = busy_q && !fetch_done_q && 32'(used_q) + 32'(blen) <= FifoWords;
  assign ar_line_o  = next_q;
  assign ar_len_o   = blen - 8'd1;
  assign ar_fire    = ar_valid_o && ar_ready_i;

  // Input FIFO: data, valid byte range [lo, hi) of the word, last word of the block.
  localparam int unsigned IW = 512 + 6 + 7 + 1;
  logic          if_valid, if_ready;
  logic [IW-1:0] if_out;
  logic [511:0]  w_data;
  logic [5:0]    w_lo;
  logic [6:0]    w_hi;
  logic          w_last;
  logic [5:0]    r_lo;
  logic          unused_if_in_ready;
  logic [6:0]    r_hi;

  assign r_lo = (rline_q == first_q) ? start_q[5:0] : 6'd0;
  assign r_hi = (rline_q == last_q) ? ((end_q[5:0] == 6'd0) ? 7'd64 : 7'(end_q[5:0])) : 7'd64;

  fifo_ram #(.Width(IW), .Depth(FifoWords)) u_in (
    .clk_i, .rst_ni,
    .in_valid_i (r_valid_i),
    .in_ready_o (unused_if_in_ready),
    .in_data_i  ({r_data_i, r_lo, r_hi, rline_q == last_q}),
    .out_valid_o(if_valid),
    .out_ready_i(if_ready),
    .out_data_o (if_out),
    .count_o    (fcount)
  );
  assign {w_data, w_lo, w_hi, w_last} = if_out;

  // ---------------------------------------------------------------------------------------------
  // Aligner: each word in two halves of up to 32 bytes, shifted to byte 0
  logic         half_q, lin_valid, lin_ready, lin_last;
  logic [255:0] lin_data;
  logic [5:0]   lin_cnt;
  logic [6:0]   hs, he;
  logic         h_empty;

  always_comb begin
    hs = half_q ? 7'd32 : 7'd0;
    he = half_q ? 7'd64 : 7'd32;
    if (7'(w_lo) > hs) hs = 7'(w_lo);
    if (w_hi < he) he = w_hi;
    h_empty  = hs >= he;
  end
  assign lin_data  = 256'(w_data >> {hs[5:0], 3'b000});
  assign lin_cnt   = 6'(he - hs);
  assign lin_last  = w_last && he == w_hi;
  assign lin_valid = if_valid && !h_empty;
  // the word is done after half 1, or after half 0 when nothing lies in half 1
  logic half_done, word_done;
  assign half_done = h_empty || lin_ready;
  assign word_done = half_q || w_hi <= 7'd32;
  assign if_ready  = if_valid && half_done && word_done;

  // header bytes 6..7 (comp_size) as they pass, for the span check
  always_ff @(posedge clk_i) begin
    if (as_fire) begin
      comp_lo_q <= '0;
      comp_hi_q <= '0;
    end else if (lin_valid && lin_ready) begin
      if (bpos_q <= 17'd6 && bpos_q + 17'(lin_cnt) > 17'd6) comp_lo_q <= lin_data[(5'(17'd6 - bpos_q)) * 8 +: 8];
      if (bpos_q <= 17'd7 && bpos_q + 17'(lin_cnt) > 17'd7) comp_hi_q <= lin_data[(5'(17'd7 - bpos_q)) * 8 +: 8];
    end
  end

  // ---------------------------------------------------------------------------------------------
  // The codec lane
  logic         lo_valid, lo_ready, lo_last, lo_err;
  logic [255:0] lo_data;
  logic [5:0]   lo_cnt;
  lane_pkg::status_e lo_code;

  codec_lane_dec #(.Bytes(32)) u_dec (
    .clk_i, .rst_ni,
    .in_valid_i        (lin_valid),
    .in_ready_o        (lin_ready),
    .in_data_i         (lin_data),
    .in_cnt_i          (lin_cnt),
    .in_last_i         (lin_last),
    .in_exp_block_id_i (bid_q),
    .in_exp_plane_id_i (plane_q),
    .in_exp_raw_size_i (raw_q),
    .in_pad_mask_i     (pad_q),
    .out_valid_o       (lo_valid),
    .out_ready_i       (lo_ready),
    .out_data_o        (lo_data),
    .out_cnt_o         (lo_cnt),
    .out_last_o        (lo_last),
    .out_err_o         (lo_err),
    .out_code_o        (lo_code)
  );

  // ---------------------------------------------------------------------------------------------
  // Output packer: 32-byte words into the staging bank
  logic [6:0]   qcount;
  logic [5:0]   qpop;
  logic [255:0] qhead;
  logic [BankAw-1:0] waddr_q;
  logic         status_fire;
  logic [7:0]   code_q;
  logic [16:0]  span_q, bpos_q;
  logic [7:0]   comp_lo_q, comp_hi_q;
  logic [16:0]  comp;
  assign comp = {comp_hi_q, comp_lo_q} == 16'd0 ? 17'd65536 : 17'({comp_hi_q, comp_lo_q});

  assign lo_ready    = !lo_last || qcount <= 7'd32;
  assign status_fire = lo_valid && lo_ready && lo_last;
  assign qpop        = (qcount >= 7'd32) ? 6'd32 : (status_fire ? 6'(qcount) : 6'd0);

  lz4_byteq #(.Depth(64), .PushW(32), .PopW(32)) u_outq (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i ((lo_valid && lo_ready && !lo_last) ? lo_cnt : 6'd0),
    .push_data_i(lo_data),
    .pop_cnt_i  (qpop),
    .head_o     (qhead),
    .count_o    (qcount)
  );
  assign st_we_o   = qpop != 6'd0;
  assign st_bank_o = bank_q;
  assign st_addr_o = waddr_q;
  assign st_data_o = qhead;

  assign dn_valid_o = busy_q && st_done_q && fed_q && fetch_done_q && used_q == '0;
  assign dn_code_o  = code_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q       <= 1'b0;
      fetch_done_q <= 1'b0;
      fed_q        <= 1'b0;
      st_done_q    <= 1'b0;
      inflight_q   <= '0;
      used_q       <= '0;
      rem_q        <= '0;
      half_q       <= 1'b0;
      waddr_q      <= '0;
      code_q       <= 8'd0;
      bpos_q       <= '0;
    end else begin
      inflight_q <= inflight_q + (ar_fire ? FCW'(blen) : '0) - FCW'(r_valid_i);
      used_q     <= used_q + (ar_fire ? (FCW+1)'(blen) : '0) - (FCW+1)'(if_ready);
      if (as_fire) rem_q <= span_lines;
      else if (ar_fire) rem_q <= rem_q - 12'(blen);
      if (if_valid && half_done) half_q <= word_done ? 1'b0 : 1'b1;
      if (st_we_o) waddr_q <= waddr_q + 1'b1;
      if (as_fire) begin
        busy_q       <= 1'b1;
        fetch_done_q <= 1'b0;
        fed_q        <= 1'b0;
        st_done_q    <= 1'b0;
        waddr_q      <= '0;
        bpos_q       <= '0;
      end
      if (ar_fire && 12'(blen) == rem_q) fetch_done_q <= 1'b1;
      if (lin_valid && lin_ready && lin_last) fed_q <= 1'b1;
      if (lin_valid && lin_ready) bpos_q <= bpos_q + 17'(lin_cnt);
      if (status_fire) begin
        st_done_q <= 1'b1;
        code_q    <= (lo_code != lane_pkg::StOk) ? ndp_dev_pkg::ErrLaneBase + 8'(lo_code)
                   : (17'd12 + comp != span_q) ? ndp_dev_pkg::ErrBlockSpan : 8'd0;
      end
      if (dn_valid_o && dn_ready_i) busy_q <= 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (as_fire) begin
      start_q <= as_start_i[5:0];
      end_q   <= as_end_i[5:0];
      first_q <= as_start_i[39:6];
      next_q  <= as_start_i[39:6];
      rline_q <= as_start_i[39:6];
      last_q  <= 34'((as_end_i - 40'd1) >> 6);
      bid_q   <= as_block_id_i;
      plane_q <= as_plane_i;
      raw_q   <= as_raw_i;
      pad_q   <= as_pad_i;
      bank_q  <= as_bank_i;
      span_q  <= 17'(as_end_i - as_start_i);
    end else begin
      if (ar_fire) next_q <= next_q + 34'(blen);
      if (r_valid_i) rline_q <= rline_q + 34'd1;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, FifoWords >= 16)
  `NDP_ASSERT(r_only_when_fetching_a, !r_valid_i || (busy_q && inflight_q != '0))
  `NDP_ASSERT(used_is_inflight_plus_fifo_a, 32'(used_q) == 32'(inflight_q) + 32'(fcount))
  `NDP_ASSERT(rem_is_lines_left_a, !busy_q || fetch_done_q || 34'(rem_q) == last_q - next_q + 34'd1)
  `NDP_ASSERT(fifo_never_full_on_r_a, !r_valid_i || 32'(fcount) < FifoWords)
  `NDP_ASSERT(lane_error_status_only_a, !(lo_valid && lo_err && !lo_last))
  `NDP_ASSERT_STREAM(dn_stream_a, dn_valid_o, dn_ready_i, dn_code_o)
endmodule
