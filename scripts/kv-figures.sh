#!/usr/bin/env bash
# Regenerates the tables of docs/results/kv.md sections 2-3 (KV compression of real traces).
# usage: scripts/kv-figures.sh NDP [DATA_DIR] [WORKDIR]
#   NDP       the ndp binary (build/sw/cli/ndp)
#   DATA_DIR  ../shared/data (default)
# Records stories260K traces at seeds 4242, 1 and 7 with temperature 1 (run.c defaults) and one
# greedy trace (temperature 0: the seed does not change it), runs `ndp analyze-kv --json` on each
# at the default geometry for every base choice and over a geometry sweep, and prints Markdown.
set -euo pipefail
ndp=$1
data=${2:-../shared/data}
work=${3:-$(mktemp -d)}
model=$data/stories260K/stories260K.bin
[ -f "$model" ] || { echo "no $model" >&2; exit 1; }
mkdir -p "$work"
traces=()
for s in 4242 1 7; do
  "$ndp" kvtrace "$model" -o "$work/t1-s$s.nkvt" --seed "$s" > /dev/null
  traces+=("t1-s$s")
done
"$ndp" kvtrace "$model" -o "$work/t0.nkvt" --seed 4242 --temperature 0 > /dev/null
traces+=(t0)

for t in "${traces[@]}"; do
  "$ndp" analyze-kv "$work/$t.nkvt" --json > "$work/$t.default.json"
  "$ndp" analyze-kv "$work/$t.nkvt" --layout bitplane --json > "$work/$t.bitplane.json"
  for g in "32 1" "32 4" "64 4" "128 1" "128 4" "256 4" "512 1" "512 4"; do
    set -- $g
    "$ndp" analyze-kv "$work/$t.nkvt" --window "$1" --heads "$2" --json > "$work/$t.w$1h$2.json"
  done
done

python3 - "$work" "${traces[@]}" <<'PY'
import json, sys
work, traces = sys.argv[1], sys.argv[2:]
load = lambda t, s: json.load(open(f"{work}/{t}.{s}.json"))
label = {"t0": "T=0 (greedy, any seed)"}
lab = lambda t: label[t] if t in label else "T=1 seed " + t.split("-s")[1]
def spread(vals):
    return f"{sum(vals)/len(vals):.3f} ({min(vals):.3f}-{max(vals):.3f})"

print("### Base choice at the default geometry (per-window exponent entropy, bits/element; device ratio)\n")
print("| trace | " + " | ".join(f"{b} K / V" for b in ("max", "min", "median", "zero")) +
      " | " + " | ".join(f"device {b}" for b in ("max", "min", "median", "zero")) + " |")
print("|---" * 9 + "|")
for t in traces:
    d = load(t, "default")
    L = d["layers"]
    def ent(kind, b):
        n = sum(l[kind]["raw_bytes"] for l in L)
        return sum(l[kind]["bases"][b]["exp_entropy_bits"] * l[kind]["raw_bytes"] for l in L) / n
    tb = d["total"]["bases"]
    print(f"| {lab(t)} | " + " | ".join(f"{ent('k', b):.3f} / {ent('v', b):.3f}" for b in ("max", "min", "median", "zero")) +
          " | " + " | ".join(f"{tb[b]['device_ratio']:.3f}" for b in ("max", "min", "median", "zero")) + " |")

print("\n### Base choice, bitplane layout, default geometry (device ratio)\n")
print("| trace | max | min | median | zero | ZSTD planes (no window) |")
print("|---|---|---|---|---|---|")
for t in traces:
    d = load(t, "bitplane")["total"]
    print(f"| {lab(t)} | " + " | ".join(f"{d['bases'][b]['device_ratio']:.3f}" for b in ("max", "min", "median", "zero")) +
          f" | {d['ratio']['zstd_planes_token_major']:.3f} |")

print("\n### Geometry sweep (totals; mean over the traces, range in brackets)\n")
print("| W | H | elements per window | device (base max) | device (base min) | ZSTD token-major | ZSTD planes (no window) | ZSTD window |")
print("|---|---|---|---|---|---|---|---|")
for g in ("32 1", "32 4", "64 4", "128 1", "128 4", "256 4", "512 1", "512 4"):
    w, h = g.split()
    ds = [load(t, f"w{w}h{h}")["total"] for t in traces]
    c = ds[0]
    elems = int(w) * int(h) * load(traces[0], "default")["trace"]["head_dim"]
    col = lambda k: spread([d["ratio"][k] for d in ds])
    print(f"| {w} | {h} | {elems} | {spread([d['bases']['max']['device_ratio'] for d in ds])} | {spread([d['bases']['min']['device_ratio'] for d in ds])} | "
          f"{col('zstd_token_major')} | {col('zstd_planes_token_major')} | {col('zstd_window')} |")

print("\n### Default geometry, every trace (totals)\n")
print("| trace | W x H | device | entropy reference | ZSTD token-major | LZ4 token-major | ZSTD planes (no window) | device / ZSTD token-major |")
print("|---|---|---|---|---|---|---|---|")
for t in traces:
    d = load(t, "default")
    r, o = d["total"]["ratio"], d["options"]
    ref = d["total"]["bases"][o["base"]]["entropy_reference"]
    print(f"| {lab(t)} | {o['window']} x {o['heads_per_window']} | {r['device']:.3f} | {ref:.3f} | {r['zstd_token_major']:.3f} | "
          f"{r['lz4_token_major']:.3f} | {r['zstd_planes_token_major']:.3f} | {r['device']/r['zstd_token_major']:.3f} |")

t = traces[0]
d = load(t, "default")
print(f"\n### Per layer and K/V, default geometry ({lab(t)}; other traces in brackets: range)\n")
print("| layer | device | ZSTD token-major | ZSTD planes (no window) | LZ4 window | ZSTD window | exponent plane | sign plane | mantissa planes |")
print("|---|---|---|---|---|---|---|---|---|")
others = [load(x, "default") for x in traces[1:]]
def plane_ratio(z, names):
    raw = sum(z["planes"][n]["raw_bytes"] for n in names if n in z["planes"])
    st = sum(z["planes"][n]["stored_bytes"] for n in names if n in z["planes"])
    return raw / st if st else 0
man = ["b%d" % i for i in range(7)]
for i, l in enumerate(d["layers"] + [None]):
    for kind in (("k", "v") if l else ("total",)):
        z = l[kind] if l else d["total"]
        name = f"{l['layer']} {kind.upper()}" if l else "**total**"
        oth = [(o["layers"][i][kind] if l else o["total"])["ratio"]["device"] for o in others]
        r = z["ratio"]
        print(f"| {name} | {r['device']:.3f} [{min(oth):.3f}-{max(oth):.3f}] | {r['zstd_token_major']:.3f} | "
              f"{r['zstd_planes_token_major']:.3f} | {r['lz4_window']:.3f} | {r['zstd_window']:.3f} | "
              f"{plane_ratio(z, ['expbyte']):.3f} | {plane_ratio(z, ['b15']):.3f} | {plane_ratio(z, man):.3f} |")
PY
