// ndp_fpga_top: ndp_device (rtl/device) for an FPGA CXL Type-3 card (fpga/README.md). Three clock
// domains, each with its own reset synchroniser from one asynchronous board reset:
//   clk_i      host port: the AXI4 slave where the vendor CXL IP presents CXL.mem and the
//              register window (Intel Agilex 7 R-Tile CXL IP: its user clock; AMD Versal: the
//              CPM5 AXI bridge / NoC clock)
//   core_clk_i ndp_device (decode lanes, chunk engine), from a PLL at the speed the fit allows
//   mem_clk_i  DRAM port: the AXI4 slave of the vendor DDR controller (Agilex EMIF / Versal NoC DDRMC)
// An axi_cdc (five fifo_async) crosses each port. The port names and widths are ndp_device's, so
// the device bench drives this top unchanged (tb/fpga).
//
/// Registers: the reset synchronisers and the CDC FIFOs; everything else is ndp_device's. Reset:
/// rst_ni asserts every domain at once (asynchronously); each domain leaves reset two of its own
/// edges after rst_ni rises. The host port takes requests once its own domain is out of reset; they
/// wait in the crossing until the core domain is out too.
`include "ndp_assert.svh"

module ndp_fpga_top #(
  parameter int unsigned IdW           = 8,
  parameter int unsigned Lanes         = 4,
  parameter int unsigned MaxTensors    = 64,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned DramAw        = 34,     // 16 GiB of card DRAM
  parameter int unsigned Sets          = 4,
  parameter int unsigned Bufs          = 6,
  parameter int unsigned MaxPrefetch   = 4,
  parameter int unsigned AsmLanes      = 32,
  parameter int unsigned CdcDepth      = 16,     // W/R words per crossing (AW/AR/B: 4)
  localparam int unsigned DIdW = $clog2(Lanes + 2)
) (
  input  logic            clk_i,       // host (CXL IP) clock
  input  logic            core_clk_i,  // device core clock
  input  logic            mem_clk_i,   // DDR controller AXI clock
  input  logic            rst_ni,      // asynchronous, active low (IP reset AND PLLs locked)
  // host port (AXI4 slave, clk_i)
  input  logic            s_aw_valid_i,
  output logic            s_aw_ready_o,
  input  logic [IdW-1:0]  s_aw_id_i,
  input  logic [47:0]     s_aw_addr_i,
  input  logic [7:0]      s_aw_len_i,
  input  logic [2:0]      s_aw_size_i,
  input  logic [1:0]      s_aw_burst_i,
  input  logic            s_w_valid_i,
  output logic            s_w_ready_o,
  input  logic [511:0]    s_w_data_i,
  input  logic [63:0]     s_w_strb_i,
  input  logic            s_w_last_i,
  output logic            s_b_valid_o,
  input  logic            s_b_ready_i,
  output logic [IdW-1:0]  s_b_id_o,
  output logic [1:0]      s_b_resp_o,
  input  logic            s_ar_valid_i,
  output logic            s_ar_ready_o,
  input  logic [IdW-1:0]  s_ar_id_i,
  input  logic [47:0]     s_ar_addr_i,
  input  logic [7:0]      s_ar_len_i,
  input  logic [2:0]      s_ar_size_i,
  input  logic [1:0]      s_ar_burst_i,
  output logic            s_r_valid_o,
  input  logic            s_r_ready_i,
  output logic [IdW-1:0]  s_r_id_o,
  output logic [511:0]    s_r_data_o,
  output logic [1:0]      s_r_resp_o,
  output logic            s_r_last_o,
  // DRAM port (AXI4 master, mem_clk_i; INCR bursts of 64-byte beats)
  output logic            m_aw_valid_o,
  input  logic            m_aw_ready_i,
  output logic [DramAw-1:0] m_aw_addr_o,
  output logic [7:0]      m_aw_len_o,
  output logic            m_w_valid_o,
  input  logic            m_w_ready_i,
  output logic [511:0]    m_w_data_o,
  output logic [63:0]     m_w_strb_o,
  output logic            m_w_last_o,
  input  logic            m_b_valid_i,
  output logic            m_b_ready_o,
  input  logic [1:0]      m_b_resp_i,
  output logic            m_ar_valid_o,
  input  logic            m_ar_ready_i,
  output logic [DIdW-1:0] m_ar_id_o,
  output logic [DramAw-1:0] m_ar_addr_o,
  output logic [7:0]      m_ar_len_o,
  input  logic            m_r_valid_i,
  output logic            m_r_ready_o,
  input  logic [DIdW-1:0] m_r_id_i,
  input  logic [511:0]    m_r_data_i,
  input  logic [1:0]      m_r_resp_i,
  input  logic            m_r_last_i
);
  localparam int unsigned HAwW = IdW + 48 + 8 + 3 + 2;  // AW and AR
  localparam int unsigned WW   = 512 + 64 + 1;
  localparam int unsigned HBW  = IdW + 2;
  localparam int unsigned HRW  = IdW + 512 + 2 + 1;
  localparam int unsigned DAwW = DramAw + 8;
  localparam int unsigned DArW = DIdW + DramAw + 8;
  localparam int unsigned DRW  = DIdW + 512 + 2 + 1;

  logic host_rst_n, core_rst_n, mem_rst_n;
  rst_sync u_host_rst (.clk_i(clk_i), .rst_ni, .rst_no(host_rst_n));
  rst_sync u_core_rst (.clk_i(core_clk_i), .rst_ni, .rst_no(core_rst_n));
  rst_sync u_mem_rst (.clk_i(mem_clk_i), .rst_ni, .rst_no(mem_rst_n));

  // the device's ports (core_clk_i)
  logic            c_aw_valid, c_aw_ready, c_w_valid, c_w_ready, c_b_valid, c_b_ready;
  logic            c_ar_valid, c_ar_ready, c_r_valid, c_r_ready, c_w_last, c_r_last;
  logic [IdW-1:0]  c_aw_id, c_b_id, c_ar_id, c_r_id;
  logic [47:0]     c_aw_addr, c_ar_addr;
  logic [7:0]      c_aw_len, c_ar_len;
  logic [2:0]      c_aw_size, c_ar_size;
  logic [1:0]      c_aw_burst, c_ar_burst, c_b_resp, c_r_resp;
  logic [511:0]    c_w_data, c_r_data;
  logic [63:0]     c_w_strb;
  logic            d_aw_valid, d_aw_ready, d_w_valid, d_w_ready, d_b_valid, d_b_ready;
  logic            d_ar_valid, d_ar_ready, d_r_valid, d_r_ready, d_w_last, d_r_last;
  logic [DramAw-1:0] d_aw_addr, d_ar_addr;
  logic [7:0]      d_aw_len, d_ar_len;
  logic [511:0]    d_w_data, d_r_data;
  logic [63:0]     d_w_strb;
  logic [1:0]      d_b_resp, d_r_resp;
  logic [DIdW-1:0] d_ar_id, d_r_id;

  // ---------------------------------------------------------------------------------------------
  // Host port crossing: clk_i -> core_clk_i
  axi_cdc #(.AwW(HAwW), .WW(WW), .BW(HBW), .ArW(HAwW), .RW(HRW), .DataDepth(CdcDepth)) u_host_cdc (
    .s_clk_i(clk_i), .s_rst_ni(host_rst_n), .m_clk_i(core_clk_i), .m_rst_ni(core_rst_n),
    .s_aw_valid_i, .s_aw_ready_o,
    .s_aw_i({s_aw_id_i, s_aw_addr_i, s_aw_len_i, s_aw_size_i, s_aw_burst_i}),
    .s_w_valid_i, .s_w_ready_o, .s_w_i({s_w_data_i, s_w_strb_i, s_w_last_i}),
    .s_b_valid_o, .s_b_ready_i, .s_b_o({s_b_id_o, s_b_resp_o}),
    .s_ar_valid_i, .s_ar_ready_o,
    .s_ar_i({s_ar_id_i, s_ar_addr_i, s_ar_len_i, s_ar_size_i, s_ar_burst_i}),
    .s_r_valid_o, .s_r_ready_i, .s_r_o({s_r_id_o, s_r_data_o, s_r_resp_o, s_r_last_o}),
    .m_aw_valid_o(c_aw_valid), .m_aw_ready_i(c_aw_ready),
    .m_aw_o({c_aw_id, c_aw_addr, c_aw_len, c_aw_size, c_aw_burst}),
    .m_w_valid_o(c_w_valid), .m_w_ready_i(c_w_ready), .m_w_o({c_w_data, c_w_strb, c_w_last}),
    .m_b_valid_i(c_b_valid), .m_b_ready_o(c_b_ready), .m_b_i({c_b_id, c_b_resp}),
    .m_ar_valid_o(c_ar_valid), .m_ar_ready_i(c_ar_ready),
    .m_ar_o({c_ar_id, c_ar_addr, c_ar_len, c_ar_size, c_ar_burst}),
    .m_r_valid_i(c_r_valid), .m_r_ready_o(c_r_ready), .m_r_i({c_r_id, c_r_data, c_r_resp, c_r_last})
  );

  // ---------------------------------------------------------------------------------------------
  // The device
  ndp_device #(.IdW(IdW), .Lanes(Lanes), .MaxTensors(MaxTensors), .MaxChunkElems(MaxChunkElems),
               .DramAw(DramAw), .Bufs(Bufs), .Sets(Sets), .MaxPrefetch(MaxPrefetch),
               .AsmLanes(AsmLanes)) u_dev (
    .clk_i(core_clk_i), .rst_ni(core_rst_n),
    .s_aw_valid_i(c_aw_valid), .s_aw_ready_o(c_aw_ready), .s_aw_id_i(c_aw_id), .s_aw_addr_i(c_aw_addr),
    .s_aw_len_i(c_aw_len), .s_aw_size_i(c_aw_size), .s_aw_burst_i(c_aw_burst),
    .s_w_valid_i(c_w_valid), .s_w_ready_o(c_w_ready), .s_w_data_i(c_w_data), .s_w_strb_i(c_w_strb),
    .s_w_last_i(c_w_last),
    .s_b_valid_o(c_b_valid), .s_b_ready_i(c_b_ready), .s_b_id_o(c_b_id), .s_b_resp_o(c_b_resp),
    .s_ar_valid_i(c_ar_valid), .s_ar_ready_o(c_ar_ready), .s_ar_id_i(c_ar_id), .s_ar_addr_i(c_ar_addr),
    .s_ar_len_i(c_ar_len), .s_ar_size_i(c_ar_size), .s_ar_burst_i(c_ar_burst),
    .s_r_valid_o(c_r_valid), .s_r_ready_i(c_r_ready), .s_r_id_o(c_r_id), .s_r_data_o(c_r_data),
    .s_r_resp_o(c_r_resp), .s_r_last_o(c_r_last),
    .m_aw_valid_o(d_aw_valid), .m_aw_ready_i(d_aw_ready), .m_aw_addr_o(d_aw_addr), .m_aw_len_o(d_aw_len),
    .m_w_valid_o(d_w_valid), .m_w_ready_i(d_w_ready), .m_w_data_o(d_w_data), .m_w_strb_o(d_w_strb),
    .m_w_last_o(d_w_last),
    .m_b_valid_i(d_b_valid), .m_b_ready_o(d_b_ready), .m_b_resp_i(d_b_resp),
    .m_ar_valid_o(d_ar_valid), .m_ar_ready_i(d_ar_ready), .m_ar_id_o(d_ar_id), .m_ar_addr_o(d_ar_addr),
    .m_ar_len_o(d_ar_len),
    .m_r_valid_i(d_r_valid), .m_r_ready_o(d_r_ready), .m_r_id_i(d_r_id), .m_r_data_i(d_r_data),
    .m_r_resp_i(d_r_resp), .m_r_last_i(d_r_last)
  );

  // ---------------------------------------------------------------------------------------------
  // DRAM port crossing: core_clk_i -> mem_clk_i
  axi_cdc #(.AwW(DAwW), .WW(WW), .BW(2), .ArW(DArW), .RW(DRW), .DataDepth(CdcDepth)) u_mem_cdc (
    .s_clk_i(core_clk_i), .s_rst_ni(core_rst_n), .m_clk_i(mem_clk_i), .m_rst_ni(mem_rst_n),
    .s_aw_valid_i(d_aw_valid), .s_aw_ready_o(d_aw_ready), .s_aw_i({d_aw_addr, d_aw_len}),
    .s_w_valid_i(d_w_valid), .s_w_ready_o(d_w_ready), .s_w_i({d_w_data, d_w_strb, d_w_last}),
    .s_b_valid_o(d_b_valid), .s_b_ready_i(d_b_ready), .s_b_o(d_b_resp),
    .s_ar_valid_i(d_ar_valid), .s_ar_ready_o(d_ar_ready), .s_ar_i({d_ar_id, d_ar_addr, d_ar_len}),
    .s_r_valid_o(d_r_valid), .s_r_ready_i(d_r_ready), .s_r_o({d_r_id, d_r_data, d_r_resp, d_r_last}),
    .m_aw_valid_o, .m_aw_ready_i, .m_aw_o({m_aw_addr_o, m_aw_len_o}),
    .m_w_valid_o, .m_w_ready_i, .m_w_o({m_w_data_o, m_w_strb_o, m_w_last_o}),
    .m_b_valid_i, .m_b_ready_o, .m_b_i(m_b_resp_i),
    .m_ar_valid_o, .m_ar_ready_i, .m_ar_o({m_ar_id_o, m_ar_addr_o, m_ar_len_o}),
    .m_r_valid_i, .m_r_ready_o, .m_r_i({m_r_id_i, m_r_data_i, m_r_resp_i, m_r_last_i})
  );
endmodule
