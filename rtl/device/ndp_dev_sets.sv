// ndp_dev_sets: the staging-set ring of the chunk engine (ndp_dev_chunk). A chunk job holds one
// staging set from its index fetch to the end of its assembly. Sets are taken in ring order by the
// index stage, dispatched to the lanes in ring order and retired in ring order, so jobs finish in
// the order they were started; the blocks of a set finish in any order. Per set: its state, an
// index-error flag and the number of blocks handed to lanes and not yet finished.
//
/// Registers: the three ring pointers, the number of sets in use, each set's state, error flag and
/// outstanding-block count. Outputs are functions of these registers only.
`include "ndp_assert.svh"

module ndp_dev_sets #(
  parameter int unsigned Sets = 4,
  parameter int unsigned MaxBlocks = 16,   // blocks of one chunk (plane slots)
  localparam int unsigned SW = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned NW = $clog2(Sets + 1),
  localparam int unsigned BW = $clog2(MaxBlocks + 1)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // index stage: takes the free set at ap_o, later reports it indexed (with or without an error)
  output logic          free_o,
  output logic [SW-1:0] ap_o,
  input  logic          take_i,
  input  logic          ix_done_i,
  input  logic [SW-1:0] ix_set_i,
  input  logic          ix_err_i,
  // dispatcher: set dp_o is indexed; blocks are handed out one by one, then the set is closed
  output logic          disp_valid_o,
  output logic [SW-1:0] dp_o,
  output logic          disp_err_o,
  input  logic          disp_blk_i,
  input  logic          disp_end_i,
  // a lane finished a block of set blk_set_i
  input  logic          blk_done_i,
  input  logic [SW-1:0] blk_set_i,
  // retire: set rp_o has every block back (or had an index error)
  output logic          rt_valid_o,
  output logic [SW-1:0] rp_o,
  output logic          rt_err_o,
  input  logic          rt_i
);
  typedef enum logic [1:0] {SetFree, SetIndexing, SetIndexed, SetDispatched} set_e;

  set_e          st_q   [Sets];
  logic          err_q  [Sets];
  logic [BW-1:0] pend_q [Sets];
  logic [SW-1:0] ap_q, dp_q, rp_q;
  logic [NW-1:0] used_q;

  function automatic logic [SW-1:0] next(input logic [SW-1:0] p);
    next = (32'(p) == Sets - 1) ? '0 : p + 1'b1;
  endfunction

  assign free_o       = st_q[ap_q] == SetFree;
  assign ap_o         = ap_q;
  assign disp_valid_o = st_q[dp_q] == SetIndexed;
  assign dp_o         = dp_q;
  assign disp_err_o   = err_q[dp_q];
  assign rt_valid_o   = st_q[rp_q] == SetDispatched && pend_q[rp_q] == '0;
  assign rp_o         = rp_q;
  assign rt_err_o     = err_q[rp_q];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ap_q   <= '0;
      dp_q   <= '0;
      rp_q   <= '0;
      used_q <= '0;
      for (int unsigned s = 0; s < Sets; s++) begin
        st_q[s]   <= SetFree;
        err_q[s]  <= 1'b0;
        pend_q[s] <= '0;
      end
    end else begin
      used_q <= used_q + NW'(take_i) - NW'(rt_i);
      if (take_i) begin
        st_q[ap_q]  <= SetIndexing;
        err_q[ap_q] <= 1'b0;
        ap_q        <= next(ap_q);
      end
      if (ix_done_i) begin
        st_q[ix_set_i]  <= SetIndexed;
        err_q[ix_set_i] <= ix_err_i;
      end
      if (disp_end_i) begin
        st_q[dp_q] <= SetDispatched;
        dp_q       <= next(dp_q);
      end
      for (int unsigned s = 0; s < Sets; s++) begin
        pend_q[s] <= pend_q[s] + BW'(disp_blk_i && dp_q == SW'(s)) - BW'(blk_done_i && blk_set_i == SW'(s));
      end
      if (rt_i) begin
        st_q[rp_q] <= SetFree;
        rp_q       <= next(rp_q);
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Sets >= 1 && MaxBlocks >= 1)
  `NDP_ASSERT(take_free_a, !take_i || free_o)
  set_e          a_ix_st;
  logic [BW-1:0] a_blk_pend;
  assign a_ix_st    = st_q[ix_set_i];
  assign a_blk_pend = pend_q[blk_set_i];
  `NDP_ASSERT(ix_done_indexing_a, !ix_done_i || a_ix_st == SetIndexing)
  `NDP_ASSERT(disp_indexed_a, !(disp_blk_i || disp_end_i) || disp_valid_o)
  `NDP_ASSERT(blk_outstanding_a, !blk_done_i || a_blk_pend != '0)
  `NDP_ASSERT(rt_complete_a, !rt_i || rt_valid_o)

`ifdef FORMAL
  // Proven by `make formal` (Sets = 3, MaxBlocks = 3): under the interface rules assumed below, the
  // ring keeps its order (free sets after ap, sets being indexed or waiting for dispatch from dp to
  // ap, dispatched sets from rp to dp), the count of sets in use matches, no count leaves
  // 0..MaxBlocks, and a set retires only with every block back.
  logic f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  always @(*) begin
    if (take_i) assume (free_o);
    if (ix_done_i) assume (st_q[ix_set_i] == SetIndexing);
    if (disp_blk_i || disp_end_i) assume (disp_valid_o);
    if (disp_blk_i) assume (!disp_err_o);
    if (disp_blk_i) assume (32'(pend_q[dp_q]) < MaxBlocks);
    if (blk_done_i) assume (pend_q[blk_set_i] != '0);
    if (rt_i) assume (rt_valid_o);
  end
  // distance from rp in ring order, and the number of dispatched sets (a shadow count)
  function automatic int unsigned f_dist(input logic [SW-1:0] p);
    f_dist = (32'(p) >= 32'(rp_q)) ? 32'(p) - 32'(rp_q) : 32'(p) + Sets - 32'(rp_q);
  endfunction
  logic [NW-1:0] f_ndisp;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) f_ndisp <= '0;
    else f_ndisp <= f_ndisp + NW'(disp_end_i) - NW'(rt_i);
  end
  always @(*) begin
    if (rst_ni) begin
      assert (32'(ap_q) < Sets && 32'(dp_q) < Sets && 32'(rp_q) < Sets);
      assert (32'(f_ndisp) <= 32'(used_q) && 32'(used_q) <= Sets);
      assert (f_dist(ap_q) == 32'(used_q) % Sets);
      assert (f_dist(dp_q) == 32'(f_ndisp) % Sets);
      for (int unsigned s = 0; s < Sets; s++) begin
        assert (32'(pend_q[s]) <= MaxBlocks);
        if (f_dist(SW'(s)) < 32'(f_ndisp)) begin
          assert (st_q[s] == SetDispatched);
        end else if (f_dist(SW'(s)) < 32'(used_q)) begin
          assert (st_q[s] == SetIndexing || st_q[s] == SetIndexed);
          assert (pend_q[s] == '0 || (st_q[s] == SetIndexed && SW'(s) == dp_q));
        end else begin
          assert (st_q[s] == SetFree && pend_q[s] == '0);
        end
      end
      if (rt_valid_o) assert (pend_q[rp_q] == '0 && st_q[rp_q] == SetDispatched);
    end
  end
  always @(posedge clk_i) begin
    cover (rst_ni && used_q == NW'(Sets) && pend_q[rp_q] != '0);
    cover (f_past_valid && rst_ni && $past(rst_ni) && $past(rt_i) && used_q == NW'(Sets - 1));
  end
`endif
endmodule
