// Black-box view of rtl/device/ndp_dev_rd.sv for the synthesis of an enclosing block (synth/blocks/*.cfg BLACKBOX):
// the module has its own row in docs/results/synth.md. Ports and parameters match the RTL module.
(* blackbox *)
module ndp_dev_rd #(
  parameter int unsigned IdW           = 8,
  parameter int unsigned MaxTensors    = 64,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned Bufs          = 8,
  parameter int unsigned DramAw        = 30,
  localparam int unsigned TW       = $clog2(MaxTensors),
  localparam int unsigned BW       = (Bufs > 1) ? $clog2(Bufs) : 1,
  localparam int unsigned BufWords = MaxChunkElems * 2 / 64,
  localparam int unsigned RcbAw    = BW + $clog2(BufWords)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // host AR / R
  input  logic               ar_valid_i,
  output logic               ar_ready_o,
  input  logic [IdW-1:0]     ar_id_i,
  input  logic [47:0]        ar_addr_i,
  input  logic [7:0]         ar_len_i,
  input  logic [2:0]         ar_size_i,
  input  logic [1:0]         ar_burst_i,
  output logic               r_valid_o,
  input  logic               r_ready_i,
  output logic [IdW-1:0]     r_id_o,
  output logic [511:0]       r_data_o,
  output logic [1:0]         r_resp_o,
  output logic               r_last_o,
  // control block
  output logic               csr_rd_valid_o,
  output logic [33:0]        csr_rd_line_o,
  input  logic [511:0]       csr_rd_data_i,
  input  logic               csr_rd_decerr_i,
  output logic               dsc_valid_o,
  output logic [TW-1:0]      dsc_t_o,
  input  ndp_dev_pkg::desc_t dsc_i,
  output logic [18:0]        lk_slot_o,
  input  logic               lk_hit_i,
  input  logic [TW-1:0]      lk_t_i,
  input  logic               enable_i,
  input  logic               commit_busy_i,
  input  logic               flush_i,
  input  logic [7:0]         pf_depth_i,    // PREFETCH (<= Bufs - 2)
  input  logic [MaxTensors-1:0] mapped_i,   // accepted descriptors
  output logic               decoding_o,    // a chunk decode is in flight (STATUS bit 2)
  // store-window reads to DRAM
  output logic               sr_ar_valid_o,
  input  logic               sr_ar_ready_i,
  output logic [33:0]        sr_ar_line_o,
  output logic [7:0]         sr_ar_len_o,
  input  logic               sr_r_valid_i,
  output logic               sr_r_ready_o,
  input  logic [511:0]       sr_r_data_i,
  input  logic [1:0]         sr_r_resp_i,
  // chunk engine
  output logic               job_valid_o,
  input  logic               job_ready_i,
  output ndp_dev_pkg::job_t  job_o,
  output logic [BW-1:0]      job_buf_o,
  input  logic               done_i,
  input  logic [BW-1:0]      done_buf_i,
  input  logic               done_err_i,
  // chunk buffer read (data the next cycle)
  output logic               rcb_re_o,
  output logic [RcbAw-1:0]   rcb_addr_o,
  input  logic [511:0]       rcb_data_i,
  // log, counters, status
  output logic               err_valid_o,
  output ndp_dev_pkg::err_t  err_o,
  output logic               cnt_hit_o
);
endmodule
