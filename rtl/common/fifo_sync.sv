// fifo_sync: synchronous first-word-fall-through FIFO with valid/ready on both sides.
//
/// Registers: the storage array, the pointers and the fill counter. `in_ready_o` and `out_valid_o`
/// come straight from the counter (no combinational path from either side to the other), the
/// output payload is a read mux on the storage. Depth need not be a power of two. Storage has no
/// reset (it is never read while empty).
`include "ndp_assert.svh"

module fifo_sync #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // write side
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  // read side
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o,
  // occupancy (entries held)
  output logic [$clog2(Depth+1)-1:0] count_o
);
  localparam int unsigned PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CntW = $clog2(Depth + 1);

  logic [Width-1:0] mem_q [Depth];
  logic [PtrW-1:0]  wr_q, rd_q;
  logic [CntW-1:0]  cnt_q;
  logic             push, pop;

  assign in_ready_o  = (cnt_q != CntW'(Depth));
  assign out_valid_o = (cnt_q != '0);
  assign out_data_o  = mem_q[rd_q];
  assign count_o     = cnt_q;
  assign push        = in_valid_i && in_ready_o;
  assign pop         = out_valid_o && out_ready_i;

  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_q] <= in_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q  <= '0;
      rd_q  <= '0;
      cnt_q <= '0;
    end else begin
      if (push) wr_q <= (wr_q == PtrW'(Depth - 1)) ? '0 : wr_q + 1'b1;
      if (pop) rd_q <= (rd_q == PtrW'(Depth - 1)) ? '0 : rd_q + 1'b1;
      if (push && !pop) cnt_q <= cnt_q + 1'b1;
      else if (pop && !push) cnt_q <= cnt_q - 1'b1;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(depth_legal_a, Depth >= 1 && Width >= 1)
  `NDP_ASSERT(count_bound_a, cnt_q <= CntW'(Depth))
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, out_data_o)

`ifdef FORMAL
  // Proven by `make formal` (rtl/formal/fifo_sync.sby-like script): handshake rules, no overflow or
  // underflow, and ordering: the k-th item read is the k-th item written, for an arbitrary k.
  localparam int unsigned FW = PtrW + 3;
  logic          f_past_valid = 1'b0;
  (* anyconst *) logic [FW-1:0] f_k;
  logic [FW-1:0]    f_in_cnt, f_out_cnt, f_dist;
  logic [Width-1:0] f_rec;
  logic [PtrW:0]    f_slot, f_wr;

  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_in_cnt  <= '0;
      f_out_cnt <= '0;
    end else begin
      if (push) f_in_cnt <= f_in_cnt + 1'b1;
      if (pop) f_out_cnt <= f_out_cnt + 1'b1;
    end
  end
  always @(posedge clk_i) if (push && f_in_cnt == f_k) f_rec <= in_data_i;

  assign f_dist = f_k - f_out_cnt;
  // rd + dist and rd + count, wrapped at Depth (both sums stay below 2 * Depth)
  always @(*) begin
    f_slot = {1'b0, rd_q} + f_dist[PtrW:0];
    if (f_slot >= (PtrW+1)'(Depth)) f_slot = f_slot - (PtrW+1)'(Depth);
    f_wr = {1'b0, rd_q} + (PtrW+1)'(cnt_q);
    if (f_wr >= (PtrW+1)'(Depth)) f_wr = f_wr - (PtrW+1)'(Depth);
  end

  always @(*) begin
    if (rst_ni) begin
      assert (cnt_q <= CntW'(Depth));
      assert (out_valid_o == (cnt_q != '0));
      assert (in_ready_o == (cnt_q != CntW'(Depth)));
      assert (FW'(cnt_q) == FW'(f_in_cnt - f_out_cnt));
      assert ({1'b0, wr_q} == f_wr);
      assert (32'(rd_q) < Depth);
      // the k-th item, while held, sits at its slot unchanged
      if (FW'(f_dist) < FW'(cnt_q)) assert (mem_q[f_slot[PtrW-1:0]] == f_rec);
      // ordering: the k-th pop returns the k-th push
      if (pop && f_out_cnt == f_k) assert (out_data_o == f_rec);
    end
  end
  always @(posedge clk_i) begin
    if (f_past_valid && rst_ni && $past(rst_ni)) begin
      // valid/payload stay put until taken; ready never drops without a push
      if ($past(out_valid_o && !out_ready_i)) begin
        assert (out_valid_o);
        assert (out_data_o == $past(out_data_o));
      end
      if ($past(in_ready_o && !in_valid_i)) assert (in_ready_o);
    end
  end
  always @(posedge clk_i) if (rst_ni) begin
    cover (cnt_q == CntW'(Depth));
    cover (f_past_valid && pop && f_out_cnt == f_k && f_k == FW'(Depth + 1));
  end
`endif
endmodule
