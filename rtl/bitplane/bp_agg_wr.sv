// bp_agg_wr: write side of bp_aggregator. Transposes each input beat of Lanes elements into one
// Lanes-bit slice per bit-plane and writes the slices into the plane banks of the current buffer.
//
/// Registers: the element counter, the buffer select and the per-chunk limit/layout. The write
/// port signals (`we_o`, address, lane mask, slices) are combinational from the input beat, so the
/// RAM write happens in the cycle the beat is taken. `in_ready_o` is the registered buffer state
/// from the parent (`buf_free_i`), never a function of `in_valid_i`.
`include "ndp_assert.svh"

module bp_agg_wr #(
  parameter int unsigned ElemBits      = 16,
  parameter int unsigned Lanes         = 16,
  parameter int unsigned MaxChunkElems = 32768,
  localparam int unsigned WordBits = Lanes * ElemBits,
  localparam int unsigned WordsPerBuf = (MaxChunkElems + WordBits - 1) / WordBits,
  localparam int unsigned AddrW = $clog2(2 * WordsPerBuf),
  localparam int unsigned NW = $clog2(MaxChunkElems + 1),
  localparam int unsigned CntW = $clog2(Lanes + 1)
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic [NW-1:0]               cfg_chunk_elems_i,
  input  logic                        cfg_expbyte_i,
  // element stream
  input  logic                        in_valid_i,
  output logic                        in_ready_o,
  input  logic [WordBits-1:0]         in_data_i,
  input  logic [CntW-1:0]             in_cnt_i,
  input  logic                        in_last_i,
  // buffer hand-off
  input  logic [1:0]                  buf_full_i,
  output logic                        done_o,       // chunk complete this cycle
  output logic                        done_buf_o,
  output logic [NW-1:0]               done_nm1_o,   // elements of the chunk - 1
  output logic                        done_expbyte_o,
  output logic                        done_last_o,
  // bank write port (shared by all ElemBits banks)
  output logic                        we_o,
  output logic [AddrW-1:0]            waddr_o,
  output logic [ElemBits-1:0]         wlane_o,
  output logic [ElemBits*Lanes-1:0]   wslice_o     // plane b's slice at [b*Lanes +: Lanes]
);
  localparam int unsigned LaneSh = $clog2(Lanes);
  localparam int unsigned WordSh = $clog2(WordBits);

  logic          buf_q, expbyte_q;
  logic [NW-1:0] cnt_q, limit_q, limitm_q, limit, cnt_next;
  logic          fire, first;

  assign in_ready_o = !buf_full_i[buf_q];
  assign fire       = in_valid_i && in_ready_o;
  assign first      = (cnt_q == '0);
  assign limit      = first ? cfg_chunk_elems_i : limit_q;
  assign cnt_next   = cnt_q + NW'(in_cnt_i);

  // Transpose: plane b, lane i <- bit b of element i; elements past in_cnt_i read as zero.
  always_comb begin
    for (int unsigned b = 0; b < ElemBits; b++) begin
      for (int unsigned i = 0; i < Lanes; i++) begin
        wslice_o[b*Lanes + i] = in_data_i[i*ElemBits + b] && (CntW'(i) < in_cnt_i);
      end
    end
  end

  assign we_o    = fire;
  assign waddr_o = {buf_q, cnt_q[WordSh +: AddrW-1]};
  always_comb begin
    wlane_o = '0;
    wlane_o[cnt_q[LaneSh +: $clog2(ElemBits)]] = 1'b1;
  end

  // A chunk ends with its last full beat: cnt == limit - Lanes (registered), or a one-beat chunk.
  assign done_o         = fire && (in_last_i || (first ? cfg_chunk_elems_i == NW'(Lanes)
                                                       : cnt_q == limitm_q));
  assign done_buf_o     = buf_q;
  assign done_nm1_o     = cnt_q + NW'(in_cnt_i) - NW'(1);
  assign done_expbyte_o = first ? cfg_expbyte_i : expbyte_q;
  assign done_last_o    = in_last_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q     <= 1'b0;
      cnt_q     <= '0;
      limit_q   <= '0;
      limitm_q  <= '0;
      expbyte_q <= 1'b0;
    end else if (fire) begin
      if (first) begin
        limit_q   <= cfg_chunk_elems_i;
        limitm_q  <= cfg_chunk_elems_i - NW'(Lanes);
        expbyte_q <= cfg_expbyte_i;
      end
      if (done_o) begin
        cnt_q <= '0;
        buf_q <= !buf_q;
      end else begin
        cnt_q <= cnt_next;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(geometry_a, (Lanes & (Lanes - 1)) == 0 && Lanes % 8 == 0 &&
                               (ElemBits == 8 || ElemBits == 16 || ElemBits == 32))
  `NDP_ASSERT(cnt_legal_a, !in_valid_i || (in_cnt_i != '0 && in_cnt_i <= CntW'(Lanes)))
  `NDP_ASSERT(partial_only_last_a, !in_valid_i || in_last_i || in_cnt_i == CntW'(Lanes))
  `NDP_ASSERT(chunk_legal_a, !(fire && first) ||
              (cfg_chunk_elems_i != '0 && 32'(cfg_chunk_elems_i) <= MaxChunkElems &&
               cfg_chunk_elems_i % NW'(Lanes) == '0))
  `NDP_ASSERT(no_overrun_a, !fire || cnt_next <= limit)
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o, {in_data_i, in_cnt_i, in_last_i})
endmodule
