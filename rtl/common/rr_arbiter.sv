// rr_arbiter: round-robin arbiter between N request streams, one grant per cycle.
//
/// Registers: the priority pointer and a lock that keeps a grant stable while the output is
/// stalled (stream rule: the granted index is payload). Combinational from `in_valid_i` to the
/// output; `in_ready_o` is the granted input's share of `out_ready_i`. Pair with stream_mux
/// (sel = `idx_o`) to move payloads. Fair: after input i is served, every other requester is
/// served before i again.
`include "ndp_assert.svh"

module rr_arbiter #(
  parameter int unsigned N = 2,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [N-1:0]    in_valid_i,
  output logic [N-1:0]    in_ready_o,
  output logic            out_valid_o,
  input  logic            out_ready_i,
  output logic [IdxW-1:0] idx_o
);
  logic [IdxW-1:0] ptr_q, pick, lock_idx_q;
  logic            found, lock_q;

  // First requester at or after the pointer, wrapping around.
  always_comb begin
    pick  = '0;
    found = 1'b0;
    for (int unsigned i = 0; i < N; i++) begin
      logic [IdxW:0] j;
      j = {1'b0, ptr_q} + (IdxW+1)'(i);
      if (j >= (IdxW+1)'(N)) j = j - (IdxW+1)'(N);
      if (!found && in_valid_i[j[IdxW-1:0]]) begin
        found = 1'b1;
        pick  = j[IdxW-1:0];
      end
    end
  end

  assign idx_o       = lock_q ? lock_idx_q : pick;
  assign out_valid_o = lock_q || found;
  always_comb begin
    in_ready_o        = '0;
    in_ready_o[idx_o] = out_valid_o && out_ready_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ptr_q      <= '0;
      lock_q     <= 1'b0;
      lock_idx_q <= '0;
    end else begin
      lock_q     <= out_valid_o && !out_ready_i;
      lock_idx_q <= idx_o;
      if (out_valid_o && out_ready_i) begin
        ptr_q <= (idx_o == IdxW'(N - 1)) ? '0 : idx_o + 1'b1;
      end
    end
  end

  `NDP_ASSERT_INIT(n_legal_a, N >= 2)
  `NDP_ASSERT(lock_keeps_request_a, !lock_q || in_valid_i[lock_idx_q])
  `NDP_ASSERT_STREAM(grant_stable_a, out_valid_o, out_ready_i, idx_o)
endmodule
