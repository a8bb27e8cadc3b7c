#!/usr/bin/env bash
# make lint: verilator --lint-only -Wall over all RTL (every rtl/*/*.sv, packages first), in one
# run with every block as a top at its default parameters. Waivers live in rtl/lint/waivers.vlt,
# each with a reason; then one run per parameter point in EXTRA (generate branches the defaults
# leave out). Exit status non-zero on any warning or error; prints a per-file summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${LINT_OUT:-build/lint}
mkdir -p "$OUT"
mapfile -t PKGS < <(ls rtl/*/*_pkg.sv 2>/dev/null | sort)
mapfile -t SRCS < <(ls rtl/*/*.sv | grep -v '_pkg\.sv$' | sort)
INCS=()
for d in rtl/*/; do INCS+=("-I${d%/}"); done
echo "lint: verilator $(verilator --version | awk '{print $2}') -Wall over ${#PKGS[@]} packages and ${#SRCS[@]} modules"
set +e
verilator --lint-only -Wall "${INCS[@]}" rtl/lint/waivers.vlt "${PKGS[@]}" "${SRCS[@]}" > "$OUT/lint.log" 2>&1
rc=$?
set -e
if [ $rc -ne 0 ] || grep -q '^%\(Warning\|Error\)' "$OUT/lint.log"; then
  grep -E '^%(Warning|Error)' "$OUT/lint.log" | sed -E 's/^%([A-Za-z-]+): ([^:]+):.*/\2 \1/' | sort | uniq -c || true
  echo "lint: FAILED (full log: $OUT/lint.log)"
  grep -E '^%(Warning|Error)' "$OUT/lint.log" | head -40
  exit 1
fi
# Parameter points whose generate branches the default run does not elaborate.
EXTRA=("codec_lane -GHasZstd=0")
for e in "${EXTRA[@]}"; do
  read -r top params <<< "$e"
  if ! verilator --lint-only -Wall "${INCS[@]}" rtl/lint/waivers.vlt "${PKGS[@]}" "${SRCS[@]}" \
       --top-module "$top" $params > "$OUT/lint-$top.log" 2>&1 || grep -q '^%\(Warning\|Error\)' "$OUT/lint-$top.log"; then
    echo "lint: FAILED for $top $params"
    grep -E '^%(Warning|Error)' "$OUT/lint-$top.log" | head -40
    exit 1
  fi
done
echo "lint: clean (0 warnings, ${#SRCS[@]} modules + ${#EXTRA[@]} parameter point(s); waivers: rtl/lint/waivers.vlt)"
