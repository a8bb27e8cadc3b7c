# ndp_fpga_top timing constraints (Vivado, out of context: the clocks come from the CXL/PCIe IP,
# a PLL/MMCM and the DDR controller in a full design, whose own constraints then replace the
# create_clock lines). Periods: host 400 MHz, DRAM AXI 333 MHz, core 150 MHz (the target the
# codec lanes are expected to reach on a -2 Versal/UltraScale+ part; docs/results/fpga.md).
create_clock -name host_clk -period 2.500 [get_ports clk_i]
create_clock -name core_clk -period 6.667 [get_ports core_clk_i]
create_clock -name mem_clk  -period 3.000 [get_ports mem_clk_i]

# The three clocks are asynchronous; every path between them goes through fifo_async (Gray
# pointers into sync_ff, whose flops carry ASYNC_REG) or through the FIFO storage, which is read
# only after the pointer that covers it has been synchronised. Bound the crossing paths to the
# faster period (datapath only) so that the Gray bits arrive within one destination cycle of each
# other, rather than cutting them with a false path.
foreach {a b} {host_clk core_clk  core_clk host_clk  core_clk mem_clk  mem_clk core_clk} {
  set p [expr {min([get_property PERIOD [get_clocks $a]], [get_property PERIOD [get_clocks $b]])}]
  set_max_delay -datapath_only -from [get_clocks $a] -to [get_clocks $b] $p
}

# rst_ni is asynchronous (the IP's reset AND the PLLs' lock); rst_sync releases each domain.
set_false_path -from [get_ports rst_ni]

# Out of context: the AXI ports are internal connections to the IPs; budget half a cycle outside.
set_input_delay  -clock host_clk 1.250 [get_ports {s_*_i}]
set_output_delay -clock host_clk 1.250 [get_ports {s_*_o}]
set_input_delay  -clock mem_clk  1.500 [get_ports {m_*_i}]
set_output_delay -clock mem_clk  1.500 [get_ports {m_*_o}]
