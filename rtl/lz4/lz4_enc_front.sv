// lz4_enc_front: input side of the LZ4 encoder. Takes the block's bytes (P per beat), forms one
// window of P positions per cycle with the D-1 bytes that follow it, and hashes every position.
//
/// Registers: the input byte queue (lz4_byteq), the block size and byte counters, and the stage-1
/// window register (bytes, previous byte, P hashes, participation flags). A position takes part in
/// match finding when it may start a match (i <= n-12, the LZ4 end-of-block rule). The hash covers
/// HashBytes bytes at the position: 4 is liblz4's (the 4 bytes little-endian times 2654435761, top
/// HashBits bits), 8 the 8 bytes little-endian times 0x9E3779B185EBCA87, top HashBits bits (the
/// model's Lz4HwParams::hash_bytes). A participating position has n - i >= 12, so its 8 bytes lie
/// in the block and in the window's look-ahead (D >= 7), as the model reads them.
`include "ndp_assert.svh"

module lz4_enc_front #(
  parameter int unsigned P        = 8,    // positions (input bytes) per cycle
  parameter int unsigned D        = 8,    // bytes compared per table entry
  parameter int unsigned HashBits = 13,
  parameter int unsigned HashBytes = 4,   // bytes hashed per position: 4 or 8 (needs D >= 7)
  parameter int unsigned RingBytes = 65536,  // input RAM size (power of two)
  localparam int unsigned X   = P + D,    // window plus look-ahead bytes carried
  localparam int unsigned PCW = $clog2(P + 1)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // block input (beats of P bytes except the block's last)
  input  logic               in_valid_i,
  output logic               in_ready_o,
  input  logic [P*8-1:0]     in_data_i,
  input  logic [PCW-1:0]     in_cnt_i,
  input  logic               in_last_i,
  input  logic [16:0]        in_size_i,
  input  logic               in_nomatch_i, // no position of this block may start a match (held)
  input  logic               can_start_i,  // a new block may begin (fewer than two in flight)
  input  logic               busy_i,       // some block is in flight (tail_i is valid)
  input  logic [19:0]        tail_i,       // ring position of the oldest block still in flight
  output logic               start_o,      // first beat of a block accepted
  output logic [19:0]        start_base_o, // its ring position (unwrapped, 20 bits)
  // input RAM write (the accepted beat, ring address)
  output logic               ram_we_o,
  output logic [15:0]        ram_wpos_o,
  // stage-1 window
  input  logic               adv_i,
  output logic               w_v_o,
  output logic [16:0]        w_pos_o,      // position of byte 0 within the block
  output logic [15:0]        w_base_o,     // ring address of the block's byte 0
  output logic [16:0]        w_n_o,        // block size
  output logic [X*8-1:0]     w_bytes_o,    // bytes w .. w+X-1 (zero past the block)
  output logic [7:0]         w_prev_o,     // byte w-1 (0 for the first window)
  output logic [P*HashBits-1:0] w_hash_o,
  output logic [P-1:0]       w_part_o,
  output logic               w_first_o,
  output logic               w_last_o      // the window holds the block's last byte
);
  localparam int unsigned QD  = X + P;
  localparam int unsigned QCW = $clog2(QD + 1);
  localparam int unsigned R   = RingBytes;

  logic          open_q;                   // a block is being received or windowed
  logic          nomatch_q;                // this block takes no matches (literals only)
  logic [16:0]   n_q, rcv_q, wpos_q;       // size, bytes received, next window position
  logic [7:0]    prev_q;
  logic [19:0]   base_q, next_q;           // ring position of this block / of the next block
  logic [19:0]   wr_abs, tail;
  logic          space_ok;
  logic [X*8-1:0] head;
  logic [QCW-1:0] qcnt;
  logic          in_hs, emit;
  logic [PCW-1:0] pop;

  // ring space: the beat must not overwrite the oldest block still in flight
  assign wr_abs     = open_q ? base_q + 20'(rcv_q) : next_q;
  assign tail       = busy_i ? tail_i : wr_abs;
  assign space_ok   = (32'(20'(wr_abs - tail)) + P <= R);
  assign in_ready_o = (open_q ? (rcv_q < n_q) : can_start_i) && (32'(qcnt) + P <= QD) && space_ok;
  assign in_hs      = in_valid_i && in_ready_o;
  assign start_o    = in_hs && !open_q;
  assign start_base_o = next_q;
  assign ram_we_o   = in_hs;
  assign ram_wpos_o = 16'(wr_abs);

  lz4_byteq #(.Depth(QD), .PushW(P), .PopW(X)) u_q (
    .clk_i,
    .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (in_hs ? in_cnt_i : '0),
    .push_data_i(in_data_i),
    .pop_cnt_i  (emit ? ($clog2(X + 1))'(pop) : '0),
    .head_o     (head),
    .count_o    (qcnt)
  );

  // a window leaves when its look-ahead is queued or the whole block has arrived
  logic [16:0] left;   // bytes of the block not yet windowed
  always_comb begin
    left = n_q - wpos_q;
    emit = open_q && adv_i && (wpos_q < n_q) &&
           ((32'(qcnt) >= X) || (rcv_q == n_q && 32'(qcnt) == 32'(left)));
    pop  = (32'(left) < P) ? PCW'(left) : PCW'(P);  // bytes of this window
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q <= 1'b0;
      nomatch_q <= 1'b0;
      n_q    <= '0;
      rcv_q  <= '0;
      wpos_q <= '0;
      prev_q <= '0;
      base_q <= '0;
      next_q <= '0;
    end else begin
      if (in_hs) begin
        if (!open_q) begin
          open_q <= 1'b1;
          nomatch_q <= in_nomatch_i;
          n_q    <= in_size_i;
          rcv_q  <= 17'(in_cnt_i);
          base_q <= next_q;
          // the next block starts 16-byte aligned after this one
          next_q <= (next_q + 20'(in_size_i) + 20'd15) & ~20'd15;
        end else begin
          rcv_q <= rcv_q + 17'(in_cnt_i);
        end
      end
      if (emit) begin
        wpos_q <= wpos_q + 17'(P);
        prev_q <= head[(P-1)*8 +: 8];
        if (32'(wpos_q) + P >= 32'(n_q)) begin
          open_q <= 1'b0;
          wpos_q <= '0;
          prev_q <= '0;
        end
      end
    end
  end

  // the hash of every position of the window
  logic [P*HashBits-1:0] hash;
  if (HashBytes == 8) begin : gen_hash8
    // 8 bytes (little-endian) times 0x9E3779B185EBCA87, top HashBits bits: the constant multiply
    // as a carry-save tree (xxh_cmul: canonical signed digits), then only the top HashBits bits of
    // the carry-propagate add: the carry into them (pfx_carry over the low bits) and a HashBits-bit
    // pfx_add. Yosys 0.23 maps `*` as an array multiplier.
    localparam int unsigned LoW = 64 - HashBits;
    for (genvar k = 0; k < P; k++) begin : gen_pos
      logic [63:0] ms, mc;
      logic        cin;
      /* verilator lint_off UNUSEDSIGNAL */
      logic [HashBits-1:0] unused_co;
      /* verilator lint_on UNUSEDSIGNAL */
      xxh_cmul #(.W(64), .C(64'h9E3779B185EBCA87), .NX(1), .NA(1)) u_mul (
        .x_i(head[k*8 +: 64]), .a_i(64'd0), .sum_o(ms), .carry_o(mc)
      );
      pfx_carry #(.W(LoW)) u_lo (.a_i(ms[LoW-1:0]), .b_i(mc[LoW-1:0]), .co_o(cin));
      pfx_add #(.W(HashBits)) u_hi (
        .a_i(ms[63 -: HashBits]), .b_i(mc[63 -: HashBits]), .ci_i(cin),
        .sum_o(hash[k*HashBits +: HashBits]), .co_o(unused_co)
      );
    end
  end else begin : gen_hash4
    // liblz4's hash of 4 bytes (little-endian): top HashBits bits of v * 2654435761
    function automatic logic [HashBits-1:0] hash4(input logic [31:0] v);
      /* verilator lint_off UNUSEDSIGNAL */
      logic [31:0] m;  // only the top HashBits bits are the hash
      /* verilator lint_on UNUSEDSIGNAL */
      m     = v * 32'd2654435761;
      hash4 = m[31 -: HashBits];
    endfunction
    for (genvar k = 0; k < P; k++) begin : gen_pos
      assign hash[k*HashBits +: HashBits] = hash4(head[k*8 +: 32]);
    end
  end

  // stage-1 register: hashes and participation
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) w_v_o <= 1'b0;
    else if (adv_i) w_v_o <= emit;
  end

  always_ff @(posedge clk_i) begin
    if (adv_i) begin
      w_pos_o   <= wpos_q;
      w_base_o  <= 16'(base_q);
      w_n_o     <= n_q;
      w_bytes_o <= head;
      w_prev_o  <= prev_q;
      w_first_o <= (wpos_q == '0);
      w_last_o  <= (32'(wpos_q) + P >= 32'(n_q));
      for (int k = 0; k < P; k++) begin
        w_hash_o[k*HashBits +: HashBits] <= hash[k*HashBits +: HashBits];
        w_part_o[k] <= (32'(wpos_q) + k + 12 <= 32'(n_q)) && !nomatch_q;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, P >= 4 && (P & (P - 1)) == 0 && D >= P && D >= 4 && HashBits <= 16 &&
                   (R & (R - 1)) == 0 && R <= 65536)
  // an 8-byte hash reads bytes k .. k+7 of the window: the look-ahead must carry them
  `NDP_ASSERT_INIT(hash_bytes_a, (HashBytes == 4 || HashBytes == 8) && P + D >= P - 1 + HashBytes &&
                   HashBits >= 8)
  // the window leaves with the HashBytes bytes of its last participating position queued (the
  // hash reads them from head)
  logic [31:0] last_part;   // window index of the last position that takes part
  assign last_part = (32'(n_q) - 32'(wpos_q) - 12 < P - 1) ? 32'(n_q) - 32'(wpos_q) - 12 : P - 1;
  `NDP_ASSERT(hash_bytes_queued_a, !(emit && !nomatch_q && 32'(wpos_q) + 12 <= 32'(n_q)) ||
                                   32'(qcnt) >= last_part + HashBytes)
  `NDP_ASSERT(ring_a, !in_hs || 32'(20'(wr_abs - tail)) + P <= R)
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o,
                     {in_data_i, in_cnt_i, in_last_i, in_size_i, in_nomatch_i})
  `NDP_ASSERT(in_size_a, !(in_valid_i && !open_q) || (in_size_i != '0 && in_size_i <= 17'd65536))
  `NDP_ASSERT(in_full_beats_a, !in_hs || in_cnt_i == PCW'(P) || in_last_i)
  `NDP_ASSERT(in_last_a, !in_hs || (in_last_i == ((open_q ? rcv_q : 17'd0) + 17'(in_cnt_i) ==
                                                  (open_q ? n_q : in_size_i))))
endmodule
