#!/usr/bin/env bash
# Gate-level check of the Yosys flow: synthesises bp_assembler and bp_aggregator with the same
# front end as synth/synth.sh (synth -flatten; the aggregator's ram_1r1w kept as a macro, i.e. the
# behavioural RAM is linked back in), verilates the resulting generic-gate netlists and runs the
# unchanged GoogleTest benches (tb/bitplane/test_bp_*.cc) against them. Catches any difference
# between how Yosys and Verilator read the RTL.
# usage: synth/netlist_sim.sh [BUILD]   (BUILD: a configured build folder with ndp_core/ndp_io built,
#                                          default build)
set -euo pipefail
cd "$(dirname "$0")/.."
M=$PWD
B=$(cd "${1:-build}" && pwd)
OUT=$M/synth/out/netlist_sim
V=/usr/share/verilator/include
rm -rf "$OUT"
mkdir -p "$OUT"
for lib in "$B/sw/core/libndp_core.a" "$B/sw/io/libndp_io.a"; do
  [ -f "$lib" ] || { echo "netlist_sim: $lib missing (cmake --build $B --target ndp_core ndp_io)" >&2; exit 1; }
done

netlist() {  # block -> $OUT/<top>.v
  local b=$1 TOP="" SOURCES="" PARAMS=""
  # shellcheck disable=SC1090
  source "synth/blocks/$b.cfg"
  SOURCES=$(echo $SOURCES | sed 's|rtl/common/ram_1r1w.sv|synth/stubs/ram_1r1w.sv|')
  printf 'read_verilog -sv -Irtl/common %s\nhierarchy -top %s\nsynth -top %s -flatten\nopt_clean -purge\nwrite_verilog -noattr %s\n' \
    "$SOURCES" "$TOP" "$TOP" "$OUT/$TOP.v" > "$OUT/$b.ys"
  yosys -q -l "$OUT/$b.yosys.log" -s "$OUT/$b.ys" > /dev/null
}

CXXF=(-std=c++20 -O1 -g0 -DVM_TRACE=1 -DVM_TRACE_FST=1 "-DNDP_TB_DATA_DIR=\"$M/../shared/data\""
      -I"$M/tb/common" -I"$M/tb/bitplane" -I"$M/sw/core/include" -I"$M/sw/io/include"
      -isystem "$V" -isystem "$V/vltstd" -isystem "$OUT/Vbp_assembler" -isystem "$OUT/Vbp_aggregator")
for top in bp_assembler bp_aggregator; do
  echo "netlist_sim: yosys $top"
  netlist "$top"
  extra=()
  [ $top = bp_aggregator ] && extra=("$M/rtl/common/ram_1r1w.sv")
  verilator --cc --trace-fst --x-assign unique --x-initial unique -Wno-fatal -Wno-lint -Wno-style \
    -I"$M/rtl/common" --prefix "V$top" --top-module "$top" -Mdir "$OUT/V$top" "${extra[@]}" \
    "$OUT/$top.v" > "$OUT/$top.verilator.log" 2>&1
  make -s -C "$OUT/V$top" -f "V$top.mk" OPT_FAST=-O1 OPT_SLOW=-O0 "V${top}__ALL.a" > /dev/null
done
objs=()
for f in "$V/verilated.cpp" "$V/verilated_fst_c.cpp" "$V/verilated_threads.cpp" "$M"/tb/common/tb_*.cc \
         "$M/tb/bitplane/agg_env.cc" "$M/tb/bitplane/asm_env.cc"; do
  o=$OUT/$(basename "${f%.*}").o
  g++ "${CXXF[@]}" -c "$f" -o "$o"
  objs+=("$o")
done
rc=0
for t in assembler aggregator; do
  g++ "${CXXF[@]}" -o "$OUT/netlist_test_bp_$t" "$M/tb/bitplane/test_bp_$t.cc" "${objs[@]}" \
    "$OUT/Vbp_assembler/Vbp_assembler__ALL.a" "$OUT/Vbp_aggregator/Vbp_aggregator__ALL.a" \
    "$B/sw/io/libndp_io.a" "$B/sw/core/libndp_core.a" -lgtest -lgtest_main -lz -lpthread
  echo "netlist_sim: running the bp_$t benches on the Yosys netlist"
  "$OUT/netlist_test_bp_$t" --gtest_brief=1 || rc=1
done
exit $rc
