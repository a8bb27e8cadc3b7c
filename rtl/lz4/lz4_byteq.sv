// lz4_byteq: byte queue with a multi-byte push and a multi-byte pop per cycle.
//
/// Registers: the byte store (kept left-aligned: byte 0 is the oldest) and the fill count. The
/// head window `head_o` is a direct view of the store (no logic); push and pop are two barrel
/// shifts into the store. Bytes at or above the count are kept zero, so the window shows zeros
/// past the queued bytes. Used for the decoder's input window and its literal queue.
`include "ndp_assert.svh"

module lz4_byteq #(
  parameter int unsigned Depth = 96,  // bytes held
  parameter int unsigned PushW = 32,  // most bytes pushed per cycle
  parameter int unsigned PopW  = 64,  // head window width = most bytes popped per cycle
  localparam int unsigned CntW  = $clog2(Depth + 1),
  localparam int unsigned PushCW = $clog2(PushW + 1),
  localparam int unsigned PopCW  = $clog2(PopW + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 flush_i,      // drop everything (push and pop ignored)
  input  logic [PushCW-1:0]    push_cnt_i,   // <= Depth - count_o + pop_cnt_i
  input  logic [PushW*8-1:0]   push_data_i,  // bytes 0..push_cnt_i-1 are taken
  input  logic [PopCW-1:0]     pop_cnt_i,    // <= count_o
  output logic [PopW*8-1:0]    head_o,       // oldest PopW bytes, zero past count_o
  output logic [CntW-1:0]      count_o
);
  localparam int unsigned BW = Depth * 8;

  logic [BW-1:0]      buf_q, buf_d;
  logic [CntW-1:0]    cnt_q, cnt_d, keep;
  logic [PushW*8-1:0] push_m;

  always_comb begin
    for (int i = 0; i < PushW; i++) begin
      push_m[i*8 +: 8] = (PushCW'(i) < push_cnt_i) ? push_data_i[i*8 +: 8] : 8'h00;
    end
    keep  = cnt_q - CntW'(pop_cnt_i);
    buf_d = (buf_q >> {pop_cnt_i, 3'b000}) | (BW'(push_m) << {keep, 3'b000});
    cnt_d = keep + CntW'(push_cnt_i);
  end

  assign head_o  = buf_q[PopW*8-1:0];
  assign count_o = cnt_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q <= '0;
      cnt_q <= '0;
    end else if (flush_i) begin
      buf_q <= '0;
      cnt_q <= '0;
    end else begin
      buf_q <= buf_d;
      cnt_q <= cnt_d;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, PopW <= Depth && PushW <= Depth && PushW >= 1 && PopW >= 1)
  `NDP_ASSERT(pop_le_count_a, flush_i || CntW'(pop_cnt_i) <= cnt_q)
  `NDP_ASSERT(push_fits_a, flush_i || (32'(cnt_q) - 32'(pop_cnt_i) + 32'(push_cnt_i)) <= Depth)
  `NDP_ASSERT(count_bound_a, cnt_q <= CntW'(Depth))
  `NDP_ASSERT(zero_tail_a, (buf_q >> {cnt_q, 3'b000}) == '0)
endmodule
