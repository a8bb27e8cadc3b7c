# Sourced by synth/synth.sh and fpga/synth_xilinx.sh (run from the repository root).
# yosys_read TOP "Name=value ..." "SOURCES": prints the Yosys commands that read SOURCES (include
# path: every rtl/ folder) and elaborate TOP with the parameter overrides. chparam renames a
# parameterised top, so the top is found again with -auto-top and renamed back (hierarchy -chparam
# trips an assertion in yosys 0.23 when submodules share parameter names).
yosys_read() {
  local top=$1 params=$2 srcs=$3 incs="" chp="" d p
  for d in rtl/*/; do incs+=" -I${d%/}"; done
  for p in $params; do chp+=" -set ${p%%=*} ${p#*=}"; done
  echo "read_verilog -sv$incs $srcs"
  if [ -n "$chp" ]; then
    echo "chparam$chp $top"
    echo "hierarchy -auto-top"
    echo "rename -top $top"
  else
    echo "hierarchy -top $top"
  fi
}
