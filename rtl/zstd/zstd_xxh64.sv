// zstd_xxh64: XXH64 (seed 0) of a byte stream fed up to 8 bytes per cycle, for the frame
// Content_Checksum (low 32 bits). Stripes of 32 bytes are folded into the four accumulators in one
// cycle; fin_i starts the tail and avalanche (<= 12 cycles), done_o then holds the hash.
//
/// Registers: a 40-byte input buffer, the accumulators, the length and the tail FSM. The four
/// lane rounds of a stripe are parallel 64x64 multipliers (2 per lane); docs/zstd.md notes the
/// area and the option of one lane per cycle.
`include "ndp_assert.svh"

module zstd_xxh64 (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        clear_i,
  input  logic        in_valid_i,
  input  logic [63:0] in_data_i,
  input  logic [3:0]  in_cnt_i,
  input  logic        fin_i,       // all bytes fed: compute the digest
  output logic        done_o,
  output logic [63:0] hash_o
);
  localparam logic [63:0] P1 = 64'h9E3779B185EBCA87;
  localparam logic [63:0] P2 = 64'hC2B2AE3D27D4EB4F;
  localparam logic [63:0] P3 = 64'h165667B19E3779F9;
  localparam logic [63:0] P4 = 64'h85EBCA77C2B2AE63;
  localparam logic [63:0] P5 = 64'h27D4EB2F165667C5;

  function automatic logic [63:0] rotl(input logic [63:0] x, input int r);
    rotl = (x << r) | (x >> (64 - r));
  endfunction
  function automatic logic [63:0] round(input logic [63:0] acc, input logic [63:0] lane);
    round = rotl(acc + lane * P2, 31) * P1;
  endfunction
  function automatic logic [63:0] merge(input logic [63:0] h, input logic [63:0] v);
    merge = (h ^ round(64'd0, v)) * P1 + P4;
  endfunction

  typedef enum logic [2:0] {XFeed, XStripe, XMerge, XTail8, XTail4, XTail1, XAval, XDone} state_e;
  state_e state_q;

  logic [319:0] buf_q;
  logic [5:0]   cnt_q;
  logic [63:0]  v_q [4];
  logic [63:0]  len_q, h_q;
  logic [63:0]  imask, idata;
  logic [319:0] buf_n;
  logic [5:0]   cnt_n;

  always_comb begin
    imask = (in_cnt_i >= 4'd8) ? '1 : ((64'd1 << {in_cnt_i[2:0], 3'b000}) - 64'd1);
    idata = in_data_i & imask;
    buf_n = buf_q;
    cnt_n = cnt_q;
    if (state_q == XFeed && cnt_q >= 6'd32) begin
      buf_n = buf_q >> 256;
      cnt_n = cnt_q - 6'd32;
    end
    if (in_valid_i && state_q == XFeed) begin
      buf_n = buf_n | (320'(idata) << {cnt_n, 3'b000});
      cnt_n = cnt_n + 6'(in_cnt_i);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= XFeed;
      buf_q <= '0; cnt_q <= '0; len_q <= '0; h_q <= '0;
      v_q[0] <= P1 + P2; v_q[1] <= P2; v_q[2] <= '0; v_q[3] <= 64'd0 - P1;
    end else if (clear_i) begin
      state_q <= XFeed;
      buf_q <= '0; cnt_q <= '0; len_q <= '0; h_q <= '0;
      v_q[0] <= P1 + P2; v_q[1] <= P2; v_q[2] <= '0; v_q[3] <= 64'd0 - P1;
    end else begin
      buf_q <= buf_n;
      cnt_q <= cnt_n;
      if (in_valid_i && state_q == XFeed) len_q <= len_q + 64'(in_cnt_i);
      unique case (state_q)
        XFeed: begin
          if (cnt_q >= 6'd32) begin
            for (int k = 0; k < 4; k++) v_q[k] <= round(v_q[k], buf_q[k*64 +: 64]);
          end else if (fin_i) begin
            state_q <= XMerge;
          end
        end
        XMerge: begin
          logic [63:0] h;
          if (len_q >= 64'd32) begin
            h = rotl(v_q[0], 1) + rotl(v_q[1], 7) + rotl(v_q[2], 12) + rotl(v_q[3], 18);
            for (int k = 0; k < 4; k++) h = merge(h, v_q[k]);
          end else h = P5;
          h_q     <= h + len_q;
          state_q <= XTail8;
        end
        XTail8: begin
          if (cnt_q >= 6'd8) begin
            h_q   <= rotl(h_q ^ round(64'd0, buf_q[63:0]), 27) * P1 + P4;
            buf_q <= buf_q >> 64;
            cnt_q <= cnt_q - 6'd8;
          end else state_q <= XTail4;
        end
        XTail4: begin
          if (cnt_q >= 6'd4) begin
            h_q   <= rotl(h_q ^ (64'(buf_q[31:0]) * P1), 23) * P2 + P3;
            buf_q <= buf_q >> 32;
            cnt_q <= cnt_q - 6'd4;
          end
          state_q <= XTail1;
        end
        XTail1: begin
          if (cnt_q != 6'd0) begin
            h_q   <= rotl(h_q ^ (64'(buf_q[7:0]) * P5), 11) * P1;
            buf_q <= buf_q >> 8;
            cnt_q <= cnt_q - 6'd1;
          end else state_q <= XAval;
        end
        XAval: begin
          logic [63:0] h;
          h = h_q;
          h = h ^ (h >> 33);
          h = h * P2;
          h = h ^ (h >> 29);
          h = h * P3;
          h = h ^ (h >> 32);
          h_q     <= h;
          state_q <= XDone;
        end
        default: ;
      endcase
    end
  end

  assign done_o = (state_q == XDone);
  assign hash_o = h_q;

  // Bytes arriving after fin_i (the next frame's, when it has no checksum) are ignored.
endmodule
