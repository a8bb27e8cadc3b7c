// Black-box view of rtl/device/ndp_dev_csr.sv for the synthesis of an enclosing block (synth/blocks/*.cfg BLACKBOX):
// the module has its own row in docs/results/synth.md. Ports and parameters match the RTL module.
(* blackbox *)
module ndp_dev_csr #(
  parameter int unsigned MaxTensors    = 64,
  parameter int unsigned Lanes         = 4,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned DramAw        = 30,     // DRAM bytes = 2^DramAw
  parameter int unsigned Bufs          = 8,      // CAPS2: chunk buffers, staging sets, MaxPrefetch
  parameter int unsigned Sets          = 4,
  parameter int unsigned MaxPrefetch   = 6,
  localparam int unsigned TW = $clog2(MaxTensors)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // writes of one 64-byte line of the control window (line = offset / 64)
  input  logic                wr_valid_i,
  input  logic [33:0]         wr_line_i,
  input  logic [511:0]        wr_data_i,
  input  logic [63:0]         wr_strb_i,
  output logic                wr_decerr_o,      // combinational on wr_line_i
  // reads of one line: data the next cycle; rd_decerr_o combinational on rd_line_i
  input  logic                rd_valid_i,
  input  logic [33:0]         rd_line_i,
  output logic [511:0]        rd_data_o,
  output logic                rd_decerr_o,
  // descriptor read for the datapath: line of tensor dsc_t_i the next cycle
  input  logic                dsc_valid_i,
  input  logic [TW-1:0]       dsc_t_i,
  output ndp_dev_pkg::desc_t  dsc_o,
  // tensor lookup by 2 MiB slot of a region-window offset
  input  logic [18:0]         lk_slot_i,
  output logic                lk_hit_o,
  output logic [TW-1:0]       lk_t_o,
  // control
  output logic                enable_o,
  output logic                commit_busy_o,
  output logic                flush_o,          // one cycle: drop cached chunks
  output logic [MaxTensors-1:0] mapped_o,       // accepted descriptors
  output logic [7:0]          pf_depth_o,       // PREFETCH
  input  logic                decoding_i,       // STATUS bit 2: chunk decodes in flight
  // counters: one increment per bit per cycle (DRAM counters count 64-byte beats)
  input  logic [ndp_dev_pkg::NumCnt-1:0] cnt_inc_i,
  input  logic [ndp_dev_pkg::NumCnt-1:0] cnt_inc2_i,   // a second source (write-side responses)
  // errors (a and b may fire together; a is kept first)
  input  logic                err_a_valid_i,
  input  ndp_dev_pkg::err_t   err_a_i,
  input  logic                err_b_valid_i,
  input  ndp_dev_pkg::err_t   err_b_i,
  input  logic                err_c_valid_i,
  input  ndp_dev_pkg::err_t   err_c_i
);
endmodule
