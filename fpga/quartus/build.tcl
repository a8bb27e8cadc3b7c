# One-command Intel Quartus Prime Pro flow for ndp_fpga_top on the Agilex 7 I-Series development
# kit's device (AGIB027R29A1E2VR3; production kits: AGIB027R29A1E1VB, pass it as the first
# argument). Compiles the wrapper on its own, its AXI ports as virtual pins (in the full design they
# connect to the R-Tile CXL IP and the EMIF inside the FPGA). Cannot run in this repository's CI
# (no Quartus there); see fpga/README.md.
#   quartus_sh -t fpga/quartus/build.tcl [DEVICE LANES]
# Writes the project and its reports (fit, timing) to fpga/out/quartus/.
package require ::quartus::project
package require ::quartus::flow

set root   [file normalize [file join [file dirname [info script]] .. ..]]
set device [expr {$argc > 0 ? [lindex $argv 0] : "AGIB027R29A1E2VR3"}]
set lanes  [expr {$argc > 1 ? [lindex $argv 1] : 4}]
set sets   [expr {$lanes >= 8 ? 6 : 4}]
set out    [file join $root fpga out quartus]
file mkdir $out
cd $out

project_new ndp_fpga -overwrite
set_global_assignment -name FAMILY "Agilex 7"
set_global_assignment -name DEVICE $device
set_global_assignment -name TOP_LEVEL_ENTITY ndp_fpga_top
foreach d [glob -type d [file join $root rtl *]] { set_global_assignment -name SEARCH_PATH $d }
set fp [open [file join $root fpga sources.f]]
foreach line [split [read $fp] "\n"] {
  set f [string trim $line]
  if {$f eq "" || [string index $f 0] eq "#"} continue
  set_global_assignment -name SYSTEMVERILOG_FILE [file join $root $f]
}
close $fp
set_global_assignment -name SDC_FILE [file join $root fpga quartus ndp_fpga.sdc]
set_parameter -name Lanes $lanes
set_parameter -name Sets $sets
set_parameter -name Bufs [expr {$sets + 2}]
set_parameter -name MaxPrefetch $sets
# the AXI ports stay inside the FPGA (CXL IP, EMIF): virtual pins; clocks and reset are real
set_instance_assignment -name VIRTUAL_PIN ON -to s_*
set_instance_assignment -name VIRTUAL_PIN ON -to m_*
set_global_assignment -name SYNCHRONIZER_IDENTIFICATION AUTO
set_global_assignment -name OPTIMIZATION_MODE "HIGH PERFORMANCE EFFORT"
export_assignments

execute_flow -compile
project_close
puts "ndp_fpga: done, reports in $out (ndp_fpga.fit.summary, ndp_fpga.sta.rpt)"
