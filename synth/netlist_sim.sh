#!/usr/bin/env bash
# Gate-level check of the Yosys flow: synthesises a block with the front end of synth/synth.sh
# (`synth -flatten` at the block's default parameters, ram_1r1w kept as a macro whose behavioural
# model is linked back in), writes the generic-gate netlist (`write_verilog -noexpr`: every gate a
# yosys simcells.v cell), and runs the block's unchanged GoogleTest bench against it: the tb build
# replaces the model's RTL by the netlist (tb/CMakeLists.txt, NDP_NETLIST_DIR). Catches any
# difference between how Yosys and Verilator read the RTL, so the timing rows describe logic that
# decodes the same bytes.
#
# usage: synth/netlist_sim.sh [BLOCK ...]
#   BLOCK: bp_assembler bp_aggregator lz4_decoder zstd_decoder (default: all four)
# env:   NETLIST_OUT=synth/out/netlist_sim   NETLIST_BUILD=build-netlist (a tb build of its own)
#        NETLIST_FILTER_<block>=GTEST_FILTER overrides a block's test selection below
set -euo pipefail
cd "$(dirname "$0")/.."
M=$PWD
OUT=${NETLIST_OUT:-$M/synth/out/netlist_sim}
B=${NETLIST_BUILD:-$M/build-netlist}
mkdir -p "$OUT"

# block -> "tb folder | model prefix | test binary | tests run on the netlist"
spec() {
  case $1 in
    bp_assembler) echo "bitplane|Vbp_assembler|rtl_test_bp_assembler|*" ;;
    bp_aggregator) echo "bitplane|Vbp_aggregator|rtl_test_bp_aggregator|*" ;;
    # real plane blocks, every liblz4 compressor, the directed corners (the second parameter
    # point, Lz4DecoderW16M2, stays RTL)
    lz4_decoder) echo "lz4|Vlz4_decoder|rtl_test_lz4_decoder|Lz4Decoder.RealPlanes*:Lz4Decoder.DirectedCorners:Lz4Decoder.Interop*" ;;
    # Huffman plane frames (the device's EXPBYTE format), libzstd levels with checksums, the
    # decodecorpus frames
    zstd_decoder) echo "zstd|Vzstd_decoder|rtl_test_zstd_decoder|ZstdDecoder.HuffmanPlaneFrames*:ZstdDecoder.LibzstdLevels:ZstdDecoder.Decodecorpus*" ;;
    *) echo "netlist_sim: unknown block $1 (bp_assembler bp_aggregator lz4_decoder zstd_decoder)" >&2
       return 1 ;;
  esac
}

netlist() {  # block prefix -> $OUT/<prefix>.v
  local b=$1 prefix=$2 TOP="" SOURCES="" SYNTH_ARGS=""
  # shellcheck disable=SC1090
  source "synth/blocks/$b.cfg"
  SOURCES=$(echo $SOURCES | sed 's|rtl/common/ram_1r1w.sv|synth/stubs/ram_1r1w.sv|')
  printf 'read_verilog -sv -Irtl/common %s\nhierarchy -top %s\nsynth -top %s -flatten %s\nopt_clean -purge\nwrite_verilog -noattr -noexpr %s\n' \
    "$SOURCES" "$TOP" "$TOP" "$SYNTH_ARGS" "$OUT/$prefix.v" > "$OUT/$b.ys"
  yosys -q -l "$OUT/$b.yosys.log" -s "$OUT/$b.ys" > /dev/null
}

blocks=("$@")
[ ${#blocks[@]} -gt 0 ] || blocks=(bp_assembler bp_aggregator lz4_decoder zstd_decoder)
dirs=()
for b in "${blocks[@]}"; do
  IFS='|' read -r dir prefix _ _ <<< "$(spec "$b")"
  echo "netlist_sim: yosys $b -> $OUT/$prefix.v"
  s=$(date +%s)
  netlist "$b" "$prefix"
  echo "netlist_sim: $b netlist in $(( $(date +%s) - s )) s, $(grep -c '\\\$_' "$OUT/$prefix.v") gates"
  dirs+=("$dir")
done
only=$(printf '%s\n' "${dirs[@]}" | sort -u | paste -sd';')
cmake -S "$M" -B "$B" -G Ninja -DNDP_BUILD_RTL=ON -DNDP_TB_ONLY="$only" -DNDP_NETLIST_DIR="$OUT" \
  > "$OUT/cmake.log"
rc=0
for b in "${blocks[@]}"; do
  IFS='|' read -r _ _ test filter <<< "$(spec "$b")"
  var=NETLIST_FILTER_$b
  filter=${!var:-$filter}
  echo "netlist_sim: building $test on the $b netlist"
  cmake --build "$B" --target "$test" > "$OUT/$b.build.log" 2>&1 ||
    { echo "netlist_sim: build failed, see $OUT/$b.build.log" >&2; exit 1; }
  echo "netlist_sim: running $test --gtest_filter='$filter'"
  "$B/tb/$test" --gtest_brief=1 --gtest_filter="$filter" || rc=1
done
exit $rc
