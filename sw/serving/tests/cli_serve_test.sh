#!/usr/bin/env bash
# End-to-end checks of `ndp serve-model`. Usage: cli_serve_test.sh NDP
set -uo pipefail
NDP=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }

# 1. The contract: the last line of --json is one object with tok_s and max_context per design
# (baseline included) per context, inputs with a source each, and status.
"$NDP" serve-model --json >"$T/out.json" 2>"$T/err" && ok || bad "serve-model --json: $(head -2 "$T/err")"
tail -1 "$T/out.json" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["status"] == "ok", j["status"]
modes = ["baseline", "full", "e8m3", "fp8-e4m3", "mxfp4", "5bit"]
for m in modes:
    assert len(j["tok_s"][m]) == len(j["contexts"]) == 8, m
    assert isinstance(j["max_context"][m], int) and j["max_context"][m] > 0, m
for name, v in j["inputs"].items():
    assert v["source"] and isinstance(v["value"], (int, float)), name
assert j["inputs"]["gpu.hbm_gbps"]["source"].startswith("NVIDIA H100"), j["inputs"]["gpu.hbm_gbps"]
assert "ndp analyze" in j["inputs"]["ratio.weights"]["source"]
assert "ndp analyze-kv" in j["inputs"]["ratio.kv"]["source"]
' && ok || bad "JSON contract"

# 2. The paper reproduction of docs/results/serving.md: 5-bit mode faster than the baseline at 65k,
# the tier-full point later.
"$NDP" serve-model --figures paper --mode 5bit --context 65536 --batch 4 --cxl-gb 274.877906944 \
  --policy weights-first --set serve.tier_weight_copy=1 --json --plot "$T/p.svg" >"$T/paper.json" && ok || bad "paper run"
tail -1 "$T/paper.json" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["speedup_vs_baseline"]["5bit"][0] > 1.3, j["speedup_vs_baseline"]
assert j["max_context"]["5bit"] > j["max_context"]["baseline"] > 65536, j["max_context"]
assert j["inputs"]["serve.batch"]["source"] == "command line (--batch)"
' && ok || bad "paper reproduction JSON"
grep -q "tier full at [0-9]*: 5bit" "$T/p.svg" && ok || bad "plot marks the tier-full point"
"$NDP" serve-model --preset llama3.1-8b --mode fp8-e4m3 >"$T/text" && grep -q "tier-full point" "$T/text" && ok \
  || bad "text output"

# Repeated list options add up: --mode a --mode b, --set x --set y, and modes separated by spaces.
"$NDP" serve-model --mode 5bit --mode fp8-e4m3 mxfp4 --context 8192 --context 65536 \
  --set serve.batch=2 --set serve.page_tokens=16 --json | tail -1 | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["designs"] == ["baseline", "5bit", "fp8-e4m3", "mxfp4"], j["designs"]
assert j["contexts"] == [8192, 65536], j["contexts"]
assert j["inputs"]["serve.batch"]["value"] == 2 and j["inputs"]["serve.page_tokens"]["value"] == 16
' && ok || bad "repeated list options"

# 3. A Hugging Face config.json and measurement files as inputs.
cat >"$T/config.json" <<'JSON'
{"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
 "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "head_dim": 64,
 "max_position_embeddings": 131072, "tie_word_embeddings": true, "torch_dtype": "bfloat16"}
JSON
cat >"$T/kv.json" <<'JSON'
{"trace": {"model": "t"}, "options": {"window": 32, "heads_per_window": 4},
 "total": {"raw_bytes": 1000, "stored_bytes": {"device": 500}}}
JSON
"$NDP" serve-model --config "$T/config.json" --kv-json "$T/kv.json" --json | tail -1 | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["inputs"]["model.layers"]["value"] == 16 and "config.json" in j["inputs"]["model.layers"]["source"]
assert j["inputs"]["ratio.kv"]["value"] == 2.0
' && ok || bad "config.json input"

# 4. Bad input: one line on stderr, exit 1, and under --json a last line with status error.
expect_error() {
  local what=$1; shift
  "$NDP" serve-model "$@" >"$T/out" 2>"$T/err"
  local rc=$? lines
  lines=$(wc -l <"$T/err")
  if [ $rc -eq 1 ] && [ "$lines" -eq 1 ]; then ok; else bad "$what: rc=$rc, stderr lines=$lines: $(head -3 "$T/err")"; fi
  { "$NDP" serve-model "$@" --json 2>/dev/null || true; } | tail -1 | python3 -c '
import json, sys
assert json.loads(sys.stdin.read())["status"] == "error"' && ok || bad "$what: --json status"
}
expect_error "unknown preset" --preset llama9
expect_error "unknown mode" --mode fp7
expect_error "zero context" --context 0,100
expect_error "mode twice" --mode 5bit,5bit
expect_error "missing config" --config "$T/none.json"
expect_error "preset and config" --preset llama3.1-8b --config "$T/config.json"
expect_error "unknown input" --set gpu.hbm=1
expect_error "bad guard" --guard 5
expect_error "bad policy" --policy random
expect_error "bad figures" --figures mine
expect_error "HBM too small" --set gpu.hbm_gb=1
printf '{not json' >"$T/bad.json"
expect_error "bad weights json" --weights-json "$T/bad.json"

echo "serve-model: $pass passed, $failn failed"
[ $failn -eq 0 ]
