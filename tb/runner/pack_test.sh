#!/usr/bin/env bash
# ctest rtl_runner_pack: `ndp-rtl pack` on stories260K (FP32 -> BF16 by RNE, --as bf16).
# (1) 2 encode lanes, codec auto: the runner's last stdout line is its JSON with status "ok"
#     (aggregator planes and lane blocks equal to the golden models', image verified and read back
#     bit-exact, device ratio within 1% of ndp pack's), in_bytes the model's BF16 bytes as `ndp pack`
#     counts them, out_bytes the image file's size, bytes_per_cycle = in_bytes / cycles, and
#     ndp_pack_ratio what `ndp pack` prints for the same options; then the CLI itself: `ndp verify`
#     accepts the image and `ndp unpack` gives the same safetensors file as from `ndp pack`'s image.
# (2) --codec raw: only CONST and RAW blocks, where the spec fixes every byte: the image is
#     byte-identical to `ndp pack --codec raw`'s.
# (3) bad arguments: a non-zero exit and one error line on stderr.
# Usage: pack_test.sh NDP_RTL NDP DATA_DIR; exit 77 (skip) when the data is absent.
set -uo pipefail
RTL=$1
NDP=$2
ST=$3/stories260K/stories260K.bin
if [ ! -r "$ST" ]; then
  echo "skip: $ST not present"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

# pack NAME [options...]: ndp pack and ndp-rtl pack with the same options
pack() {
  local name=$1
  shift
  "$NDP" pack "$ST" -o "$T/$name.sw.img" --as bf16 "$@" >"$T/$name.sw.log" 2>&1 ||
    bad "$name: ndp pack failed: $(tail -1 "$T/$name.sw.log")"
  "$RTL" pack "$ST" -o "$T/$name.rtl.img" --as bf16 "$@" >"$T/$name.rtl.log" 2>&1 ||
    bad "$name: ndp-rtl pack exited non-zero: $(tail -3 "$T/$name.rtl.log")"
  echo "$name: $(tail -1 "$T/$name.rtl.log")"
  python3 - "$T/$name.rtl.log" "$T/$name.sw.log" "$(stat -c %s "$T/$name.rtl.img")" <<'PY' || bad "$name: JSON line"
import json, re, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
m = re.search(r'(\d+) raw bytes -> (\d+) image bytes \(ratio ([0-9.]+)\)', open(sys.argv[2]).read())
assert j['status'] == 'ok', j['status']
assert j['in_bytes'] == int(m.group(1)), ('in_bytes', j['in_bytes'], m.group(1))
assert j['out_bytes'] == int(sys.argv[3]), 'out_bytes is not the image size'
assert j['cycles'] > 0 and abs(j['bytes_per_cycle'] - j['in_bytes'] / j['cycles']) <= 1e-3 * j['bytes_per_cycle']
assert abs(j['ndp_pack_ratio'] - float(m.group(3))) <= 1e-4, ('ndp_pack_ratio', j['ndp_pack_ratio'], m.group(3))
assert abs(j['ratio'] / j['ndp_pack_ratio'] - 1) <= 0.01, 'ratio not within 1%'
assert abs(j['ratio'] - j['in_bytes'] / j['out_bytes']) <= 1e-4, 'ratio is not in_bytes / out_bytes'
PY
  "$NDP" verify "$T/$name.rtl.img" >"$T/$name.verify.log" 2>&1 || bad "$name: ndp verify: $(tail -1 "$T/$name.verify.log")"
  "$NDP" unpack "$T/$name.rtl.img" -o "$T/$name.rtl.st" >/dev/null 2>&1 || bad "$name: ndp unpack of the RTL image failed"
  "$NDP" unpack "$T/$name.sw.img" -o "$T/$name.sw.st" >/dev/null 2>&1 || bad "$name: ndp unpack of ndp pack's image failed"
  cmp -s "$T/$name.rtl.st" "$T/$name.sw.st" || bad "$name: ndp unpack of the RTL image differs from ndp pack's"
}

pack auto --lanes 2
python3 - "$T/auto.rtl.log" <<'PY' || bad "auto: block mix"
import json, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
# real weights: every EXPBYTE plane compresses (Huffman frames), mantissa planes stay RAW
assert j['lanes'] == 2 and j['huffman_blocks'] > 0 and j['raw_blocks'] > 0, j
assert j['ratio'] > 1.3, j['ratio']
PY
pack raw --lanes 1 --codec raw
cmp -s "$T/raw.rtl.img" "$T/raw.sw.img" || bad "raw: the RTL image is not byte-identical to ndp pack --codec raw"

# bad arguments
for args in "--lanes 0" "--codec gzip" "--block 8192"; do
  # shellcheck disable=SC2086
  if "$RTL" pack "$ST" -o "$T/x.img" --as bf16 $args >/dev/null 2>"$T/err.txt"; then
    bad "pack $args accepted"
  elif [ "$(grep -vc '^\[seed\]' "$T/err.txt")" -ne 1 ]; then
    bad "pack $args: stderr: $(cat "$T/err.txt")"
  fi
done
if "$RTL" pack "$ST" -o "$T/x.img" >/dev/null 2>"$T/err.txt"; then
  bad "pack of FP32 tensors without --as bf16 accepted"
elif ! grep -q 'use --as bf16' "$T/err.txt"; then
  bad "FP32 model: stderr: $(cat "$T/err.txt")"
fi
[ "$fails" -eq 0 ] && echo "pack: every check passed" || exit 1
