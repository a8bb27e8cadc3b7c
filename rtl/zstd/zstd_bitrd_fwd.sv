// zstd_bitrd_fwd: forward (little-endian, LSB-first) bit reader over the 64-bit-word block RAM.
// Serves the section headers, FSE table descriptions, direct Huffman weights, jump tables and raw
// literals (up to 64 bits per cycle sustained).
//
/// Registers: a 192-bit container (next bit in bit 0), its fill, the next fetch byte address, the
/// absolute bit position and one in-flight RAM read. The reader never stops at a block end: users
/// compare bitpos_o with the section end (bytes beyond the block are stale RAM data).
`include "ndp_assert.svh"

module zstd_bitrd_fwd #(
  parameter int unsigned AddrW = 17  // byte address width of the block RAM
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             init_i,       // restart at init_addr_i (drops buffered bits)
  input  logic [AddrW-1:0] init_addr_i,
  input  logic [6:0]       consume_i,    // bits consumed this cycle, <= min(64, nvalid_o)
  output logic [63:0]      peek_o,
  output logic [7:0]       nvalid_o,
  output logic [AddrW+3:0] bitpos_o,     // absolute bit address of peek_o[0]
  output logic             req_o,
  output logic [AddrW-4:0] req_addr_o,
  input  logic             gnt_i,
  input  logic [63:0]      rdata_i
);
  logic [191:0]     buf_q, buf_c, ins;
  logic [7:0]       nv_q, nv_c, arr_bits;
  logic [AddrW-1:0] pos_q;
  logic [AddrW+3:0] bitpos_q;
  logic             infl_q;
  logic [2:0]       skip_q;

  assign arr_bits   = 8'd64 - {2'b00, skip_q, 3'b000};
  assign req_o      = !init_i && (16'(nv_q) + (infl_q ? 16'(arr_bits) : 16'd0) <= 16'd128);
  assign req_addr_o = pos_q[AddrW-1:3];
  assign peek_o     = buf_q[63:0];
  assign nvalid_o   = nv_q;
  assign bitpos_o   = bitpos_q;

  always_comb begin
    buf_c = buf_q >> consume_i;
    nv_c  = nv_q - {1'b0, consume_i};
    ins   = 192'(64'(rdata_i >> {skip_q, 3'b000})) << nv_c;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q    <= '0;
      nv_q     <= '0;
      pos_q    <= '0;
      bitpos_q <= '0;
      infl_q   <= 1'b0;
      skip_q   <= '0;
    end else if (init_i) begin
      buf_q    <= '0;
      nv_q     <= '0;
      pos_q    <= init_addr_i;
      bitpos_q <= {1'b0, init_addr_i, 3'b000};
      infl_q   <= 1'b0;
    end else begin
      buf_q    <= infl_q ? (buf_c | ins) : buf_c;
      nv_q     <= infl_q ? nv_c + arr_bits : nv_c;
      bitpos_q <= bitpos_q + (AddrW+4)'(consume_i);
      infl_q   <= req_o && gnt_i;
      if (req_o && gnt_i) begin
        skip_q <= pos_q[2:0];
        pos_q  <= {pos_q[AddrW-1:3] + 1'b1, 3'b000};
      end
    end
  end

  `NDP_ASSERT(consume_legal_a, init_i || (consume_i <= 7'd64 && {1'b0, consume_i} <= nv_q))
endmodule
