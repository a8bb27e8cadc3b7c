// Black-box view of rtl/device/ndp_dev_stage.sv for the synthesis of an enclosing block (synth/blocks/*.cfg BLACKBOX):
// the module has its own row in docs/results/synth.md. Ports and parameters match the RTL module.
(* blackbox *)
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
endmodule
