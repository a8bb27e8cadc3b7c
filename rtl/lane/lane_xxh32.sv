// lane_xxh32: XXH32 (seed 0) of a byte stream, InBytes bytes per cycle, one message per packet.
//
/// Registers: the stripe accumulator (up to 15 bytes not yet in a 16-byte stripe), the
/// pre-multiplied lanes of this cycle's stripes and their rotated products (stage A: m = lane * P2
/// and M = rotl(m, 13) * P1), the four lane accumulators and the message length (stage B),
/// and the finaliser (its own state, so the next message streams in while the last one is
/// finished). Stage B applies up to InBytes/16 rounds per cycle, v = rotl(v + m, 13) * P1 written
/// as rotl(v, 13) * P1 + M + corr, where corr (0, P1, -P1 << 13 or their sum) only needs the carries
/// into bit 19 and out of bit 31 of v + m: one adder tree and one carry-propagate adder per round.
/// The other constant multiplies are sums of shifted terms in canonical signed-digit form (smaller
/// there; in stage B the plain product maps faster with this flow's ABC script). The finaliser
/// takes one cycle per 4-byte word and per byte left over (at most 3 + 3; their products with P3
/// and P5 are formed in its first cycle), two for the avalanche; the hash is held on hash_o until
/// taken. in_ready_o drops only while a finished message waits for a busy finaliser.
`include "ndp_assert.svh"

module lane_xxh32 #(
  parameter int unsigned InBytes = 32,   // multiple of 16
  localparam int unsigned CW = $clog2(InBytes + 1),
  localparam int unsigned NS = InBytes / 16
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               in_valid_i,
  output logic               in_ready_o,
  input  logic [InBytes*8-1:0] in_data_i,
  input  logic [CW-1:0]      in_cnt_i,   // 0..InBytes bytes in lanes 0..cnt-1
  input  logic               in_last_i,
  output logic               hash_valid_o,
  input  logic               hash_ready_i,
  output logic [31:0]        hash_o
);
  localparam logic [31:0] P1 = 32'h9E3779B1;
  localparam logic [31:0] P2 = 32'h85EBCA77;
  localparam logic [31:0] P5 = 32'h165667B1;
  localparam logic [31:0] P1S = P1 << 13;
  // canonical signed-digit forms P = PP - PN (11-13 digits instead of 17-19 set bits)
  localparam logic [31:0] P1P = 32'hA0400201, P1N = 32'h02088850;
  localparam logic [31:0] P2P = 32'h88000A80, P2N = 32'h02144009;
  localparam logic [31:0] P3P = 32'h04040041, P3N = 32'h41515204;
  localparam logic [31:0] P4P = 32'h28150040, P4N = 32'h00401511;
  localparam int unsigned AW = 15 + InBytes;   // accumulator bytes

  function automatic logic [31:0] rotl(input logic [31:0] x, input int r);
    rotl = (x << r) | (x >> (32 - r));
  endfunction
  // a + x * P as one adder tree (Yosys builds x * P as the full 32-row tree)
  function automatic logic [31:0] mac_p1(input logic [31:0] x, input logic [31:0] a);
    logic [31:0] s;
    s = a;
    for (int i = 0; i < 32; i++) begin
      if (P1P[i]) s = s + (x << i);
      if (P1N[i]) s = s - (x << i);
    end
    mac_p1 = s;
  endfunction
  function automatic logic [31:0] mul_p2(input logic [31:0] x);
    logic [31:0] s;
    s = '0;
    for (int i = 0; i < 32; i++) begin
      if (P2P[i]) s = s + (x << i);
      if (P2N[i]) s = s - (x << i);
    end
    mul_p2 = s;
  endfunction
  function automatic logic [31:0] mul_p3(input logic [31:0] x);
    logic [31:0] s;
    s = '0;
    for (int i = 0; i < 32; i++) begin
      if (P3P[i]) s = s + (x << i);
      if (P3N[i]) s = s - (x << i);
    end
    mul_p3 = s;
  endfunction
  function automatic logic [31:0] mul_p4(input logic [31:0] x);
    logic [31:0] s;
    s = '0;
    for (int i = 0; i < 32; i++) begin
      if (P4P[i]) s = s + (x << i);
      if (P4N[i]) s = s - (x << i);
    end
    mul_p4 = s;
  endfunction
  // One round rotl(v + m, 13) * P1 given M = rotl(m, 13) * P1: with c19 the carry into bit 19 and
  // c32 the carry out of v + m, rotl(v + m, 13) = rotl(v, 13) + rotl(m, 13) + c19 - (c32 << 13).
  function automatic logic [31:0] round(input logic [31:0] v, input logic [31:0] m,
                                        input logic [31:0] mm);
    logic c19, c32;
    c19   = 1'(({1'b0, v[18:0]} + {1'b0, m[18:0]}) >> 19);
    c32   = 1'(({1'b0, v} + {1'b0, m}) >> 32);
    round = rotl(v, 13) * P1 + mm + (c19 ? P1 : 32'd0) - (c32 ? P1S : 32'd0);
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Stage A: stripes from the accumulator and the beat, lanes pre-multiplied by P2
  logic [15*8-1:0] acc_q;
  logic [3:0]      acnt_q;
  logic            a_v_q, a_last_q;
  logic [1:0]      a_ns_q;                  // stripes this cycle (0..NS)
  logic [31:0]     a_m_q [NS][4];
  logic [31:0]     a_mm_q [NS][4];
  logic [15*8-1:0] a_tail_q;               // at last: the bytes left over (< 16)
  logic [3:0]      a_tcnt_q;
  logic [CW-1:0]   a_cnt_q;
  logic            a_go;                    // stage A takes the beat

  logic            fin_busy;                // finaliser holds a message not yet hashed
  logic            b_pend_q;                // stage B holds a finished message for the finaliser

  assign in_ready_o = !a_v_q || !b_pend_q;   // stage A is empty or moves on this cycle
  assign a_go       = in_valid_i && in_ready_o;

  logic [AW*8-1:0] comb;
  logic [5:0]      tot;
  logic [1:0]      ns;
  logic [31:0]     mp [NS][4];
  logic [31:0]     mmp [NS][4];
  always_comb begin
    logic [InBytes*8-1:0] d;
    d = in_data_i;
    for (int i = 0; i < InBytes; i++) if (32'(i) >= 32'(in_cnt_i)) d[i*8 +: 8] = 8'h00;
    comb = (AW*8)'(acc_q) | ((AW*8)'(d) << {acnt_q, 3'b000});
    tot  = 6'(acnt_q) + 6'(in_cnt_i);
    ns   = 2'(tot >> 4);
    for (int s = 0; s < NS; s++) begin
      for (int l = 0; l < 4; l++) mp[s][l] = mul_p2(comb[(s*16 + l*4)*8 +: 32]);
      for (int l = 0; l < 4; l++) mmp[s][l] = mac_p1(rotl(mp[s][l], 13), 32'd0);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_q  <= '0;
      acnt_q <= '0;
      a_v_q  <= 1'b0;
    end else if (a_go) begin
      a_v_q <= 1'b1;
      if (in_last_i) begin
        acc_q  <= '0;
        acnt_q <= '0;
      end else begin
        acc_q  <= 120'(comb >> {ns, 7'b0000000});
        acnt_q <= 4'(tot - {ns, 4'b0000});
      end
    end else if (!b_pend_q) begin
      a_v_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (a_go) begin
      a_last_q <= in_last_i;
      a_ns_q   <= ns;
      a_cnt_q  <= in_cnt_i;
      a_tail_q <= 120'(comb >> {ns, 7'b0000000});
      a_tcnt_q <= 4'(tot - {ns, 4'b0000});
      for (int s = 0; s < NS; s++) begin
        for (int l = 0; l < 4; l++) begin
          a_m_q[s][l]  <= mp[s][l];
          a_mm_q[s][l] <= mmp[s][l];
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Stage B: lane accumulators
  logic [31:0] v_q [4];
  logic [31:0] len_q;
  logic [31:0] bv_q [4];      // a finished message handed to the finaliser
  logic [31:0] blen_q;
  logic [15*8-1:0] btail_q;
  logic [3:0]  btcnt_q;
  logic        b_take;        // stage A's content moves through B this cycle
  logic [31:0] v [4];         // the accumulators after this cycle's rounds

  assign b_take = a_v_q && !b_pend_q;

  always_comb begin
    for (int l = 0; l < 4; l++) v[l] = v_q[l];
    for (int s = 0; s < NS; s++) begin
      if (2'(s) < a_ns_q) begin
        for (int l = 0; l < 4; l++) v[l] = round(v[l], a_m_q[s][l], a_mm_q[s][l]);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v_q[0]   <= P1 + P2;
      v_q[1]   <= P2;
      v_q[2]   <= 32'd0;
      v_q[3]   <= 32'd0 - P1;
      len_q    <= '0;
      b_pend_q <= 1'b0;
    end else begin
      if (b_take) begin
        if (a_last_q) begin
          for (int l = 0; l < 4; l++) bv_q[l] <= v[l];
          blen_q   <= len_q + 32'(a_cnt_q);
          btail_q  <= a_tail_q;
          btcnt_q  <= a_tcnt_q;
          b_pend_q <= 1'b1;
          v_q[0]   <= P1 + P2;
          v_q[1]   <= P2;
          v_q[2]   <= 32'd0;
          v_q[3]   <= 32'd0 - P1;
          len_q    <= '0;
        end else begin
          for (int l = 0; l < 4; l++) v_q[l] <= v[l];
          len_q <= len_q + 32'(a_cnt_q);
        end
      end
      if (b_pend_q && !fin_busy) b_pend_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Finaliser
  typedef enum logic [2:0] {FIdle, FInit, FWord, FByte, FAv1, FAv2, FDone} fst_e;
  fst_e        fst_q;
  logic [31:0] h_q;
  logic [31:0] fv_q [4];
  logic [31:0] flen_q;
  logic [15*8-1:0] ft_q;
  logic [3:0]  fn_q, fi_q;    // bytes left over, next index
  logic [31:0] fw_q [3];      // the 4-byte words left over * P3
  logic [31:0] fb_q [3];      // the bytes after them * P5
  logic [31:0] av1, av2, hw, hb;
  logic [31:0] fwp [3], fbp [3];

  assign fin_busy     = (fst_q != FIdle);
  assign hash_valid_o = (fst_q == FDone);
  assign hash_o       = h_q;
  assign av1          = mul_p2(h_q ^ (h_q >> 15));
  assign av2          = mul_p3(h_q);
  assign hw           = mul_p4(rotl(h_q + fw_q[fi_q[3:2]], 17));
  assign hb           = mac_p1(rotl(h_q + fb_q[fi_q[1:0]], 11), 32'd0);

  always_comb begin
    for (int i = 0; i < 3; i++) begin
      fwp[i] = mul_p3(ft_q[i*32 +: 32]);
      fbp[i] = 32'(ft_q[(7'({fn_q[3:2], 2'b00}) + 7'(i)) * 7'd8 +: 8]) * P5;
    end
  end

  always_ff @(posedge clk_i) begin
    if (fst_q == FInit) begin
      for (int i = 0; i < 3; i++) begin
        fw_q[i] <= fwp[i];
        fb_q[i] <= fbp[i];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fst_q <= FIdle;
      h_q   <= '0;
    end else begin
      unique case (fst_q)
        FIdle: if (b_pend_q) begin
          for (int l = 0; l < 4; l++) fv_q[l] <= bv_q[l];
          flen_q <= blen_q;
          ft_q   <= btail_q;
          fn_q   <= btcnt_q;
          fi_q   <= '0;
          fst_q  <= FInit;
        end
        FInit: begin
          h_q   <= ((flen_q >= 32'd16) ? rotl(fv_q[0], 1) + rotl(fv_q[1], 7) + rotl(fv_q[2], 12) +
                                         rotl(fv_q[3], 18)
                                       : P5) + flen_q;
          fst_q <= (fn_q >= 4'd4) ? FWord : ((fn_q != '0) ? FByte : FAv1);
        end
        FWord: begin
          h_q  <= hw;
          fi_q <= fi_q + 4'd4;
          if (fn_q - fi_q - 4'd4 >= 4'd4) fst_q <= FWord;
          else if (fn_q - fi_q - 4'd4 != '0) fst_q <= FByte;
          else fst_q <= FAv1;
        end
        FByte: begin
          h_q  <= hb;
          fi_q <= fi_q + 4'd1;
          if (fi_q + 4'd1 == fn_q) fst_q <= FAv1;
        end
        FAv1: begin
          h_q   <= av1 ^ (av1 >> 13);
          fst_q <= FAv2;
        end
        FAv2: begin
          h_q   <= av2 ^ (av2 >> 16);
          fst_q <= FDone;
        end
        FDone: if (hash_ready_i) fst_q <= FIdle;
        default: fst_q <= FIdle;
      endcase
    end
  end

  `NDP_ASSERT_INIT(params_a, InBytes % 16 == 0 && InBytes >= 16 && InBytes <= 48)
  `NDP_ASSERT(cnt_a, !in_valid_i || 32'(in_cnt_i) <= InBytes)
  `NDP_ASSERT_STREAM(hash_stream_a, hash_valid_o, hash_ready_i, hash_o)
endmodule
