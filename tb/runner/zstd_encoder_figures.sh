#!/usr/bin/env bash
# Figures of docs/results/zstd_encoder.md: `ndp-rtl zstd-encode --plane` on real models, one run per
# (model, plane): the EXPBYTE plane in Huffman mode (the spec 4.3 frames the device stores) and every
# BF16 bit-plane (sign, exponent bits 14..7, mantissa bits 6..0) in sequences mode, chunks of 32768
# elements, every plane block its own frame, pushed back to back. Prints one table row per run:
# input bytes per cycle, the RTL's ratio and libzstd's at levels 1 and 3 on the same plane blocks.
# HASH_BYTES=8 (environment) runs the sequences rows on the build whose finder hashes 8 bytes
# (--hash-bytes 8; the Huffman rows do not use the finder). HUF_LITS=1 (with HASH_BYTES=8) Huffman-codes
# the literals of the sequences rows (--huffman-literals) and adds the EXPBYTE plane in sequences mode
# (the lane's second EXPBYTE candidate), totalled apart from the bit-planes.
# Usage: [HASH_BYTES=4|8] [HUF_LITS=0|1] zstd_encoder_figures.sh NDP_RTL DATA_DIR [OUT.md]
set -euo pipefail
RTL=$1
DATA=$2
OUT=${3:-/dev/stdout}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
GPT_RE='^decoder[1-6]/att\.(query|key|value|proj)\.w$'
{
  echo "| model | plane | mode | planes | const | in bytes | out bytes | cycles | B/cycle | ratio | libzstd -1 | libzstd -3 | blocks raw/rle/seq/huf |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
} >"$OUT"
row() {  # row MODEL_NAME MODEL_PATH PLANE [flags...]
  local name=$1 path=$2 plane=$3
  shift 3
  "$RTL" zstd-encode "$path" "$T/out.zst" --plane "$plane" "$@" >"$T/log" 2>&1 || { tail -3 "$T/log" >&2; exit 1; }
  tail -1 "$T/log" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["status"] == "ok", j
print("| %s | %s | %s | %d | %d | %d | %d | %d | %.2f | %.4f | %.4f | %.4f | %d/%d/%d/%d |" % (sys.argv[1], sys.argv[2],
      j["mode"], j["frames"], j["const_planes"], j["in_bytes"], j["out_bytes"], j["cycles"], j["bytes_per_cycle"], j["ratio"],
      j["libzstd_l1_ratio"], j["libzstd_l3_ratio"], j["raw_blocks"], j["rle_blocks"], j["sequence_blocks"],
      j["huffman_blocks"]))' "$name" "$plane" >>"$OUT"
}
SEQ=(--hash-bytes "${HASH_BYTES:-4}")
[ "${HUF_LITS:-0}" = 1 ] && SEQ+=(--huffman-literals)
for m in "stories260K|$DATA/stories260K/stories260K.bin|.*" "gpt2-attn|$DATA/gpt2-small-attn|$GPT_RE"; do
  IFS='|' read -r name path re <<<"$m"
  row "$name" "$path" expbyte --huffman --tensors "$re"
  [ "${HUF_LITS:-0}" = 1 ] && row "$name" "$path" expbyte --tensors "$re" "${SEQ[@]}"
  for b in 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0; do
    row "$name" "$path" "$b" --tensors "$re" "${SEQ[@]}"
  done
done
# totals per model and mode (input bytes / cycles summed over the runs)
python3 - "$OUT" >>"$OUT" <<'EOF2'
import sys
rows = [l.split('|')[1:-1] for l in open(sys.argv[1]) if l.startswith('| ') and not l.startswith('| model')]
print()
print('| model | mode | runs | in bytes | out bytes | cycles | B/cycle | ratio | libzstd -1 | libzstd -3 |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
def group(r):  # the EXPBYTE plane in sequences mode (HUF_LITS=1) apart from the bit-planes
    return r[2].strip() + (' (expbyte)' if r[2].strip() == 'sequences' and r[1].strip() == 'expbyte' else '')
for model in dict.fromkeys(r[0].strip() for r in rows):
    for mode in ('huffman', 'sequences (expbyte)', 'sequences'):
        sel = [r for r in rows if r[0].strip() == model and group(r) == mode]
        if not sel:
            continue
        i, o, c = (sum(int(r[k]) for r in sel) for k in (5, 6, 7))
        l1 = sum(int(r[5]) / float(r[10]) for r in sel)
        l3 = sum(int(r[5]) / float(r[11]) for r in sel)
        print('| %s | %s | %d | %d | %d | %d | %.2f | %.4f | %.4f | %.4f |' % (model, mode, len(sel), i, o, c, i / c, i / o, i / l1, i / l3))
EOF2
