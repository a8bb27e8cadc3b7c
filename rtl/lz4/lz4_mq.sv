// lz4_mq: entry queue with up to PushN pushes and PopN pops per cycle and the oldest PopN entries
// visible at once.
//
/// Registers: the entries (left-aligned shift queue, entry 0 the oldest) and the fill count.
/// `head_o` is a direct register view; a push or pop is a per-entry mux. Holds the decoder's
/// sequence commands between its parser and its copy back end.
`include "ndp_assert.svh"

module lz4_mq #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 16,
  parameter int unsigned PushN = 4,
  parameter int unsigned PopN  = 5,
  localparam int unsigned CntW  = $clog2(Depth + 1),
  localparam int unsigned PushCW = $clog2(PushN + 1),
  localparam int unsigned PopCW  = $clog2(PopN + 1)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    flush_i,
  input  logic [PushCW-1:0]       push_cnt_i,   // <= Depth - count_o + pop_cnt_i
  input  logic [PushN*Width-1:0]  push_data_i,  // entry k at [k*Width +: Width]
  input  logic [PopCW-1:0]        pop_cnt_i,    // <= count_o
  output logic [PopN*Width-1:0]   head_o,       // entry k is the k-th oldest (valid if k < count_o)
  output logic [CntW-1:0]         count_o
);
  logic [Width-1:0] q_q [Depth];
  logic [Width-1:0] q_d [Depth];
  logic [CntW-1:0]  cnt_q, keep;

  always_comb begin
    keep = cnt_q - CntW'(pop_cnt_i);
    for (int i = 0; i < Depth; i++) begin
      q_d[i] = q_q[i];
      // entries that stay move down by the pop count
      for (int s = 0; s <= PopN; s++) begin
        if (PopCW'(s) == pop_cnt_i && (i + s) < Depth) q_d[i] = q_q[i + s];
      end
      // entries at or above `keep` take new pushes
      for (int k = 0; k < PushN; k++) begin
        if (32'(keep) + k == i && PushCW'(k) < push_cnt_i) q_d[i] = push_data_i[k*Width +: Width];
      end
    end
    for (int k = 0; k < PopN; k++) head_o[k*Width +: Width] = q_q[k];
  end

  assign count_o = cnt_q;

  always_ff @(posedge clk_i) begin
    for (int i = 0; i < Depth; i++) q_q[i] <= q_d[i];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '0;
    else if (flush_i) cnt_q <= '0;
    else cnt_q <= keep + CntW'(push_cnt_i);
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, PopN <= Depth && PushN <= Depth && PushN >= 1 && PopN >= 1)
  `NDP_ASSERT(pop_le_count_a, flush_i || CntW'(pop_cnt_i) <= cnt_q)
  `NDP_ASSERT(push_fits_a, flush_i || (32'(cnt_q) - 32'(pop_cnt_i) + 32'(push_cnt_i)) <= Depth)
endmodule
