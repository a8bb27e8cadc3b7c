#!/usr/bin/env bash
# Figures of docs/results/rtl-pack.md: `ndp-rtl pack` on real models (FP32 -> BF16 by RNE, --as bf16,
# 4 KiB plane blocks = chunks of 32768 elements, expbyte layout, codec auto) with 1, 2 and 4 encode
# lanes. One table row per run: input (model) bytes per cycle of the whole packing path
# (bp_aggregator -> plane buffer -> lanes), the image's device ratio and `ndp pack`'s on the same
# model and options (their relative difference, and whether the images are byte-identical), the mean
# lane occupancy and the block mix. Every run must match the golden models and give an image that
# verifies and reads back bit-exact; the status column says whether the ratio is also within 1%.
# Usage: pack_figures.sh NDP_RTL DATA_DIR [OUT.md] [LANES...]   (LANES default: 1 2 4)
set -euo pipefail
RTL=$1
DATA=$2
OUT=${3:-/dev/stdout}
shift $(($# < 3 ? $# : 3))
LANES=("$@")
[ ${#LANES[@]} -gt 0 ] || LANES=(1 2 4)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
{
  echo "| model | lanes | in bytes | image bytes | cycles | B/cycle | ratio | ndp pack ratio | diff | identical | status | lane busy | blocks raw/const/lz4/zstd (huffman) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|"
} >"$OUT"
for m in "stories260K|$DATA/stories260K/stories260K.bin|" "gpt2-attn|$DATA/gpt2-small-attn|att\.(query|key|value|proj)\.w"; do
  IFS='|' read -r name path re <<<"$m"
  match=()
  [ -n "$re" ] && match=(--match "$re")
  for n in "${LANES[@]}"; do
    "$RTL" pack "$path" -o "$T/img" --as bf16 "${match[@]}" --lanes "$n" >"$T/log" 2>&1 || true
    tail -1 "$T/log" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["status"] != "mismatch" and j["image_verified"] == 1, j
print("| %s | %d | %d | %d | %d | %.2f | %.4f | %.4f | %+.2f%% | %s | %s | %.2f | %d/%d/%d/%d (%d) |" % (sys.argv[1], j["lanes"],
      j["in_bytes"], j["out_bytes"], j["cycles"], j["bytes_per_cycle"], j["ratio"], j["ndp_pack_ratio"],
      100 * j["ratio_rel_diff"], "yes" if j["identical_image"] else "no", j["status"], j["lane_busy"],
      j["raw_blocks"], j["const_blocks"], j["lz4_blocks"], j["zstd_blocks"], j["huffman_blocks"]))' "$name" >>"$OUT"
  done
done
