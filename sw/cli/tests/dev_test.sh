#!/usr/bin/env bash
# End-to-end checks of `ndp dev` (the host driver from the command line, docs/driver.md):
# dev read on every backend writes the bytes of `ndp read` and a last-line JSON object; errors are
# one line on stderr with exit 1 (and the JSON status "error"); bench, tensors, a node daemon
# serving several commands, demo. Usage: dev_test.sh NDP DATA_DIR
set -uo pipefail
NDP=$1
DATA=$2
T=$(mktemp -d)
SOCK="@ndp-clitest-$$"
export NDP_EMU_SOCKET="@ndp-clitest-auto-$$"   # `emu` starts its own node here, not on the user's socket
cleanup() {
  "$NDP" dev daemon --stop --socket "$SOCK" >/dev/null 2>&1
  "$NDP" dev daemon --stop --socket "$NDP_EMU_SOCKET" >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }
expect_error() {
  local what=$1; shift
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$T/err")
  if [ $rc -eq 1 ] && [ "$lines" -eq 1 ]; then ok; else bad "$what: rc=$rc, stderr lines=$lines: $(head -3 "$T/err")"; fi
}
# The last stdout line is JSON with the contract's keys; $2 is the expected status.
check_json() {
  tail -1 "$1" | python3 -c '
import json, sys
j = json.load(sys.stdin)
for k in ("backend", "host_bytes", "device_bytes", "seconds", "status"):
    assert k in j, k
assert j["status"] == sys.argv[1], j
if j["status"] == "ok":
    assert j["host_bytes"] > 0 and j["device_bytes"] > 0 and j["errors"] == 0, j
' "$2"
}

"$NDP" demo --keep "$T/img.ndpi" >/dev/null 2>&1 && ok || bad "demo --keep"
if [ -f "$DATA/stories260K/stories260K.bin" ]; then
  "$NDP" pack "$DATA/stories260K/stories260K.bin" -o "$T/st.ndpi" >/dev/null && ok || bad "pack stories260K"
fi
truncate -s 256M "$T/dax.img"
"$NDP" dev daemon --socket "$SOCK" >"$T/daemon.log" 2>&1 &
for _ in $(seq 50); do grep -q listening "$T/daemon.log" && break; sleep 0.1; done
grep -q listening "$T/daemon.log" && ok || bad "daemon did not start: $(cat "$T/daemon.log")"

# 1. Same bytes as `ndp read` on every backend, every image, several regions.
for img in "$T"/*.ndpi; do
  for rg in "full 0" "e8m3 2" "fp8-e4m3 1" "fp4-e2m1 0" "mxfp4 1"; do
    set -- $rg
    "$NDP" read "$img" --region "$1" --guard "$2" -o "$T/gold.bin" >/dev/null || { bad "ndp read $1"; continue; }
    for b in emu:inproc "emu:$SOCK" emu "dax:$T/dax.img"; do
      "$NDP" dev read "$img" --backend "$b" --region "$1" --guard "$2" -o "$T/dev.bin" >"$T/json" 2>"$T/err" \
        && ok || bad "dev read $b $1: $(cat "$T/err")"
      cmp -s "$T/gold.bin" "$T/dev.bin" && ok || bad "dev read $b $(basename "$img") $1 g=$2 differs from ndp read"
      check_json "$T/json" ok && ok || bad "dev read $b JSON: $(tail -1 "$T/json")"
    done
  done
done
t=$("$NDP" dev tensors "$T/img.ndpi" --backend emu:inproc | awk 'NR == 3 {print $1}')
"$NDP" read "$T/img.ndpi" --region fp8-e4m3 --guard 1 --tensor "$t" -o "$T/gold.bin" >/dev/null
"$NDP" dev read "$T/img.ndpi" --backend "dax:$T/dax.img" --region fp8-e4m3 --guard 1 --tensor "$t" -o "$T/dev.bin" >/dev/null \
  && cmp -s "$T/gold.bin" "$T/dev.bin" && ok || bad "dev read --tensor $t"

# 2. Errors: one line on stderr, exit 1, the JSON says so.
expect_error "missing device" "$NDP" dev read "$T/img.ndpi" --backend dax:/nonexistent/dax0.0 --region full -o "$T/x"
expect_error "unknown backend" "$NDP" dev read "$T/img.ndpi" --backend nope --region full -o "$T/x"
expect_error "no node" "$NDP" dev read "$T/img.ndpi" --backend emu:@ndp-clitest-none --region full -o "$T/x"
head -c 5000 "$T/img.ndpi" >"$T/trunc.ndpi"
expect_error "truncated image" "$NDP" dev read "$T/trunc.ndpi" --backend "emu:$SOCK" --region full -o "$T/x"
check_json "$T/out" error && ok || bad "truncated image JSON: $(tail -1 "$T/out")"
expect_error "unknown region" "$NDP" dev read "$T/img.ndpi" --backend emu:inproc --region fp7 -o "$T/x"
expect_error "bad guard" "$NDP" dev read "$T/img.ndpi" --backend emu:inproc --region e8m3 --guard 3 -o "$T/x"
expect_error "unknown tensor" "$NDP" dev read "$T/img.ndpi" --backend emu:inproc --region full --tensor nope -o "$T/x"
expect_error "missing -o" "$NDP" dev read "$T/img.ndpi" --backend emu:inproc --region full
truncate -s 64K "$T/small.img"
expect_error "does not fit" "$NDP" dev read "$T/img.ndpi" --backend "dax:$T/small.img" --region full -o "$T/x"
grep -q "does not fit" "$T/err" && ok || bad "does-not-fit message: $(cat "$T/err")"
# A corrupt block: the node reports the tensor/chunk/plane and keeps serving.
cp "$T/img.ndpi" "$T/flip.ndpi"
python3 - "$T/flip.ndpi" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 3] ^= 0x40
open(p, "wb").write(b)
PY
if "$NDP" verify "$T/flip.ndpi" >/dev/null 2>&1; then
  bad "the flipped byte did not corrupt a block"
else
  expect_error "corrupt block" "$NDP" dev read "$T/flip.ndpi" --backend "emu:$SOCK" --region full -o "$T/x"
  grep -q "chunk" "$T/err" && grep -q "plane" "$T/err" && ok || bad "corrupt block message: $(cat "$T/err")"
  "$NDP" dev read "$T/img.ndpi" --backend "emu:$SOCK" --region full -o "$T/x" >/dev/null && ok || bad "node after a corrupt image"
fi

# 2b. A real KV trace through the driver's KV streams: device KV pages on emu (in process and the
# daemon), the golden model on dax; every token back exactly, the device memory ratio within 3 % of
# the golden KV streams' (page headers and 64-byte slots), bad input one line and exit 1. 256 tokens:
# whole windows (a partial last window is still open after the last token: its device slot is
# counted on emu, the node's buffer is not on dax).
if [ -f "$DATA/stories260K/stories260K.bin" ]; then
  "$NDP" kvtrace "$DATA/stories260K/stories260K.bin" -o "$T/t.nkvt" --tokens 256 --seed 7 >/dev/null && ok || bad "kvtrace"
  for b in emu:inproc "emu:$SOCK" "dax:$T/dax.img"; do
    "$NDP" dev kv "$T/t.nkvt" --backend "$b" >"$T/kv" 2>"$T/err" && ok || bad "dev kv $b: $(cat "$T/err")"
    tail -1 "$T/kv" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["status"] == "ok" and j["streams"] == 10 and j["tokens"] == 256 and j["window"] == 128, j
assert j["kv_path"] == ("node" if sys.argv[1].startswith("dax") else "device"), j
assert j["raw_bytes"] == 10 * 256 * 32 * 2, j
assert 0.97 * j["golden_ratio"] <= j["ratio"] <= j["golden_ratio"] + 1e-9 and j["ratio"] > 1.3, j
' "$b" && ok || bad "dev kv $b JSON: $(tail -1 "$T/kv")"
  done
  expect_error "dev kv --heads 3" "$NDP" dev kv "$T/t.nkvt" --backend emu:inproc --heads 3
fi
expect_error "dev kv missing trace" "$NDP" dev kv "$T/none.nkvt" --backend emu:inproc

# 3. bench, tensors, demo; the daemon stops on request.
"$NDP" dev bench "$T/img.ndpi" --backend "dax:$T/dax.img" --seconds 0.05 --threads 2 --regions full,fp8-e4m3:1,mxfp4:1 \
  >"$T/bench" 2>&1 && ok || bad "dev bench: $(tail -3 "$T/bench")"
tail -1 "$T/bench" | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["status"]=="ok" and len(j["regions"])==3 and all(r["read_gbps"]>0 and r["map_gbps"]>0 for r in j["regions"]), j' \
  && ok || bad "dev bench JSON: $(tail -1 "$T/bench")"
"$NDP" dev tensors "$T/img.ndpi" --backend "emu:$SOCK" | grep -q "tok_embeddings" && ok || bad "dev tensors"
"$NDP" dev demo --backend emu:inproc >"$T/demo" 2>&1 && grep -q "every check passed" "$T/demo" && ok || bad "dev demo: $(tail -3 "$T/demo")"
"$NDP" dev daemon --stop --socket "$SOCK" >/dev/null && ok || bad "daemon --stop"
wait
expect_error "stopped node" "$NDP" dev read "$T/img.ndpi" --backend "emu:$SOCK" --region full -o "$T/x"

echo "dev_test: $pass passed, $failn failed"
[ $failn -eq 0 ]
