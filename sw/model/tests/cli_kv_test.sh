#!/usr/bin/env bash
# End-to-end test of `ndp kvtrace` and `ndp analyze-kv` on the real stories260K checkpoint.
# usage: cli_kv_test.sh NDP DATA_DIR WORKDIR      (exit 77 = skipped: real data absent)
set -euo pipefail
ndp=$1 data=$2 work=$3
model=$data/stories260K/stories260K.bin
[ -f "$model" ] || { echo "SKIP: $model not found (../shared/data absent)"; exit 77; }
mkdir -p "$work"
trace=$work/s260.nkvt

"$ndp" kvtrace "$model" -o "$trace" --tokens 96 --seed 7
# 64-byte header + name + 96 token ids + 5 layers x 2 x 4 heads x 96 x 8 x 2 bytes
size=$(stat -c %s "$trace")
[ "$size" -eq $((64 + 15 + 4 * 96 + 5 * 2 * 4 * 96 * 8 * 2)) ] || { echo "unexpected trace size $size"; exit 1; }
# Same seed, same trace; another seed, another trace.
"$ndp" kvtrace "$model" -o "$work/again.nkvt" --tokens 96 --seed 7
cmp "$trace" "$work/again.nkvt"
"$ndp" kvtrace "$model" -o "$work/other.nkvt" --tokens 96 --seed 8
if cmp -s "$trace" "$work/other.nkvt"; then echo "seed has no effect"; exit 1; fi
# A prompt is prefilled: the first tokens of the trace are the prompt's.
printf '1 306 462\n435' > "$work/prompt.txt"
"$ndp" kvtrace "$model" -o "$work/prompt.nkvt" --tokens 16 --prompt "$work/prompt.txt"

"$ndp" analyze-kv "$trace" --json > "$work/a.json"
"$ndp" analyze-kv "$trace" --window 16 --heads 4 > "$work/a.txt"
grep -q "device image read back bit-exact: yes" "$work/a.txt"
python3 - "$work/a.json" "$work/prompt.nkvt" <<'PY'
import json, struct, sys
d = json.load(open(sys.argv[1]))
r = d["total"]["ratio"]
for k in ("lz4_token_major", "zstd_token_major", "lz4_window", "zstd_window", "device"):
    assert 0.5 < r[k] < 4.0, (k, r[k])
assert d["options"]["verified"] is True
assert len(d["layers"]) == 5
assert d["total"]["raw_bytes"] == 5 * 2 * 4 * 96 * 8 * 2
assert sum(l["total"]["raw_bytes"] for l in d["layers"]) == d["total"]["raw_bytes"]
b = open(sys.argv[2], "rb").read()
n = struct.unpack_from("<H", b, 44)[0]
toks = struct.unpack_from("<4I", b, 64 + n)
assert toks == (1, 306, 462, 435), toks
print("analyze-kv totals:", r)
PY

# Errors: one line on stderr, non-zero exit, no crash.
expect_fail() {
  if "$@" > "$work/err.out" 2> "$work/err.txt"; then echo "expected failure: $*"; exit 1; fi
  grep -q "^ndp " "$work/err.txt" || { echo "no error message for: $*"; cat "$work/err.txt"; exit 1; }
}
expect_fail "$ndp" analyze-kv "$trace" --heads 3
expect_fail "$ndp" analyze-kv "$trace" --window 0
expect_fail "$ndp" analyze-kv "$work/missing.nkvt"
head -c 1000 "$trace" > "$work/short.nkvt"
expect_fail "$ndp" analyze-kv "$work/short.nkvt"
expect_fail "$ndp" kvtrace "$model" -o "$work/x.nkvt" --tokens 513
expect_fail "$ndp" kvtrace "$model" -o "$work/x.nkvt" --seed 0
printf '1 2 99999' > "$work/bad_prompt.txt"
expect_fail "$ndp" kvtrace "$model" -o "$work/x.nkvt" --prompt "$work/bad_prompt.txt"
expect_fail "$ndp" kvtrace "$work/prompt.txt" -o "$work/x.nkvt"
echo "cli_kv_test: ok"
