// ndp_dev_stage: the staging sets of the chunk engine. Each set holds one chunk's decoded planes
// for bp_assembler: 16 banks of MaxChunkElems / 256 32-byte words, bank b holding bit-plane b. In
// the expbyte layout the exponent bit-planes 7..14 are never fetched, so the EXPBYTE plane (eight
// times a bit-plane's bytes) is spread over those eight banks: EXPBYTE word w lives in bank
// 7 + w / BpWords at w % BpWords. A set is 64 KiB at the default 32768 elements.
//
// Lanes write 32-byte words (bank 0..15 a bit-plane, 16 the EXPBYTE plane) into the set they work
// for; two lanes never write one bank of one set in the same cycle (one block per plane and set).
// The read port gives assembler beat j of a set, A = AsmLanes elements: A bits of each bit-plane
// (elements A j .. A j + A - 1) and A EXPBYTE bytes, the cycle after rd_i.
//
/// Registers: the banks (ram_1r1w macros, registered read) and the read beat's select fields.
`include "ndp_assert.svh"

module ndp_dev_stage #(
  parameter int unsigned Lanes         = 4,
  parameter int unsigned Sets          = 4,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned AsmLanes      = 16,     // elements per assembler beat: 16 or 32
  localparam int unsigned SW      = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned BpWords = MaxChunkElems / 256,
  localparam int unsigned BpAw    = $clog2(BpWords),
  localparam int unsigned EbAw    = $clog2(MaxChunkElems / 32),
  localparam int unsigned BeatW   = $clog2(MaxChunkElems / AsmLanes),  // beat index bits
  localparam int unsigned BpSh    = $clog2(256 / AsmLanes),            // beats per bit-plane word
  localparam int unsigned EbSh    = $clog2(32 / AsmLanes),             // beats per EXPBYTE word
  localparam int unsigned RdW     = 24 * AsmLanes
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // lane writes (lane i's fields at [i*W +: W])
  input  logic [Lanes-1:0]     we_i,
  input  logic [Lanes*SW-1:0]  set_i,
  input  logic [Lanes*5-1:0]   bank_i,
  input  logic [Lanes*EbAw-1:0] addr_i,
  input  logic [Lanes*256-1:0] data_i,
  // assembler feed: beat rd_beat_i of set rd_set_i; rd_data_o = {EXPBYTE A bytes, planes 15..0 x A bits}
  input  logic                 rd_i,
  input  logic [SW-1:0]        rd_set_i,
  input  logic [BeatW-1:0]     rd_beat_i,
  input  logic                 rd_expbyte_i,
  output logic [RdW-1:0]       rd_data_o
);
  // ---------------------------------------------------------------------------------------------
  // Write side: lane i's physical bank and word address
  logic [3:0]      pbank [Lanes];
  logic [BpAw-1:0] paddr [Lanes];
  for (genvar i = 0; i < Lanes; i++) begin : gen_map
    logic [EbAw-1:0] a;
    assign a = addr_i[i*EbAw +: EbAw];
    assign pbank[i] = (bank_i[i*5 +: 5] == 5'd16) ? 4'(4'd7 + 4'(a >> BpAw)) : bank_i[i*5 +: 4];
    assign paddr[i] = a[BpAw-1:0];
  end

  // Read side: the bit-plane word of beat j is j / (256 / A), the EXPBYTE word j / (32 / A)
  logic [BpAw-1:0] bp_raddr, eb_raddr;
  logic [2:0]      eb_bank;
  assign bp_raddr = BpAw'(rd_beat_i >> BpSh);
  assign eb_raddr = BpAw'(rd_beat_i >> EbSh);
  assign eb_bank  = 3'((rd_beat_i >> EbSh) >> BpAw);

  // Set s, bank b at word (s * 16 + b), packed: Yosys 0.23 takes an unpacked array driven by instance
  // outputs for a memory without writes and removes the RAMs behind it.
  logic [Sets*16*256-1:0] words;
  for (genvar s = 0; s < Sets; s++) begin : gen_set
    for (genvar b = 0; b < 16; b++) begin : gen_bank
      logic            we;
      logic [BpAw-1:0] wa;
      logic [255:0]    wd;
      always_comb begin
        we = 1'b0;
        wa = '0;
        wd = '0;
        for (int unsigned i = 0; i < Lanes; i++) begin
          if (we_i[i] && set_i[i*SW +: SW] == SW'(s) && pbank[i] == 4'(b)) begin
            we = 1'b1;
            wa = paddr[i];
            wd = data_i[i*256 +: 256];
          end
        end
      end
      ram_1r1w #(.Width(256), .Depth(BpWords)) u_ram (
        .clk_i, .rst_ni,
        .we_i(we), .waddr_i(wa), .wlane_i(1'b1), .wdata_i(wd),
        .re_i(rd_i && rd_set_i == SW'(s)),
        .raddr_i((rd_expbyte_i && b >= 7 && b <= 14) ? eb_raddr : bp_raddr),
        .rdata_o(words[(s*16 + b)*256 +: 256])
      );
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Select the beat's bits from the words read
  logic [SW-1:0]    set_q;
  logic [BeatW-1:0] beat_q;
  logic [2:0]       eb_bank_q;
  always_ff @(posedge clk_i) begin
    if (rd_i) begin
      set_q     <= rd_set_i;
      beat_q    <= rd_beat_i;
      eb_bank_q <= eb_bank;
    end
  end
  logic [31:0] bp_sel, eb_sel;   // beat within its word
  assign bp_sel = 32'(beat_q) & ((32'd1 << BpSh) - 32'd1);
  assign eb_sel = 32'(beat_q) & ((32'd1 << EbSh) - 32'd1);
  logic [16*256-1:0] set_words;  // the 16 bank words of the set read
  always_comb begin
    set_words = words[16*256-1:0];
    for (int unsigned k = 1; k < Sets; k++)
      if (32'(set_q) == k) set_words = words[k*16*256 +: 16*256];
  end
  always_comb begin
    for (int unsigned b = 0; b < 16; b++)
      rd_data_o[b*AsmLanes +: AsmLanes] = set_words[b*256 + bp_sel*AsmLanes +: AsmLanes];
    rd_data_o[16*AsmLanes +: 8*AsmLanes] = set_words[(7 + 32'(eb_bank_q))*256 + eb_sel*8*AsmLanes +: 8*AsmLanes];
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Sets >= 1 && MaxChunkElems >= 2048 && (MaxChunkElems % 2048) == 0
                             && (AsmLanes == 16 || AsmLanes == 32))
  for (genvar i = 0; i < Lanes; i++) begin : gen_chk
    `NDP_ASSERT(bp_addr_in_bank_a, !we_i[i] || bank_i[i*5 +: 5] == 5'd16
                                   || 32'(addr_i[i*EbAw +: EbAw]) < BpWords)
    `NDP_ASSERT(bank_legal_a, !we_i[i] || bank_i[i*5 +: 5] <= 5'd16)
    `NDP_ASSERT(set_legal_a, !we_i[i] || 32'(set_i[i*SW +: SW]) < Sets)
  end
endmodule
