// Black-box view of rtl/device/ndp_dev_index.sv for the synthesis of an enclosing block (synth/blocks/*.cfg BLACKBOX):
// the module has its own row in docs/results/synth.md. Ports and parameters match the RTL module.
(* blackbox *)
module ndp_dev_index #(
  parameter int unsigned Sets   = 4,
  parameter int unsigned DramAw = 30,
  localparam int unsigned SW = (Sets > 1) ? $clog2(Sets) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // job, with the staging set it was given
  input  logic              job_valid_i,
  output logic              job_ready_o,
  input  ndp_dev_pkg::job_t job_i,
  input  logic [SW-1:0]     set_i,
  // DRAM reads of the index lines (one line per request)
  output logic              ix_ar_valid_o,
  input  logic              ix_ar_ready_i,
  output logic [33:0]       ix_ar_line_o,
  input  logic              ix_r_valid_i,
  input  logic [511:0]      ix_r_data_i,
  // bounds RAM writes: slot s of set t at t * 16 + s, {end, start}
  output logic              bd_we_o,
  output logic [SW+3:0]     bd_addr_o,
  output logic [79:0]       bd_data_o,
  // the set is indexed; err: the first failing fetched slot (with its plane and the entry address)
  output logic              done_o,
  output logic [SW-1:0]     done_set_o,
  output logic              done_err_o,
  output logic [3:0]        err_slot_o,
  output logic [7:0]        err_plane_o,
  output logic [39:0]       err_addr_o
);
endmodule
