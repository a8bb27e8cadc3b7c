# ndp_fpga_top timing constraints (Quartus Prime Pro, Timing Analyzer). In a full design the clocks
# come from the R-Tile CXL IP (user clock), an IOPLL (core) and the EMIF (DRAM user clock), whose
# generated constraints replace these create_clock lines. Periods: host 400 MHz, DRAM 333 MHz,
# core 150 MHz (the target; docs/results/fpga.md).
create_clock -name host_clk -period 2.500 [get_ports clk_i]
create_clock -name core_clk -period 6.667 [get_ports core_clk_i]
create_clock -name mem_clk  -period 3.000 [get_ports mem_clk_i]

# Asynchronous domains: every crossing is a fifo_async (Gray pointers through sync_ff, storage
# read only behind a synchronised pointer). Cut the clock relation and bound what matters: the
# skew between the Gray-pointer bits into each synchroniser's first flop (less than one period of
# the faster clock) and the delay of those nets.
set_clock_groups -asynchronous -group {host_clk} -group {core_clk} -group {mem_clk}
set sync_in [get_registers {*|u_rptr_sync|meta_q[*] *|u_wptr_sync|meta_q[*]}]
set_max_skew -to $sync_in 2.000
set_net_delay -max 2.000 -to $sync_in

# rst_ni is asynchronous (the IP's reset AND the PLLs' lock); rst_sync releases each domain.
set_false_path -from [get_ports rst_ni]
