// zstd_lane_dec: the ZSTD payload path for the codec lane's decode side (docs/spec.md section 3,
// "Decoding", codec 3): zstd_decoder plus the spec's payload rules.
//
/// Input: exactly the block's payload bytes (8 per beat, in_last_i on the last) with out_cap_i =
/// the block's raw_size held for the whole payload. Output: the decoded bytes in rows of 1..8, then
/// one status row (out_cnt_o 0, out_last_o, out_err_o, out_code_o). Codes: 0 ok; 1..15 the decoder's
/// zstd_pkg::err_e; RuleFhd (16): the payload does not start with the frame magic and a
/// Frame_Header_Descriptor with Single_Segment set and the unused, reserved, checksum and
/// dictionary-ID bits zero; RuleFrames (17): the payload holds more than one frame (skippable
/// frames included), i.e. the frame does not end at the payload end; RuleSize (18): the frame
/// decoded to fewer than raw_size bytes (more is the decoder's ErrOutput, 12). A header-rule error
/// is reported before the decoder's own code (the golden model checks the structure first).
/// Frame_Content_Size == raw_size follows: the decoder checks the content size against the bytes
/// produced (ErrContentSize) and never produces more than out_cap_i (ErrOutput).
/// Registers: the first 5 payload bytes' checks, the decoded byte count; the decoder's own.
`include "ndp_assert.svh"

module zstd_lane_dec #(
  parameter int unsigned HistBytes = 65536
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [63:0] in_data_i,
  input  logic [3:0]  in_cnt_i,
  input  logic        in_last_i,
  input  logic [31:0] out_cap_i,     // raw_size
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [63:0] out_data_o,
  output logic [3:0]  out_cnt_o,
  output logic        out_last_o,
  output logic        out_err_o,
  output logic [4:0]  out_code_o
);
  localparam logic [4:0] RuleFhd    = 5'd16;
  localparam logic [4:0] RuleFrames = 5'd17;
  localparam logic [4:0] RuleSize   = 5'd18;

  logic           d_valid, d_last, d_err;
  logic [63:0]    d_data;
  logic [3:0]     d_cnt;
  zstd_pkg::err_e d_code;
  logic [15:0]    d_frames;
  logic           unused_d_err;   // recomputed below from the final code
  assign unused_d_err = d_err;

  zstd_decoder #(.HistBytes(HistBytes)) u_dec (
    .clk_i, .rst_ni,
    .in_valid_i, .in_ready_o, .in_data_i, .in_cnt_i, .in_last_i, .out_cap_i,
    .out_valid_o(d_valid), .out_ready_i, .out_data_o(d_data), .out_cnt_o(d_cnt),
    .out_last_o(d_last), .out_err_o(d_err), .out_code_o(d_code), .out_frames_o(d_frames)
  );

  // Payload bytes 0..4: magic FD2FB528 (little endian) and the descriptor.
  logic [2:0]  pos_q;       // payload bytes seen, saturating at 5
  logic        bad_q;       // a rule on bytes 0..4 failed
  logic [31:0] cnt_q;       // decoded bytes of the job
  logic        bad_n;
  logic [31:0] magic;
  assign magic = 32'hFD2FB528;
  always_comb begin
    bad_n = bad_q;
    for (int i = 0; i < 8; i++) begin
      logic [3:0] idx;
      idx = 4'(pos_q) + 4'(i);
      if (in_valid_i && in_ready_o && 4'(i) < in_cnt_i) begin
        if (idx < 4'd4 && in_data_i[i*8 +: 8] != magic[idx[1:0]*8 +: 8]) bad_n = 1'b1;
        // Frame_Header_Descriptor: bit 5 Single_Segment set, bits 4..0 zero
        if (idx == 4'd4 && (in_data_i[i*8 + 5] != 1'b1 || in_data_i[i*8 +: 5] != 5'd0)) bad_n = 1'b1;
      end
    end
  end

  logic [4:0] code;
  always_comb begin
    if (bad_q)                             code = RuleFhd;
    else if (d_code != zstd_pkg::ErrNone)  code = 5'(d_code);
    else if (d_frames != 16'd1)            code = RuleFrames;
    else if (cnt_q != out_cap_i)           code = RuleSize;
    else                                   code = 5'd0;
  end

  assign out_valid_o = d_valid;
  assign out_data_o  = d_data;
  assign out_cnt_o   = d_cnt;
  assign out_last_o  = d_last;
  assign out_err_o   = d_last && code != 5'd0;
  assign out_code_o  = d_last ? code : 5'd0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pos_q <= '0;
      bad_q <= 1'b0;
      cnt_q <= '0;
    end else if (d_valid && out_ready_i && d_last) begin
      pos_q <= '0;   // the job's status row: the next payload starts
      bad_q <= 1'b0;
      cnt_q <= '0;
    end else begin
      bad_q <= bad_n;
      if (in_valid_i && in_ready_o)
        pos_q <= (32'(pos_q) + 32'(in_cnt_i) >= 32'd5) ? 3'd5 : pos_q + 3'(in_cnt_i);
      if (d_valid && out_ready_i) cnt_q <= cnt_q + 32'(d_cnt);
    end
  end

  `NDP_ASSERT(err_iff_code_a, !(out_valid_o && out_last_o) || (out_err_o == (out_code_o != 5'd0)))
  `NDP_ASSERT_STREAM(out_stable_a, out_valid_o, out_ready_i, {out_data_o, out_cnt_o, out_last_o})
endmodule
