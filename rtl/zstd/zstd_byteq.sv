// zstd_byteq: byte queue; up to 8 bytes pushed and up to 8 bytes popped per cycle.
//
/// Registers: the byte array (head in byte 0) and the fill count. The head window and the count
/// are register outputs. Pushes must fit: count - pop + push <= Bytes (asserted); bytes beyond the
/// count are kept zero so pushes can OR into place.
`include "ndp_assert.svh"

module zstd_byteq #(
  parameter int unsigned Bytes = 24,
  localparam int unsigned CntW = $clog2(Bytes + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            clear_i,     // drop everything (wins over push/pop)
  input  logic            push_i,
  input  logic [63:0]     push_data_i, // bytes 0..push_cnt_i-1 are used
  input  logic [3:0]      push_cnt_i,  // 0..8
  input  logic [3:0]      pop_cnt_i,   // 0..min(8, count_o)
  output logic [63:0]     head_o,      // bytes 0..7 of the queue (zero beyond the count)
  output logic [CntW-1:0] count_o
);
  logic [8*Bytes-1:0] buf_q, buf_pop, ins;
  logic [CntW-1:0]    cnt_q, cnt_pop;
  logic [63:0]        pmask, pdata;

  always_comb begin
    pmask   = (push_cnt_i >= 4'd8) ? '1 : ((64'd1 << {push_cnt_i[2:0], 3'b000}) - 64'd1);
    buf_pop = buf_q >> {pop_cnt_i, 3'b000};
    cnt_pop = cnt_q - CntW'(pop_cnt_i);
    pdata   = push_data_i & pmask;
    ins     = (8*Bytes)'(pdata) << {cnt_pop, 3'b000};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q <= '0;
      cnt_q <= '0;
    end else if (clear_i) begin
      buf_q <= '0;
      cnt_q <= '0;
    end else begin
      buf_q <= push_i ? (buf_pop | ins) : buf_pop;
      cnt_q <= push_i ? cnt_pop + CntW'(push_cnt_i) : cnt_pop;
    end
  end

  assign head_o  = buf_q[63:0];
  assign count_o = cnt_q;

  `NDP_ASSERT_INIT(bytes_legal_a, Bytes >= 16)
  `NDP_ASSERT(count_le_bytes_a, 32'(cnt_q) <= Bytes)
  `NDP_ASSERT(pop_le_count_a, clear_i || (pop_cnt_i <= 4'd8 && CntW'(pop_cnt_i) <= cnt_q))
  `NDP_ASSERT(push_fits_a, clear_i || !push_i || (push_cnt_i <= 4'd8 &&
              32'(cnt_q) - 32'(pop_cnt_i) + 32'(push_cnt_i) <= Bytes))
endmodule
