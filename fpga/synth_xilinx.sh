#!/usr/bin/env bash
# FPGA resource estimate of one block: yosys synth_xilinx (7-series, xc7) on the block's real RTL
# (RAMs are inferred as block RAM), reporting LUT, flip-flop, BRAM and DSP counts.
# usage: fpga/synth_xilinx.sh BLOCK OUTDIR   (BLOCK names synth/blocks/BLOCK.cfg)
# Writes OUTDIR/fpga.ys, fpga.log and fpga.env (LUTS= FFS= BRAM36= BRAM18= DSP= CARRY=).
set -euo pipefail
cd "$(dirname "$0")/.."
block=${1:?usage: fpga/synth_xilinx.sh BLOCK OUTDIR}
out=${2:?usage: fpga/synth_xilinx.sh BLOCK OUTDIR}
cfg=synth/blocks/$block.cfg
[ -f "$cfg" ] || { echo "fpga: no config $cfg" >&2; exit 1; }
TOP="" SOURCES="" PARAMS=""
# shellcheck disable=SC1090
source "$cfg"
[ -n "$TOP" ] && [ -n "$SOURCES" ] || { echo "fpga: $cfg must set TOP and SOURCES" >&2; exit 1; }
mkdir -p "$out"
SOURCES=$(echo $SOURCES)  # one line
# shellcheck source=synth/yosys_read.sh
source synth/yosys_read.sh
{
  yosys_read "$TOP" "$PARAMS" "$SOURCES"
  echo "synth_xilinx -top $TOP -flatten -family xc7"
  echo "tee -o $out/fpga.stat stat"
} > "$out/fpga.ys"
yosys -q -l "$out/fpga.log" -s "$out/fpga.ys" > /dev/null 2>&1 || { echo "fpga: yosys failed (see $out/fpga.log)" >&2; exit 1; }
count() {  # sum of the cell counts whose type matches the regex
  awk -v re="$1" '$1 ~ "^"re"$" && $2 ~ /^[0-9]+$/ {s += $2} END {print s + 0}' "$out/fpga.stat"
}
{
  echo "LUTS=$(count 'LUT[1-6]')"
  echo "FFS=$(count 'FD[A-Z]*')"
  echo "BRAM36=$(count 'RAMB36E1')"
  echo "BRAM18=$(count 'RAMB18E1')"
  echo "LUTRAM=$(count 'RAM(32|64|128|256)[A-Z0-9]*')"
  echo "DSP=$(count 'DSP48E1')"
  echo "CARRY=$(count 'CARRY4')"
} > "$out/fpga.env"
cat "$out/fpga.env" | tr '\n' ' '; echo
