#!/usr/bin/env bash
# Mutation campaign over the real inputs in ../shared/data (docs/results/reliability.md): a device
# image and a KV trace made from stories260K with `ndp`, the llama2.c and rwkv checkpoints as they
# are, stories260K's tensors rewritten as safetensors and GGUF, and the GPT-2 raw directory. Every
# mutated input runs in a forked child of build/sw/fuzz/ndp_mutate; fails if any input crashed, hung,
# hit the 4 GiB allocation cap or gave an empty error.
#   bash scripts/mutation-campaign.sh [BUILD] [N]      (defaults: build, 10000 inputs per format)
# Exit 77 (skipped) when the shared data is absent.
set -euo pipefail
build="${1:-build}"
n="${2:-10000}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="${NDP_DATA_DIR:-$root/../shared/data}"
ndp="$build/sw/cli/ndp"
mut="$build/sw/fuzz/ndp_mutate"
for x in "$ndp" "$mut"; do [ -x "$x" ] || { echo "mutation-campaign: $x not built"; exit 1; }; done
[ -f "$data/stories260K/stories260K.bin" ] || { echo "mutation-campaign: $data absent: skipping"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$ndp" pack "$data/stories260K/stories260K.bin" --as bf16 -o "$work/stories260K.ndpi" >/dev/null
"$ndp" kvtrace "$data/stories260K/stories260K.bin" -o "$work/stories260K.nkvt" --tokens 512 --seed 7 >/dev/null
status=0
run() { "$mut" "$@" --n "$n" --seed 1 --timeout 10 --save "$work/findings" || status=1; }
run image "$work/stories260K.ndpi"
run kvtrace "$work/stories260K.nkvt"
run llama2c "$data/stories260K/stories260K.bin"
run rwkv "$data/rwkv-tiny/tiny-rwkv-5v1-730K-FP16.bin"
run safetensors "$data/stories260K/stories260K.bin"
run gguf "$data/stories260K/stories260K.bin"
run gpt2raw "$data/gpt2-small-attn"
if [ "$status" -ne 0 ]; then
  mkdir -p "$build/mutation-findings" && cp -r "$work/findings/." "$build/mutation-findings/" 2>/dev/null || true
  echo "mutation-campaign: FAILED (inputs kept in $build/mutation-findings)"
fi
exit "$status"
