#!/usr/bin/env bash
# ctest rtl_runner_zstd_encode: `ndp-rtl zstd-encode` on real data. (1) the contract form
# `zstd-encode IN OUT`: IN the first 150000 bytes of GPT-2 layer 1 att.query.w (a 3-block frame in
# sequences mode), and the same with --huffman; (2) the plane form on stories260K: every EXPBYTE
# plane (--plane expbyte --huffman) and every bit-plane 3; (3) every bit-plane 10 with --hash-bytes 8
# (the HashBytes = 8 build). Each OUT must decode with the `zstd` CLI
# back to IN (plane form: to the planes, which `ndp-rtl` does not write; there the JSON's
# status "ok" says libzstd decoded every frame to its plane), and the last stdout line must be the
# runner's JSON with status "ok" (RTL frames byte for byte the golden model's), in_bytes/out_bytes
# consistent with the files and bytes_per_cycle = in_bytes / cycles.
# Usage: zstd_encode_test.sh NDP_RTL DATA_DIR; exit 77 (skip) when the data is absent.
set -uo pipefail
RTL=$1
DATA=$2
GPT=$DATA/gpt2-small-attn/decoder1/att.query.w.dat
ST=$DATA/stories260K/stories260K.bin
if [ ! -r "$GPT" ] || [ ! -r "$ST" ]; then
  echo "skip: $GPT or $ST not present"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

# check_json NAME IN_BYTES OUT_FILE: the runner's last line.
check_json() {
  local json
  json=$(tail -1 "$T/$1.log")
  echo "$1: $json"
  python3 - "$json" "$2" "$(stat -c %s "$3")" <<'EOF' || bad "$1: JSON line $json"
import json, sys
j = json.loads(sys.argv[1])
assert j['status'] == 'ok', j['status']
assert j['in_bytes'] == int(sys.argv[2]), 'in_bytes'
assert j['out_bytes'] == int(sys.argv[3]), 'out_bytes'
assert j['cycles'] > 0 and abs(j['bytes_per_cycle'] - j['in_bytes'] / j['cycles']) <= 1e-3 * j['bytes_per_cycle']
EOF
}

# (1) IN OUT [--huffman]: the frame decodes with the zstd CLI to IN
head -c 150000 "$GPT" >"$T/in.bin"
for mode in sequences huffman; do
  flag=()
  [ $mode = huffman ] && flag=(--huffman)
  if ! "$RTL" zstd-encode "$T/in.bin" "$T/$mode.zst" "${flag[@]}" >"$T/$mode.log" 2>&1; then
    bad "$mode: ndp-rtl exited non-zero: $(tail -2 "$T/$mode.log")"
    continue
  fi
  check_json $mode 150000 "$T/$mode.zst"
  if ! zstd -q -d -c "$T/$mode.zst" >"$T/$mode.dec" 2>"$T/$mode.err"; then
    bad "$mode: zstd -d: $(head -1 "$T/$mode.err")"
  elif ! cmp -s "$T/in.bin" "$T/$mode.dec"; then
    bad "$mode: zstd -d output differs from IN"
  fi
done
grep -q '"blocks": 3,' "$T/sequences.log" || bad "150000 bytes in 64 KiB blocks must give 3 blocks"

# (2) real planes: the frames compress (ratio > 1) and the zstd CLI decodes the stream to the
# planes' total size
for p in expbyte 3; do
  flag=()
  [ $p = expbyte ] && flag=(--huffman)
  if ! "$RTL" zstd-encode "$ST" "$T/p$p.zst" --plane $p "${flag[@]}" >"$T/p$p.log" 2>&1; then
    bad "plane $p: ndp-rtl exited non-zero: $(tail -2 "$T/p$p.log")"
    continue
  fi
  inb=$(tail -1 "$T/p$p.log" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["in_bytes"])')
  check_json p$p "$inb" "$T/p$p.zst"
  dec=$(zstd -q -d -c "$T/p$p.zst" | wc -c)
  [ "$dec" = "$inb" ] || bad "plane $p: zstd -d gives $dec bytes, the planes hold $inb"
  [ "$(stat -c %s "$T/p$p.zst")" -lt "$inb" ] || bad "plane $p: real planes did not compress"
done
grep -q '"huffman_blocks": 0,' "$T/p3.log" || bad "sequences mode wrote Huffman blocks"

# (3) the build whose finder hashes 8 bytes (--hash-bytes 8), with Huffman literals, on stories260K's bit-plane 10: frames
# byte for byte its golden model's (status ok), decoded by the zstd CLI
if ! "$RTL" zstd-encode "$ST" "$T/h8.zst" --plane 10 --hash-bytes 8 --huffman-literals >"$T/h8.log" 2>&1; then
  bad "--hash-bytes 8: ndp-rtl exited non-zero: $(tail -2 "$T/h8.log")"
else
  inb=$(tail -1 "$T/h8.log" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["in_bytes"])')
  check_json h8 "$inb" "$T/h8.zst"
  grep -q '"hash_bytes": 8,' "$T/h8.log" || bad "--hash-bytes 8 did not run the 8-byte build"
  grep -q '"huffman_literals": true,' "$T/h8.log" || bad "--hash-bytes 8 did not run with Huffman literals"
  dec=$(zstd -q -d -c "$T/h8.zst" | wc -c)
  [ "$dec" = "$inb" ] || bad "--hash-bytes 8: zstd -d gives $dec bytes, the planes hold $inb"
fi
grep -q '"huffman_blocks": 0,' "$T/pexpbyte.log" && bad "no EXPBYTE plane of stories260K became a Huffman block"

# bad arguments: a non-zero exit and one error line on stderr (besides the runner's seed line)
for args in "--block 0" "--plane 16" "--plane x" "--hash-bytes 5" "--hash-bytes x" "--huffman-literals"; do
  # shellcheck disable=SC2086
  if "$RTL" zstd-encode "$T/in.bin" "$T/x.zst" $args >/dev/null 2>"$T/err.txt"; then
    bad "zstd-encode $args accepted"
  elif [ "$(grep -vc '^\[seed\]' "$T/err.txt")" -ne 1 ]; then
    bad "zstd-encode $args: stderr: $(cat "$T/err.txt")"
  fi
done
[ "$fails" -eq 0 ] && echo "zstd-encode: every check passed" || exit 1
