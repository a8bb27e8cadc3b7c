#!/usr/bin/env bash
# Randomized sweep of the seeded ctest tests (run by `make fuzz`): plain ctest runs use each test's
# fixed default seed; this runs the sw and rtl labels again with random NDP_SEED values, prints each
# value, and on a failure names the seed so `NDP_SEED=<n> ctest -R <test>` repeats it.
#   bash scripts/seed-sweep.sh BUILD [ROUNDS]     (default 3 rounds; skips when BUILD is not built)
set -uo pipefail
build="${1:?usage: $0 BUILD [ROUNDS]}"
rounds="${2:-3}"
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "seed-sweep: $build is not a configured build: skipping (run make build first)"
  exit 0
fi
failed=0
for ((i = 1; i <= rounds; i++)); do
  seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  echo "seed-sweep: round $i/$rounds NDP_SEED=$seed"
  if ! NDP_SEED="$seed" ctest --test-dir "$build" -L 'sw|rtl' -LE qemu -j "$(nproc)" --output-on-failure >"$build/seed-sweep-$seed.log" 2>&1; then
    grep -E "\*\*\*Failed|Failed  " "$build/seed-sweep-$seed.log" | head -20
    echo "seed-sweep: FAILED with NDP_SEED=$seed (log $build/seed-sweep-$seed.log)"
    failed=1
  fi
done
[ "$failed" -eq 0 ] && echo "seed-sweep: $rounds rounds passed"
exit "$failed"
