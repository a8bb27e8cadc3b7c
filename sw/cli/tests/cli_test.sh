#!/usr/bin/env bash
# End-to-end checks of the ndp CLI. Usage: cli_test.sh NDP DATA_DIR
set -uo pipefail
NDP=$1
DATA=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }

# Expect a non-zero exit and exactly one line on stderr.
expect_error() {
  local what=$1; shift
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$T/err")
  if [ $rc -ne 0 ] && [ "$lines" -eq 1 ]; then ok; else bad "$what: rc=$rc, stderr lines=$lines: $(head -3 "$T/err")"; fi
}

# 1. Build an input with the demo model's generator through pack of a safetensors file written by unpack.
"$NDP" demo --keep "$T/demo.ndpi" >"$T/demo.log" 2>&1 && ok || bad "demo: $(tail -3 "$T/demo.log")"
grep -q "every check passed" "$T/demo.log" && ok || bad "demo did not report success"
"$NDP" verify "$T/demo.ndpi" >/dev/null && ok || bad "verify of a fresh image"
"$NDP" unpack "$T/demo.ndpi" -o "$T/demo.safetensors" >/dev/null && ok || bad "unpack to safetensors"
# Re-pack the unpacked file: the image must be byte-identical (deterministic encoder, lossless unpack).
"$NDP" pack "$T/demo.safetensors" -o "$T/demo2.ndpi" >/dev/null && ok || bad "pack of unpacked safetensors"
cmp -s "$T/demo.ndpi" "$T/demo2.ndpi" && ok || bad "re-packed image differs from the original image"
# Regions: output sizes follow the spec (e8m3: 2 bytes/elt, fp8: 1, fp4: 1/2).
"$NDP" read "$T/demo.ndpi" --region full -o "$T/full.bin" >/dev/null && ok || bad "read full"
"$NDP" unpack "$T/demo.ndpi" --raw -o "$T/raw.bin" >/dev/null && ok || bad "unpack --raw"
cmp -s "$T/full.bin" "$T/raw.bin" && ok || bad "region full differs from unpack --raw"
n=$(( $(stat -c %s "$T/raw.bin") / 2 ))
"$NDP" read "$T/demo.ndpi" --region fp8-e4m3 --guard 1 -o "$T/fp8.bin" >/dev/null && ok || bad "read fp8"
[ "$(stat -c %s "$T/fp8.bin")" -eq "$n" ] && ok || bad "fp8 region size $(stat -c %s "$T/fp8.bin") != $n"
"$NDP" read "$T/demo.ndpi" --region e8m3 -o "$T/e8m3.bin" >/dev/null && ok || bad "read e8m3"
[ "$(stat -c %s "$T/e8m3.bin")" -eq $((2 * n)) ] && ok || bad "e8m3 region size"
"$NDP" analyze "$T/demo.safetensors" --json --plot "$T/p.svg" >"$T/a.json" && ok || bad "analyze --json"
tail -1 "$T/a.json" | python3 -c 'import json,sys; t=json.load(sys.stdin)["total"]; assert t["ratio"]["device"] > 1.3, t' && ok || bad "analyze JSON total"
grep -q "<svg" "$T/p.svg" && ok || bad "plot written"
# Quantized bases: the Linear weights become FP8 / INT4 with their scales, the rest BF16; the
# per-dtype totals carry the base's own figures.
for as in fp8-e4m3 int4; do
  "$NDP" analyze "$T/demo.safetensors" --as $as --json >"$T/q.json" && ok || bad "analyze --as $as"
  tail -1 "$T/q.json" | python3 -c '
import json, sys
as_ = sys.argv[1]
d = json.load(sys.stdin)
f = d["by_dtype"][as_]
assert f["elements"] > 0 and 0.9 < f["ratio"]["device"] < 2.0, f
assert any(t["name"].endswith("_scale") for t in d["tensors"])
if as_ == "fp8-e4m3": assert f["entropy_reference_ratio"] > 1.0, f
' $as && ok || bad "analyze --as $as JSON"
done
"$NDP" pack "$T/demo.safetensors" --as fp8-e4m3 -o "$T/fp8.ndpi" >/dev/null && ok || bad "pack --as fp8-e4m3"
"$NDP" verify "$T/fp8.ndpi" >/dev/null && ok || bad "verify of an fp8 image"

# 2. Errors: one clear line, non-zero exit.
expect_error "missing file" "$NDP" analyze "$T/does-not-exist.bin"
expect_error "unknown format" "$NDP" analyze "$T/demo.safetensors" --format nope
expect_error "unknown base type" "$NDP" analyze "$T/demo.safetensors" --as fp8-e5m2
expect_error "bad group" "$NDP" analyze "$T/demo.safetensors" --as int4 --group 0
expect_error "unknown region" "$NDP" read "$T/demo.ndpi" --region fp7 -o "$T/x"
expect_error "bad guard" "$NDP" read "$T/demo.ndpi" --region e8m3 --guard 5 -o "$T/x"
expect_error "bad codec" "$NDP" pack "$T/demo.safetensors" --codec lzma -o "$T/x"
expect_error "not an image" "$NDP" verify "$T/demo.safetensors"
head -c 1000 "$T/demo.ndpi" >"$T/trunc.ndpi"
expect_error "truncated image" "$NDP" verify "$T/trunc.ndpi"
head -c 3000 "$T/demo.safetensors" >"$T/trunc.safetensors"
expect_error "truncated safetensors" "$NDP" analyze "$T/trunc.safetensors"
"$NDP" nosuchcommand >/dev/null 2>&1; [ $? -ne 0 ] && ok || bad "unknown command exit code"

# 2b. Issue 15: every subcommand answers --help with its usage (stdout, exit 0); numeric options are
# range-checked on the full value (2^32 + 4096 was read as 4096); an exception (here std::bad_alloc
# under a 64 MiB address-space limit) is one line on stderr and exit 1, not an abort.
"$NDP" --help >"$T/help" && ok || bad "ndp --help"
for c in analyze analyze-kv demo kvtrace pack unpack read verify "place topo" "place plan" "place bench"; do
  grep -q "^  $c " "$T/help" || continue  # command not built in this configuration
  # shellcheck disable=SC2086
  "$NDP" $c --help >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && head -1 "$T/out" | grep -q "^usage: ndp $c "; then ok; else
    bad "$c --help: rc=$rc $(head -2 "$T/err" "$T/out")"; fi
done
if grep -q "^  place " "$T/help"; then
  "$NDP" place --help | grep -q "place plan" && ok || bad "place --help lists the place commands"
fi
expect_error "--block 2^32+4096 (analyze)" "$NDP" analyze "$T/demo.safetensors" --block 4294971392
grep -q "4294971392" "$T/err" && ok || bad "range error names the value: $(cat "$T/err")"
expect_error "--block 2^32+4096 (pack)" "$NDP" pack "$T/demo.safetensors" --block 4294971392 -o "$T/x"
expect_error "--guard 2^64" "$NDP" read "$T/demo.ndpi" --region e8m3 --guard 18446744073709551616 -o "$T/x"
expect_error "--block -8" "$NDP" pack "$T/demo.safetensors" --block -8 -o "$T/x"
expect_error "image over --max-bytes" "$NDP" pack "$T/demo.safetensors" --max-bytes 100000 -o "$T/x"
grep -q "would exceed its limit of 100000 bytes" "$T/err" && ok || bad "--max-bytes message: $(cat "$T/err")"
"$NDP" pack "$T/demo.safetensors" --max-bytes "$(stat -c %s "$T/demo.ndpi")" -o "$T/x" >/dev/null && ok ||
  bad "pack with --max-bytes equal to the image size"
# grep -c reads all its input: with pipefail, grep -q could stop early and fail the pipe (SIGPIPE).
if [ "$( (ldd "$NDP"; nm "$NDP") 2>/dev/null | grep -c 'libasan\|__asan_init')" -gt 0 ]; then
  echo "SKIP bad_alloc check: sanitizer build (ulimit -v breaks ASan)"
else
  # A 64 MiB all-zero BF16 tensor packs to a small image; unpacking it needs 64 MiB.
  python3 - "$T/zeros.safetensors" <<'PY'
import json, struct, sys
n = 32 << 20
h = json.dumps({"z": {"dtype": "BF16", "shape": [n], "data_offsets": [0, 2 * n]}}).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    f.truncate(8 + len(h) + 2 * n)
PY
  "$NDP" pack "$T/zeros.safetensors" -o "$T/zeros.ndpi" >/dev/null && ok || bad "pack of the zero tensor"
  rm -f "$T/zeros.safetensors"
  expect_error "out of memory" bash -c "ulimit -v 65536; exec \"\$0\" unpack \"\$1\" --raw -o \"\$2\"" \
    "$NDP" "$T/zeros.ndpi" "$T/x"
  grep -q "^ndp unpack: out of memory" "$T/err" && ok || bad "bad_alloc message: $(head -2 "$T/err")"
fi

# An error quoting a name read from a file stays one line (control bytes escaped).
python3 - "$T/nl.safetensors" <<'PY'
import json, struct, sys
h = json.dumps({"a\nb": {"dtype": "I8", "shape": [1], "data_offsets": [0, 1]}}).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h + b"\0")
PY
expect_error "newline in a tensor name" "$NDP" analyze "$T/nl.safetensors"
grep -qF "tensor 'a\nb'" "$T/err" && ok || bad "escaped name: $(cat "$T/err")"

# 3. A flipped payload byte: verify names the bad block and exits non-zero; other reads still fail
# cleanly rather than returning wrong data.
cp "$T/demo.ndpi" "$T/flip.ndpi"
python3 - "$T/flip.ndpi" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[200000] ^= 0x10   # inside chunk data (the first tensor's blocks)
open(p, 'wb').write(b)
PY
"$NDP" verify "$T/flip.ndpi" >/dev/null 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && grep -q "bad block" "$T/err" && ok || bad "verify of a corrupted image: rc=$rc $(head -2 "$T/err")"
"$NDP" unpack "$T/flip.ndpi" -o "$T/x" >/dev/null 2>&1; [ $? -ne 0 ] && ok || bad "unpack of a corrupted image succeeded"

# 4. Real data when present.
if [ -f "$DATA/stories260K/stories260K.bin" ]; then
  "$NDP" pack "$DATA/stories260K/stories260K.bin" --as bf16 -o "$T/s.ndpi" >/dev/null && ok || bad "pack stories260K"
  "$NDP" verify "$T/s.ndpi" >/dev/null && ok || bad "verify stories260K"
  for r in e8m0 e8m5 fp8-e5m2 fp6-e3m2 fp6-e2m3 mxfp8 mxfp4; do
    "$NDP" read "$T/s.ndpi" --region $r --guard 2 -o "$T/r.bin" >/dev/null && ok || bad "read $r"
  done
else
  echo "SKIP real-data part: $DATA absent"
fi

echo "$pass passed, $failn failed"
[ $failn -eq 0 ] && [ $pass -gt 0 ]
