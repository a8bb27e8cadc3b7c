// axi_cdc: AXI4 clock-domain crossing, one fifo_async per channel. AW, W and AR go from the slave
// side (s_*, clock s_clk_i) to the master side (m_*, clock m_clk_i); B and R come back. Channel
// payloads are packed by the instantiating module, so the same cell crosses the host port (with
// IDs, sizes, bursts) and the DRAM port (IDs on AR/R only).
//
/// Registers: those of the five FIFOs (no combinational path between the two sides). Throughput:
/// one beat per cycle of the slower clock once the FIFOs hold a few words (AddrDepth entries for
/// AW/AR/B, DataDepth for W/R: DataDepth >= 8 covers the Gray-pointer round trip).
`include "ndp_assert.svh"

module axi_cdc #(
  parameter int unsigned AwW       = 8,   // AW payload bits
  parameter int unsigned WW        = 8,   // W payload bits
  parameter int unsigned BW        = 2,   // B payload bits
  parameter int unsigned ArW       = 8,   // AR payload bits
  parameter int unsigned RW        = 8,   // R payload bits
  parameter int unsigned AddrDepth = 4,
  parameter int unsigned DataDepth = 16
) (
  input  logic           s_clk_i,
  input  logic           s_rst_ni,
  input  logic           m_clk_i,
  input  logic           m_rst_ni,
  // slave side (from the AXI master)
  input  logic           s_aw_valid_i,
  output logic           s_aw_ready_o,
  input  logic [AwW-1:0] s_aw_i,
  input  logic           s_w_valid_i,
  output logic           s_w_ready_o,
  input  logic [WW-1:0]  s_w_i,
  output logic           s_b_valid_o,
  input  logic           s_b_ready_i,
  output logic [BW-1:0]  s_b_o,
  input  logic           s_ar_valid_i,
  output logic           s_ar_ready_o,
  input  logic [ArW-1:0] s_ar_i,
  output logic           s_r_valid_o,
  input  logic           s_r_ready_i,
  output logic [RW-1:0]  s_r_o,
  // master side (to the AXI slave)
  output logic           m_aw_valid_o,
  input  logic           m_aw_ready_i,
  output logic [AwW-1:0] m_aw_o,
  output logic           m_w_valid_o,
  input  logic           m_w_ready_i,
  output logic [WW-1:0]  m_w_o,
  input  logic           m_b_valid_i,
  output logic           m_b_ready_o,
  input  logic [BW-1:0]  m_b_i,
  output logic           m_ar_valid_o,
  input  logic           m_ar_ready_i,
  output logic [ArW-1:0] m_ar_o,
  input  logic           m_r_valid_i,
  output logic           m_r_ready_o,
  input  logic [RW-1:0]  m_r_i
);
  fifo_async #(.Width(AwW), .Depth(AddrDepth)) u_aw (
    .wclk_i(s_clk_i), .wrst_ni(s_rst_ni), .in_valid_i(s_aw_valid_i), .in_ready_o(s_aw_ready_o),
    .in_data_i(s_aw_i),
    .rclk_i(m_clk_i), .rrst_ni(m_rst_ni), .out_valid_o(m_aw_valid_o), .out_ready_i(m_aw_ready_i),
    .out_data_o(m_aw_o)
  );
  fifo_async #(.Width(WW), .Depth(DataDepth)) u_w (
    .wclk_i(s_clk_i), .wrst_ni(s_rst_ni), .in_valid_i(s_w_valid_i), .in_ready_o(s_w_ready_o),
    .in_data_i(s_w_i),
    .rclk_i(m_clk_i), .rrst_ni(m_rst_ni), .out_valid_o(m_w_valid_o), .out_ready_i(m_w_ready_i),
    .out_data_o(m_w_o)
  );
  fifo_async #(.Width(BW), .Depth(AddrDepth)) u_b (
    .wclk_i(m_clk_i), .wrst_ni(m_rst_ni), .in_valid_i(m_b_valid_i), .in_ready_o(m_b_ready_o),
    .in_data_i(m_b_i),
    .rclk_i(s_clk_i), .rrst_ni(s_rst_ni), .out_valid_o(s_b_valid_o), .out_ready_i(s_b_ready_i),
    .out_data_o(s_b_o)
  );
  fifo_async #(.Width(ArW), .Depth(AddrDepth)) u_ar (
    .wclk_i(s_clk_i), .wrst_ni(s_rst_ni), .in_valid_i(s_ar_valid_i), .in_ready_o(s_ar_ready_o),
    .in_data_i(s_ar_i),
    .rclk_i(m_clk_i), .rrst_ni(m_rst_ni), .out_valid_o(m_ar_valid_o), .out_ready_i(m_ar_ready_i),
    .out_data_o(m_ar_o)
  );
  fifo_async #(.Width(RW), .Depth(DataDepth)) u_r (
    .wclk_i(m_clk_i), .wrst_ni(m_rst_ni), .in_valid_i(m_r_valid_i), .in_ready_o(m_r_ready_o),
    .in_data_i(m_r_i),
    .rclk_i(s_clk_i), .rrst_ni(s_rst_ni), .out_valid_o(s_r_valid_o), .out_ready_i(s_r_ready_i),
    .out_data_o(s_r_o)
  );
endmodule
