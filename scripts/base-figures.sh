#!/usr/bin/env bash
# Regenerates the quantized-base table of docs/results/kv.md section 5: `ndp analyze --as` on the real
# weights of ../shared/data (stories260K, the GPT-2 small attention matrices, rwkv-tiny 5v1 FP16).
# usage: scripts/base-figures.sh NDP [DATA_DIR]
set -euo pipefail
ndp=$1
data=${2:-../shared/data}
models=("stories260K:$data/stories260K/stories260K.bin" "GPT-2 small attn:$data/gpt2-small-attn"
        "rwkv-tiny 5v1:$data/rwkv-tiny/tiny-rwkv-5v1-730K-FP16.bin")
echo "| model | base | elements | ZSTD raw | LZ4 raw | ZSTD bit-planes | device (expbyte) | device (bitplane) | entropy reference | device / reference | whole image (with BF16 rest and scales) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for entry in "${models[@]}"; do
  name=${entry%%:*} path=${entry#*:}
  [ -e "$path" ] || { echo "missing $path" >&2; continue; }
  for as in bf16 fp8-e4m3 int8 int4; do
    "$ndp" analyze "$path" --as "$as" --json > /tmp/base-e.json
    "$ndp" analyze "$path" --as "$as" --layout bitplane --json > /tmp/base-b.json
    python3 - "$name" "$as" <<'PY'
import json, sys
name, as_ = sys.argv[1], sys.argv[2]
e = json.loads(open("/tmp/base-e.json").read().splitlines()[-1])
b = json.loads(open("/tmp/base-b.json").read().splitlines()[-1])
f, fb = e["by_dtype"][as_], b["by_dtype"][as_]
r = f["ratio"]
ref = f["entropy_reference_ratio"] if as_ in ("bf16", "fp8-e4m3") else None
refs = f"{ref:.3f}" if ref else "-"
rel = f"{100 * r['device'] / ref:.1f} %" if ref else "-"
print(f"| {name} | {as_} | {f['elements']} | {r['zstd_raw']:.3f} | {r['lz4_raw']:.3f} | {r['zstd_bitplane']:.3f} | "
      f"{r['device']:.3f} | {fb['ratio']['device']:.3f} | {refs} | {rel} | {e['total']['ratio']['device']:.3f} |")
PY
  done
done
