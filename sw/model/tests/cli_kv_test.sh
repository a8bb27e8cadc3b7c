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

# A GGUF Llama with its SentencePiece tokenizer, written here, and a text prompt tokenized with it:
# "hello world" is <s> ▁ he l lo ▁wor ld = 1 3 11 6 13 18 17 (by the scores below).
python3 - "$work/tiny.gguf" <<'PY'
import random, struct, sys
random.seed(3)
sp = "\u2581"
toks = ["<unk>", "<s>", "</s>", sp, "h", "e", "l", "o", "w", "r", "d", "he", "ll", "lo", sp + "h", sp + "w", "or", "ld", sp + "wor"]
scores = [0, 0, 0] + [-10.0] * 8 + [-1, -2, -0.5, -3, -1.5, -0.7, -2.5, -0.1]
dim, hid, L, H, KV, V, ctx = 8, 16, 1, 2, 1, len(toks), 32
def s(x): b = x.encode(); return struct.pack("<Q", len(b)) + b
kv = [("general.architecture", 8, s("llama")), ("llama.embedding_length", 4, struct.pack("<I", dim)),
      ("llama.block_count", 4, struct.pack("<I", L)), ("llama.attention.head_count", 4, struct.pack("<I", H)),
      ("llama.attention.head_count_kv", 4, struct.pack("<I", KV)), ("llama.feed_forward_length", 4, struct.pack("<I", hid)),
      ("llama.context_length", 4, struct.pack("<I", ctx)), ("llama.rope.freq_base", 6, struct.pack("<f", 10000.0)),
      ("tokenizer.ggml.model", 8, s("llama")),
      ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, V) + b"".join(s(t) for t in toks)),
      ("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, V) + b"".join(struct.pack("<f", x) for x in scores)),
      ("tokenizer.ggml.bos_token_id", 4, struct.pack("<I", 1))]
hs = dim // H
shapes = [("token_embd.weight", [dim, V]), ("blk.0.attn_norm.weight", [dim]), ("blk.0.attn_q.weight", [dim, dim]),
          ("blk.0.attn_k.weight", [dim, KV * hs]), ("blk.0.attn_v.weight", [dim, KV * hs]),
          ("blk.0.attn_output.weight", [dim, dim]), ("blk.0.ffn_norm.weight", [dim]), ("blk.0.ffn_gate.weight", [dim, hid]),
          ("blk.0.ffn_down.weight", [hid, dim]), ("blk.0.ffn_up.weight", [dim, hid]), ("output_norm.weight", [dim])]
out = b"GGUF" + struct.pack("<IQQ", 3, len(shapes), len(kv))
for k, t, v in kv: out += s(k) + struct.pack("<I", t) + v
data, off = b"", 0
for name, ne in shapes:
    n = 1
    for d in ne: n *= d
    blob = b"".join(struct.pack("<f", random.uniform(-0.5, 0.5) + (1.0 if "norm" in name else 0.0)) for _ in range(n))
    out += s(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne) + struct.pack("<IQ", 0, off)
    blob += b"\0" * (-len(blob) % 32)
    data += blob
    off += len(blob)
out += b"\0" * (-len(out) % 32)
open(sys.argv[1], "wb").write(out + data)
PY
printf 'hello world' > "$work/prompt-text.txt"
"$ndp" kvtrace "$work/tiny.gguf" -o "$work/tiny.nkvt" --tokens 12 --prompt-file "$work/prompt-text.txt" > "$work/tiny.log"
python3 - "$work/tiny.nkvt" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<H", b, 44)[0]
T = struct.unpack_from("<I", b, 20)[0]
toks = struct.unpack_from("<%dI" % T, b, 64 + n)
assert T == 12 and toks[:7] == (1, 3, 11, 6, 13, 18, 17), toks
print("GGUF kvtrace prompt tokens:", toks)
PY
"$ndp" analyze-kv "$work/tiny.nkvt" --json > /dev/null

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
expect_fail "$ndp" kvtrace "$model" -o "$work/x.nkvt" --prompt-file "$work/prompt-text.txt"   # llama2.c: no tokenizer
expect_fail "$ndp" kvtrace "$work/tiny.gguf" -o "$work/x.nkvt" --prompt "$work/prompt.txt" --prompt-file "$work/prompt-text.txt"
expect_fail "$ndp" kvtrace "$work/tiny.gguf" -o "$work/x.nkvt" --prompt-file "$work/missing.txt"
echo "cli_kv_test: ok"
