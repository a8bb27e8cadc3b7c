#!/usr/bin/env bash
# Figures of docs/results/device.md: ndp_device (ndp-rtl device, DDR5-4800 model on the DRAM port)
# on a GPT-2 attention image, every bf16 region (g = 1; full ignores g), sequential whole-tensor reads
# and random 4 KiB reads. usage: tb/runner/device_figures.sh [BUILD] [LANES...]
# Prints one markdown table row per run; the raw JSON lines go to $OUT_DIR/device-*.json.
set -euo pipefail
BUILD=${1:-build}
shift || true
LANES=${*:-4}
NDP=$BUILD/sw/cli/ndp
RTL=${NDP_RTL:-$BUILD/tb/runner/ndp-rtl}
DATA=${NDP_DATA_DIR:-../shared/data}
OUT_DIR=${OUT_DIR:-$BUILD/device-figures}
mkdir -p "$OUT_DIR"
IMG=$OUT_DIR/gpt2-attn-bf16.ndpi
[ -f "$IMG" ] || "$NDP" pack "$DATA/gpt2-small-attn" --as bf16 --match 'att\.(query|key|value|proj)\.w' -o "$IMG" > /dev/null
TENSOR=${TENSOR:-decoder1/att.query.w}   # TENSOR=all: every tensor, back to back
TARGS=(--tensor "$TENSOR")
[ "$TENSOR" = all ] && TARGS=()
PFARGS=()
[ -n "${PREFETCH:-}" ] && PFARGS=(--prefetch "$PREFETCH")   # PREFETCH=D writes the register (default: reset value)
[ -n "${TRACK:-}" ] && PFARGS+=(--track "$TRACK")             # TRACK=P likewise (0: bursts answered in request order)
REGIONS=${REGIONS:-"full e8m0 e8m3 e8m7 fp8-e4m3 fp8-e5m2 fp6-e3m2 fp6-e2m3 fp4-e2m1 mxfp8 mxfp4"}
echo "| lanes | region | pattern | prefetch | track | host B/cycle | chunks | DRAM bytes | golden DRAM bytes | baseline bytes | row hits | DRAM access nJ | baseline access nJ | device us | baseline us | burst p50 cycles | status |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in $LANES; do
  for pattern in ${PATTERNS:-seq random}; do
    for r in $REGIONS; do
      j=$OUT_DIR/device-l$n-$r-$pattern-${TENSOR//\//_}-pf${PREFETCH:-d}-tk${TRACK:-d}.json
      "$RTL" device "$IMG" --region "$r" --guard 1 "${TARGS[@]}" --lanes "$n" --pattern "$pattern" --reads 24 \
        "${PFARGS[@]}" -o "$OUT_DIR/out.bin" --seed 1 2> /dev/null | tail -1 > "$j" || true
      python3 - "$j" "$n" "$r" "$pattern" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
g = lambda k: j.get(k, 0)
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {g('prefetch')} | {g('track')} | {g('bytes_per_cycle'):.2f} | {g('chunks')} | {g('dram_bytes')} | {g('golden_dram_bytes')} | "
      f"{g('baseline_dram_bytes')} | {g('row_hit_rate'):.3f} | {g('dram_access_energy_nj'):.0f} | {g('baseline_access_energy_nj'):.0f} | "
      f"{g('device_time_ns')/1000:.1f} | {g('baseline_time_ns')/1000:.1f} | {g('burst_latency_p50')} | {g('status')} |")
PY
    done
  done
done
