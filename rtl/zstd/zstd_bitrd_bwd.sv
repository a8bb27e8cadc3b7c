// zstd_bitrd_bwd: backward bit reader (RFC 8878 section 4.1.2 style) over the 64-bit-word block
// RAM, for Huffman streams, the FSE-coded Huffman weights and the sequences bitstream.
//
/// The stream is bytes [begin_i, end_i); reading starts at the highest bit of byte end_i-1 after
/// the padding (zeros and the first 1 bit) is stripped. peek_o[31] is the next bit. Past the start
/// of the stream the reader supplies zeros and left_o goes negative (the overflow condition).
/// Registers: a 192-bit MSB-aligned container, its fill, the next fetch position, left_o and one
/// in-flight RAM read. err_o: empty range or a last byte of zero.
`include "ndp_assert.svh"

module zstd_bitrd_bwd #(
  parameter int unsigned AddrW = 17,
  localparam int unsigned LeftW = AddrW + 5
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    init_i,
  input  logic [AddrW:0]          begin_i,
  input  logic [AddrW:0]          end_i,
  input  logic [5:0]              consume_i,  // bits consumed this cycle (<= 32, only when ready_o)
  output logic [31:0]             peek_o,
  output logic                    ready_o,    // padding stripped and >= 32 bits (or all) buffered
  output logic                    err_o,
  output logic signed [LeftW-1:0] left_o,     // unread stream bits (negative: read past the start)
  output logic                    req_o,
  output logic [AddrW-4:0]        req_addr_o,
  input  logic                    gnt_i,
  input  logic [63:0]             rdata_i
);
  logic [191:0]            buf_q, buf_c, ins;
  logic [7:0]              sh;   // this cycle's shift: padding strip or consume_i
  logic [7:0]              nv_q, nv_c, lz;
  logic [AddrW:0]          pos_q, beg_q, wbase, lo;
  logic signed [LeftW-1:0] left_q, left_c;
  logic                    act_q, strip_q, err_q, infl_q;
  logic [2:0]              skip_q;
  logic [3:0]              nb_q, nb_req;
  logic [63:0]             val;
  logic [7:0]              top;

  logic [AddrW:0] pm1;
  assign pm1    = pos_q - 1'b1;
  assign wbase  = {pm1[AddrW:3], 3'b000};                   // word holding byte pos_q-1
  logic [7:0] lz1;
  assign lz1 = lz + 8'd1;
  logic unused_pm1;
  assign unused_pm1 = ^pm1[2:0];
  assign lo     = (wbase > beg_q) ? wbase : beg_q;
  assign nb_req = 4'(pos_q - lo);
  assign req_o  = act_q && !init_i && !err_q && pos_q > beg_q && !infl_q && nv_q <= 8'd128;
  assign req_addr_o = wbase[AddrW-1:3];
  assign peek_o  = buf_q[191:160];
  assign ready_o = act_q && strip_q && !err_q && (nv_q >= 8'd32 || (pos_q == beg_q && !infl_q));
  assign err_o   = err_q;
  assign left_o  = left_q;
  assign top     = buf_q[191:184];

  // The word in flight is placed at the fill level before this cycle's shift (nv_q, a register) and
  // shifts with the buffer, so consume_i reaches buf_q through one 192-bit shift, not through the
  // new fill level and a second shift. Same bits: while a word is in flight ready_o needs
  // nv_q >= 32 >= consume_i, and the strip shifts by at most 8 <= nv_q, so nothing is clamped.
  always_comb begin
    lz = 8'd0;
    for (int i = 0; i < 8; i++) if (top[i]) lz = 8'(7 - i);
    sh     = 8'd0;
    nv_c   = nv_q;
    left_c = left_q;
    if (!strip_q && nv_q >= 8'd8 && top != 8'd0) begin
      sh     = lz + 8'd1;
      nv_c   = nv_q - (lz + 8'd1);
      left_c = left_q - LeftW'(lz1);
    end else if (strip_q) begin
      sh     = {2'b00, consume_i};
      nv_c   = (nv_q > {2'b00, consume_i}) ? nv_q - {2'b00, consume_i} : 8'd0;
      left_c = left_q - LeftW'(consume_i);
    end
    val = (rdata_i >> {skip_q, 3'b000}) & ((nb_q >= 4'd8) ? '1 : ((64'd1 << {nb_q[2:0], 3'b000}) - 64'd1));
    ins = {val, 128'd0} >> nv_q;
    ins = ins << (8'd64 - {1'b0, nb_q, 3'b000});
    buf_c = (infl_q ? (buf_q | ins) : buf_q) << sh;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q <= '0; nv_q <= '0; pos_q <= '0; beg_q <= '0; left_q <= '0;
      act_q <= 1'b0; strip_q <= 1'b0; err_q <= 1'b0; infl_q <= 1'b0; skip_q <= '0; nb_q <= '0;
    end else if (init_i) begin
      buf_q   <= '0;
      nv_q    <= '0;
      pos_q   <= end_i;
      beg_q   <= begin_i;
      left_q  <= LeftW'({end_i - begin_i, 3'b000});
      act_q   <= 1'b1;
      strip_q <= 1'b0;
      err_q   <= (end_i <= begin_i);
      infl_q  <= 1'b0;
    end else begin
      buf_q  <= buf_c;
      nv_q   <= infl_q ? nv_c + {1'b0, nb_q, 3'b000} : nv_c;
      left_q <= left_c;
      if (!strip_q && nv_q >= 8'd8) begin
        if (top == 8'd0) err_q <= 1'b1;
        else strip_q <= 1'b1;
      end
      infl_q <= req_o && gnt_i;
      if (req_o && gnt_i) begin
        skip_q <= 3'(lo - wbase);
        nb_q   <= nb_req;
        pos_q  <= lo;
      end
    end
  end

  // the previous form, for the check: shift the buffer, then place the word at the new fill level
  logic [191:0] ref_ins, ref_buf;
  assign ref_ins = ({val, 128'd0} >> nv_c) << (8'd64 - {1'b0, nb_q, 3'b000});
  assign ref_buf = infl_q ? ((buf_q << sh) | ref_ins) : (buf_q << sh);
  `NDP_ASSERT(shift_once_a, init_i || buf_c == ref_buf)
  `NDP_ASSERT(consume_when_ready_a, init_i || consume_i == '0 || ready_o)
  `NDP_ASSERT(consume_legal_a, consume_i <= 6'd32)
endmodule
