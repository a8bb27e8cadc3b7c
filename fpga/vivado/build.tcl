# One-command AMD Vivado flow for ndp_fpga_top (out-of-context synthesis, placement and routing on
# the Alveo V80's Versal HBM device; any other part by argument). Cannot run in this repository's
# CI (no Vivado there); see fpga/README.md for what was checked instead.
#   vivado -mode batch -source fpga/vivado/build.tcl [-tclargs PART LANES]
# Writes fpga/out/vivado/: utilisation (flat and per hierarchy), timing summary, CDC report and the
# routed checkpoint, to be placed in the CXL/PCIe IP's example design (fpga/README.md).
set root  [file normalize [file join [file dirname [info script]] .. ..]]
set part  [expr {$argc > 0 ? [lindex $argv 0] : "xcv80-lsva4737-2MHP-e-S"}]
set lanes [expr {$argc > 1 ? [lindex $argv 1] : 4}]
set sets  [expr {$lanes >= 8 ? 6 : 4}]
set out   [file join $root fpga out vivado]
file mkdir $out

set fp [open [file join $root fpga sources.f]]
foreach line [split [read $fp] "\n"] {
  set f [string trim $line]
  if {$f eq "" || [string index $f 0] eq "#"} continue
  read_verilog -sv [file join $root $f]
}
close $fp
read_xdc -mode out_of_context [file join $root fpga vivado ndp_fpga.xdc]

synth_design -top ndp_fpga_top -part $part -mode out_of_context -flatten_hierarchy rebuilt \
  -include_dirs [glob -type d [file join $root rtl *]] \
  -generic "Lanes=$lanes Sets=$sets Bufs=[expr {$sets + 2}] MaxPrefetch=$sets"
report_utilization -file [file join $out synth_utilization.rpt]
opt_design
place_design
phys_opt_design
route_design
report_utilization -file [file join $out utilization.rpt]
report_utilization -hierarchical -hierarchical_depth 3 -file [file join $out utilization_hier.rpt]
report_timing_summary -max_paths 20 -file [file join $out timing_summary.rpt]
report_cdc -details -file [file join $out cdc.rpt]
write_checkpoint -force [file join $out ndp_fpga_top_routed.dcp]
puts "ndp_fpga: done, reports in $out"
