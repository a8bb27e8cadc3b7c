#!/usr/bin/env bash
# ctest rtl_runner_pack: `ndp-rtl pack` on real models (FP32 -> BF16 by RNE, --as bf16), each run
# next to `ndp pack` with the same options.
# (1) stories260K, 2 lanes, codec auto. The last stdout line is the runner's JSON: status "ok",
#     in_bytes the BF16 bytes `ndp pack` counts, out_bytes the image file's size, bytes_per_cycle =
#     in_bytes / cycles, ndp_pack_ratio what `ndp pack` prints, within the contract's 1% (the lane's
#     dual EXPBYTE candidate: 1.5376 against 1.5374; 1.15% below with the Huffman frame alone); with
#     --tolerance 0 the same run must fail (the ratio check bites). Then the CLI: `ndp verify`
#     accepts the image, `ndp unpack` gives the same safetensors file as from ndp pack's image.
# (2) GPT-2 layer 1 attention (q, k, v, proj), 4 lanes, the contract's 1%: the image is byte-identical
#     to ndp pack's (every EXPBYTE block is the spec 4.3 Huffman frame, every bit-plane RAW).
# (3) stories260K with --codec raw: only CONST and RAW, byte-identical to `ndp pack --codec raw`.
# (4) bad arguments: a non-zero exit and one error line on stderr.
# Usage: pack_test.sh NDP_RTL NDP DATA_DIR; exit 77 (skip) when the data is absent.
set -uo pipefail
RTL=$1
NDP=$2
ST=$3/stories260K/stories260K.bin
GPT=$3/gpt2-small-attn
if [ ! -r "$ST" ] || [ ! -r "$GPT/decoder1/att.query.w.dat" ]; then
  echo "skip: $ST or $GPT not present"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

# pack NAME MODEL [options...]: ndp pack and ndp-rtl pack with the same options, the JSON checked,
# ndp verify and ndp unpack on the RTL's image
pack() {
  local name=$1 model=$2
  shift 2
  local sw=() rtl=() prev=""
  for x in "$@"; do  # --lanes N and --tolerance R are the runner's only
    rtl+=("$x")
    if [ -n "$prev" ]; then
      prev=""
      continue
    fi
    case "$x" in --lanes | --tolerance) prev=$x ;; *) sw+=("$x") ;; esac
  done
  "$NDP" pack "$model" -o "$T/$name.sw.img" --as bf16 "${sw[@]}" >"$T/$name.sw.log" 2>&1 ||
    bad "$name: ndp pack failed: $(tail -1 "$T/$name.sw.log")"
  "$RTL" pack "$model" -o "$T/$name.rtl.img" --as bf16 "${rtl[@]}" >"$T/$name.rtl.log" 2>&1 ||
    bad "$name: ndp-rtl pack exited non-zero: $(tail -3 "$T/$name.rtl.log")"
  echo "$name: $(tail -1 "$T/$name.rtl.log")"
  python3 - "$T/$name.rtl.log" "$T/$name.sw.log" "$(stat -c %s "$T/$name.rtl.img")" <<'PY' || bad "$name: JSON line"
import json, re, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
m = re.search(r'(\d+) raw bytes -> (\d+) image bytes \(ratio ([0-9.]+)\)', open(sys.argv[2]).read())
assert j['status'] == 'ok' and j['image_verified'] == 1 and j['ratio_within_tolerance'] == 1, j['status']
assert j['in_bytes'] == int(m.group(1)), ('in_bytes', j['in_bytes'], m.group(1))
assert j['out_bytes'] == int(sys.argv[3]), 'out_bytes is not the image size'
assert j['cycles'] > 0 and abs(j['bytes_per_cycle'] - j['in_bytes'] / j['cycles']) <= 1e-3 * j['bytes_per_cycle']
assert abs(j['ndp_pack_ratio'] - float(m.group(3))) <= 1e-4, ('ndp_pack_ratio', j['ndp_pack_ratio'], m.group(3))
assert abs(j['ratio'] - j['in_bytes'] / j['out_bytes']) <= 1e-4, 'ratio is not in_bytes / out_bytes'
assert j['identical_image'] == (open(sys.argv[1].replace('.rtl.log', '.rtl.img'), 'rb').read() ==
                                open(sys.argv[1].replace('.rtl.log', '.sw.img'), 'rb').read()), 'identical_image'
PY
  "$NDP" verify "$T/$name.rtl.img" >"$T/$name.verify.log" 2>&1 || bad "$name: ndp verify: $(tail -1 "$T/$name.verify.log")"
  "$NDP" unpack "$T/$name.rtl.img" -o "$T/$name.rtl.st" >/dev/null 2>&1 || bad "$name: ndp unpack of the RTL image failed"
  "$NDP" unpack "$T/$name.sw.img" -o "$T/$name.sw.st" >/dev/null 2>&1 || bad "$name: ndp unpack of ndp pack's image failed"
  cmp -s "$T/$name.rtl.st" "$T/$name.sw.st" || bad "$name: ndp unpack of the RTL image differs from ndp pack's"
}
field() { tail -1 "$T/$1.rtl.log" | python3 -c "import json,sys; print(json.loads(sys.stdin.read())['$2'])"; }

# (1)
pack st "$ST" --lanes 2
[ "$(field st lanes)" = 2 ] && [ "$(field st huffman_blocks)" -gt 0 ] && [ "$(field st raw_blocks)" -gt 0 ] ||
  bad "st: lanes / block mix"
python3 -c "import sys; sys.exit(not 1.5 < float(sys.argv[1]))" "$(field st ratio)" || bad "st: ratio"
if "$RTL" pack "$ST" -o "$T/tight.img" --as bf16 --lanes 2 --tolerance 0 >"$T/tight.log" 2>&1; then
  bad "a ratio outside --tolerance 0 passed"
else
  tail -1 "$T/tight.log" | grep -q '"status": "error".*"image_verified": 1, "ratio_within_tolerance": 0' ||
    bad "--tolerance 0: $(tail -1 "$T/tight.log")"
fi
# (2)
pack gpt "$GPT" --match 'decoder1/att\.(query|key|value|proj)\.w' --lanes 4
[ "$(field gpt identical_image)" = 1 ] && cmp -s "$T/gpt.rtl.img" "$T/gpt.sw.img" || bad "gpt: image not identical to ndp pack's"
# (3)
pack raw "$ST" --lanes 1 --codec raw
cmp -s "$T/raw.rtl.img" "$T/raw.sw.img" || bad "raw: the RTL image is not byte-identical to ndp pack --codec raw"
[ "$(field raw lz4_blocks)$(field raw zstd_blocks)" = 00 ] || bad "raw: compressed blocks under --codec raw"

# (4)
for args in "--lanes 0" "--codec gzip" "--block 8192" "--match ("; do
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
