// Black-box view of rtl/device/ndp_dev_chunk.sv for the synthesis of an enclosing block (synth/blocks/*.cfg BLACKBOX):
// the module has its own row in docs/results/synth.md. Ports and parameters match the RTL module.
(* blackbox *)
module ndp_dev_chunk #(
  parameter int unsigned Lanes         = 4,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned Bufs          = 8,      // chunk buffers (the RAM is outside)
  parameter int unsigned Sets          = 4,      // staging sets: chunks in flight
  parameter int unsigned DramAw        = 30,
  parameter int unsigned AsmLanes      = 32,     // elements per assembler beat (16: 32 B/cycle of BF16, 32: 64)
  localparam int unsigned BW       = (Bufs > 1) ? $clog2(Bufs) : 1,
  localparam int unsigned SW       = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned EbAw     = $clog2(MaxChunkElems / 32),
  localparam int unsigned BufWords = MaxChunkElems * 2 / 64, // 64-byte words of one chunk buffer
  localparam int unsigned RcbAw    = BW + $clog2(BufWords),
  localparam int unsigned LW       = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned FbW      = $clog2(MaxChunkElems / AsmLanes + 1),  // assembler beats of a chunk
  localparam int unsigned AsmSh    = $clog2(AsmLanes),
  localparam int unsigned OutB     = 2 * AsmLanes,                          // assembler output bytes per beat
  localparam int unsigned OutCW    = $clog2(OutB + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // jobs
  input  logic                 job_valid_i,
  output logic                 job_ready_o,
  input  ndp_dev_pkg::job_t    job_i,
  input  logic [BW-1:0]        job_buf_i,
  output logic                 done_o,        // one cycle per job, in job order
  output logic [BW-1:0]        done_buf_o,
  output logic                 done_err_o,
  // DRAM reads of the index entry (one line per request)
  output logic                 ix_ar_valid_o,
  input  logic                 ix_ar_ready_i,
  output logic [33:0]          ix_ar_line_o,
  input  logic                 ix_r_valid_i,
  input  logic [511:0]         ix_r_data_i,
  // lanes (lane i's fields at [i*W +: W])
  output logic [Lanes-1:0]     as_valid_o,
  input  logic [Lanes-1:0]     as_ready_i,
  output logic [39:0]          as_start_o,
  output logic [39:0]          as_end_o,
  output logic [15:0]          as_block_id_o,
  output logic [7:0]           as_plane_o,
  output logic [16:0]          as_raw_o,
  output logic [7:0]           as_pad_o,
  output logic [4:0]           as_bank_o,
  input  logic [Lanes-1:0]     dn_valid_i,
  output logic [Lanes-1:0]     dn_ready_o,
  input  logic [Lanes*8-1:0]   dn_code_i,     // device error code (0 ok, 4 BlockSpan, 16 + lane status)
  input  logic [Lanes-1:0]     st_we_i,
  input  logic [Lanes*5-1:0]   st_bank_i,
  input  logic [Lanes*EbAw-1:0] st_addr_i,
  input  logic [Lanes*256-1:0] st_data_i,
  // chunk buffer writes
  output logic                 rcb_we_o,
  output logic [RcbAw-1:0]     rcb_addr_o,
  output logic [511:0]         rcb_data_o,
  // log and counters
  output logic                 err_valid_o,
  output ndp_dev_pkg::err_t    err_o,
  output logic                 cnt_block_o
);
endmodule
