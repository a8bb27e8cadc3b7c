#!/usr/bin/env bash
# Open-flow FPGA fit estimate of the whole device: Yosys synth_xilinx (or synth_intel_alm) of
# ndp_device at N lanes on the real RTL (no black boxes: the codec engines and every RAM are
# synthesised; RAMs inferred as block RAM or LUT RAM, M10K/MLAB for synth_intel_alm).
# The hierarchy is kept (no -flatten) so the N identical lanes are synthesised once and counted N
# times by `stat`; the figures are therefore slightly pessimistic (no cross-boundary optimisation).
# usage: fpga/fit.sh LANES FAMILY OUTDIR [all|ctrl|lane]
#   FAMILY: xcup (UltraScale+), xc7, or intel_alm_cyclonev
#   all  (default) the whole device
#   ctrl the device with its decode engines (codec_lane_dec) black-boxed: controller, lane wrappers,
#        staging, assembler, chunk buffers
#   lane one codec_lane_dec as ndp_dev_lane instantiates it (LZ4 + ZSTD + XXH32 + header/RAW/CONST);
#        LANES is ignored. The whole device at N lanes is ctrl(N) + N x lane.
# Writes OUTDIR/fit.ys, fit.log, fit.stat (per module and hierarchy totals) and fit.env.
set -euo pipefail
cd "$(dirname "$0")/.."
lanes=${1:?usage: fpga/fit.sh LANES FAMILY OUTDIR}
family=${2:?usage: fpga/fit.sh LANES FAMILY OUTDIR}
out=${3:?usage: fpga/fit.sh LANES FAMILY OUTDIR}
mode=${4:-all}
TOP="" SOURCES="" PARAMS=""
# shellcheck disable=SC1091
source synth/blocks/ndp_device.cfg
# the device as the FPGA top builds it (fpga/rtl/ndp_fpga_top.sv defaults), with N lanes;
# S = 4 staging sets up to 4 lanes and 6 from 8 lanes, C = S + 2, as tb/device/models.cmake
sets=4; [ "$lanes" -ge 8 ] && sets=6
PARAMS="Lanes=$lanes MaxTensors=64 MaxChunkElems=32768 DramAw=34 Bufs=$((sets + 2)) Sets=$sets MaxPrefetch=$sets AsmLanes=32"
SOURCES=$(echo $SOURCES)
case $mode in
  all) ;;
  ctrl) SOURCES=${SOURCES/rtl\/lane\/codec_lane_dec.sv/synth\/stubs\/codec_lane_dec.sv} ;;
  lane) TOP=codec_lane_dec; PARAMS="Bytes=32"
        SOURCES=$(for f in $SOURCES; do case $f in rtl/device/* | rtl/bitplane/*) ;; *) echo "$f" ;; esac; done) ;;
  *) echo "fit: unknown mode $mode" >&2; exit 1 ;;
esac
SOURCES=$(echo $SOURCES)
mkdir -p "$out"
# shellcheck source=synth/yosys_read.sh
source synth/yosys_read.sh
case $family in
  xc7|xcup|xcu) synth="synth_xilinx -top $TOP -family $family" ;;
  intel_alm_*) synth="synth_intel_alm -top $TOP -family ${family#intel_alm_}" ;;
  *) echo "fit: unknown family $family" >&2; exit 1 ;;
esac
{
  yosys_read "$TOP" "$PARAMS" "$SOURCES"
  echo "$synth"
  echo "tee -o $out/fit.stat stat"
} > "$out/fit.ys"
start=$(date +%s)
yosys -q -l "$out/fit.log" -s "$out/fit.ys" > /dev/null 2>&1 || { echo "fit: yosys failed (see $out/fit.log)" >&2; exit 1; }
# totals: the `design hierarchy` section of a hierarchical stat (cells counted with multiplicity)
tot() {
  awk -v re="$1" '/=== design hierarchy ===/ {h = 1} h && $1 ~ "^"re"$" && $2 ~ /^[0-9]+$/ {s += $2}
                  END {print s + 0}' "$out/fit.stat"
}
{
  echo "LANES=$lanes FAMILY=$family MODE=$mode SECONDS=$(( $(date +%s) - start ))"
  echo "LUTS=$(tot 'LUT[1-6]') LUTRAM=$(tot 'RAM(32|64|128|256)[A-Z0-9]*') SRL=$(tot 'SRL(16|C32)E')"
  echo "FFS=$(tot 'FD[A-Z]*') CARRY=$(tot 'CARRY(4|8)') MUXF=$(tot 'MUXF[78]')"
  echo "BRAM36=$(tot 'RAMB36E[12]') BRAM18=$(tot 'RAMB18E[12]') URAM=$(tot 'URAM288') DSP=$(tot 'DSP48E[12]')"
  echo "ALM_LUT=$(tot 'MISTRAL_(ALUT[2-6]|ALUT_ARITH|NOT)') ALM_FF=$(tot 'MISTRAL_FF') M10K=$(tot 'MISTRAL_M10K') MLAB=$(tot 'MISTRAL_MLAB') ALM_DSP=$(tot 'MISTRAL_MUL[A-Z0-9]*')"
} > "$out/fit.env"
cat "$out/fit.env"
