// bp_aggregator: element stream in, plane blocks out (docs/spec.md section 2, docs/rtl.md).
//
// Takes Lanes elements of ElemBits bits per cycle and emits every chunk of cfg_chunk_elems_i
// elements (the last chunk of a tensor may be partial) as its plane blocks in storage order: sign,
// exponent (ExpBits bit-planes, or one byte-per-element EXPBYTE block when cfg_expbyte_i), then
// mantissa planes MSB first. Output beats are WordBits/8 bytes of one plane block; the block's
// last beat carries out_nbytes_o <= OutBytes valid bytes (LSB first) and out_plane_last_o.
//
// Two chunk buffers (ping-pong), each stored as ElemBits plane banks of WordBits-bit words: the
// writer fills one while the reader drains the other, so a full-rate input sees no bubbles
// whenever the chunk's output bytes equal its input bytes (every bf16/fp32 layout, fp16 bitplane).
//
/// Registers: buffer state (full flags, element counts, layout, tensor-last), the write/read
/// sequencers, the RAM read data, and a 3-entry output FIFO that the read issue is credited
/// against. No combinational path from out_ready_i to in_ready_o or from in_valid_i to outputs.
`include "ndp_assert.svh"

module bp_aggregator #(
  parameter int unsigned ElemBits      = 16,     // 8, 16 or 32
  parameter int unsigned ExpBits       = 8,      // 0 for integer types (no EXPBYTE option)
  parameter int unsigned Lanes         = 16,     // elements per input beat (multiple of 8)
  parameter int unsigned MaxChunkElems = 32768,  // buffer size; >= 2 * Lanes * ElemBits
  localparam int unsigned WordBits = Lanes * ElemBits,
  localparam int unsigned OutBytes = WordBits / 8,
  localparam int unsigned NW = $clog2(MaxChunkElems + 1),
  localparam int unsigned CntW = $clog2(Lanes + 1),
  localparam int unsigned NbW = $clog2(OutBytes + 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // configuration, sampled with the first beat of every chunk
  input  logic [NW-1:0]       cfg_chunk_elems_i,  // multiple of Lanes, 1..MaxChunkElems
  input  logic                cfg_expbyte_i,      // layout: 0 bitplane, 1 expbyte
  // element stream: element i of the beat at in_data_i[i*ElemBits +: ElemBits]
  input  logic                in_valid_i,
  output logic                in_ready_o,
  input  logic [WordBits-1:0] in_data_i,
  input  logic [CntW-1:0]     in_cnt_i,           // valid elements; < Lanes only with in_last_i
  input  logic                in_last_i,          // last beat of the tensor (closes the chunk)
  // plane block stream
  output logic                out_valid_o,
  input  logic                out_ready_i,
  output logic [WordBits-1:0] out_data_o,
  output logic [NbW-1:0]      out_nbytes_o,
  output logic [7:0]          out_plane_o,        // plane id (spec section 2)
  output logic                out_plane_last_o,   // last beat of the plane block
  output logic                out_chunk_last_o,   // last beat of the chunk
  output logic                out_last_o          // last beat of the tensor
);
  localparam int unsigned WordsPerBuf = (MaxChunkElems + WordBits - 1) / WordBits;
  localparam int unsigned AddrW = $clog2(2 * WordsPerBuf);
  localparam int unsigned BankW = $clog2(ElemBits);
  localparam int unsigned ManBits = (ExpBits == 0) ? 0 : ElemBits - 1 - ExpBits;
  localparam int unsigned FifoDepth = 3;  // covers the 1-cycle read latency at full rate
  localparam int unsigned BeatW = WordBits + NbW + 8 + 3;

  // ---- buffer state -------------------------------------------------------------------------
  logic [1:0]      full_q, expbyte_q, last_q;
  logic [2*NW-1:0] nm1_q;
  logic            wdone, wdone_buf, wdone_eb, wdone_last, release_v, release_buf;
  logic [NW-1:0]   wdone_nm1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      full_q <= '0;
    end else begin
      for (int unsigned b = 0; b < 2; b++) begin
        if (wdone && wdone_buf == b[0]) full_q[b] <= 1'b1;
        else if (release_v && release_buf == b[0]) full_q[b] <= 1'b0;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (wdone) begin
      nm1_q[wdone_buf*NW +: NW] <= wdone_nm1;
      expbyte_q[wdone_buf]    <= wdone_eb;
      last_q[wdone_buf]       <= wdone_last;
    end
  end

  // ---- write side and plane banks -----------------------------------------------------------
  logic                      we;
  logic [AddrW-1:0]          waddr, raddr;
  logic [ElemBits-1:0]       wlane;
  logic [ElemBits*Lanes-1:0] wslice;
  logic                      issue;
  logic [ElemBits*WordBits-1:0] rdata;  // bank b's read word at [b*WordBits +: WordBits]

  bp_agg_wr #(
    .ElemBits(ElemBits), .Lanes(Lanes), .MaxChunkElems(MaxChunkElems)
  ) u_wr (
    .clk_i, .rst_ni,
    .cfg_chunk_elems_i, .cfg_expbyte_i,
    .in_valid_i, .in_ready_o, .in_data_i, .in_cnt_i, .in_last_i,
    .buf_full_i(full_q),
    .done_o(wdone), .done_buf_o(wdone_buf), .done_nm1_o(wdone_nm1), .done_expbyte_o(wdone_eb),
    .done_last_o(wdone_last),
    .we_o(we), .waddr_o(waddr), .wlane_o(wlane), .wslice_o(wslice)
  );

  for (genvar b = 0; b < ElemBits; b++) begin : gen_bank
    ram_1r1w #(
      .Width(WordBits), .Depth(2 * WordsPerBuf), .Lanes(ElemBits)
    ) u_bank (
      .clk_i, .rst_ni,
      .we_i(we), .waddr_i(waddr), .wlane_i(wlane),
      .wdata_i({ElemBits{wslice[b*Lanes +: Lanes]}}),
      .re_i(issue), .raddr_i(raddr), .rdata_o(rdata[b*WordBits +: WordBits])
    );
  end

  // ---- read side ----------------------------------------------------------------------------
  logic [$clog2(FifoDepth+1)-1:0] credits_q, fifo_count;
  logic                           rd_valid, rd_eb, rd_plast, rd_clast, rd_last;
  logic [BankW-1:0]               rd_bank;
  logic [2:0]                     rd_slice;
  logic [NbW-1:0]                 rd_nbytes;
  logic [7:0]                     rd_plane;
  logic                           out_fire;

  bp_agg_rd #(
    .ElemBits(ElemBits), .ExpBits(ExpBits), .Lanes(Lanes), .MaxChunkElems(MaxChunkElems)
  ) u_rd (
    .clk_i, .rst_ni,
    .buf_full_i(full_q), .buf_nm1_i(nm1_q), .buf_expbyte_i(expbyte_q), .buf_last_i(last_q),
    .release_o(release_v), .release_buf_o(release_buf),
    .credit_i(credits_q != '0), .issue_o(issue), .raddr_o(raddr),
    .rd_valid_o(rd_valid), .rd_expbyte_o(rd_eb), .rd_bank_o(rd_bank), .rd_slice_o(rd_slice),
    .rd_nbytes_o(rd_nbytes), .rd_plane_o(rd_plane), .rd_plane_last_o(rd_plast),
    .rd_chunk_last_o(rd_clast), .rd_last_o(rd_last)
  );

  // Beat data: one bank's word, or the EXPBYTE bytes of OutBytes elements gathered from the
  // exponent banks (element k's byte = its ExpBits exponent bits, zero extended).
  logic [WordBits-1:0] beat_data, bank_word, eb_data;
  always_comb begin
    bank_word = '0;
    for (int unsigned b = 0; b < ElemBits; b++) begin
      if (rd_bank == BankW'(b)) bank_word = rdata[b*WordBits +: WordBits];
    end
  end
  always_comb begin
    eb_data = '0;
    for (int unsigned j = 0; j < ExpBits; j++) begin
      logic [OutBytes-1:0] part;  // exponent bit j of the beat's OutBytes elements
      part = '0;
      for (int unsigned sl = 0; sl < 8; sl++) begin
        if (rd_slice == 3'(sl)) part = rdata[(ManBits + j)*WordBits + sl*OutBytes +: OutBytes];
      end
      for (int unsigned k = 0; k < OutBytes; k++) eb_data[k*8 + j] = part[k];
    end
  end
  assign beat_data = rd_eb ? eb_data : bank_word;

  // Credits: one per FIFO entry; a read is issued only when its beat has a place to land.
  assign out_fire = out_valid_o && out_ready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) credits_q <= ($clog2(FifoDepth+1))'(FifoDepth);
    else if (issue && !out_fire) credits_q <= credits_q - 1'b1;
    else if (out_fire && !issue) credits_q <= credits_q + 1'b1;
  end

  logic fifo_in_ready;
  fifo_sync #(.Width(BeatW), .Depth(FifoDepth)) u_out_fifo (
    .clk_i, .rst_ni,
    .in_valid_i(rd_valid), .in_ready_o(fifo_in_ready),
    .in_data_i({beat_data, rd_nbytes, rd_plane, rd_plast, rd_clast, rd_last}),
    .out_valid_o, .out_ready_i,
    .out_data_o({out_data_o, out_nbytes_o, out_plane_o, out_plane_last_o, out_chunk_last_o,
                 out_last_o}),
    .count_o(fifo_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, ExpBits < ElemBits && MaxChunkElems >= 2 * WordBits)
  `NDP_ASSERT(fifo_never_overflows_a, !rd_valid || fifo_in_ready)
  `NDP_ASSERT(credit_account_a, 32'(credits_q) + 32'(fifo_count) + (rd_valid ? 1 : 0) == FifoDepth)
  `NDP_ASSERT(no_double_fill_a, !wdone || !full_q[wdone_buf])
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i,
                     {out_data_o, out_nbytes_o, out_plane_o, out_plane_last_o, out_chunk_last_o,
                      out_last_o})
endmodule
