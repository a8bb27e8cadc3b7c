#!/usr/bin/env bash
# Build every libFuzzer target (sw/fuzz/fuzz_*.cc) in build-fuzz with clang and run each for a
# bounded time. Fails on any crash, leak, timeout or out-of-memory; prints executions per target.
#   bash scripts/run-fuzz.sh short   # ~20 s per target, at most ~170 s of fuzzing in total (make test)
#   bash scripts/run-fuzz.sh long    # 10 min per target (make fuzz)
# Installs nothing. Skips (exit 0) when clang or the libFuzzer runtime is missing.
# Environment: FUZZ_BUILD (build folder, default build-fuzz), FUZZ_SECONDS (override per-target time).
set -euo pipefail

mode="${1:-short}"
case "$mode" in
  short) per_target=20; budget=170; seed_opt="-seed=1" ;;
  long) per_target=600; budget=0; seed_opt="" ;;
  *) echo "usage: $0 {short|long}" >&2; exit 2 ;;
esac

log() { echo "run-fuzz: $*"; }

if ! command -v clang++ >/dev/null 2>&1 || ! command -v clang >/dev/null 2>&1; then
  log "clang/clang++ not installed: skipping fuzzing (install clang and libclang-rt-dev to enable)"
  exit 0
fi
script_dir="${BASH_SOURCE[0]%/*}"
[ "$script_dir" = "${BASH_SOURCE[0]}" ] && script_dir=.
root="$(cd "$script_dir/.." && pwd)"
build="${FUZZ_BUILD:-$root/build-fuzz}"
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cc"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cc" -o "$probe/p" >/dev/null 2>&1; then
  log "clang++ cannot link -fsanitize=fuzzer (libclang-rt missing?): skipping fuzzing"
  exit 0
fi

# Every library is coverage-instrumented (fuzzer-no-link); the fuzz executables add -fsanitize=fuzzer.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
log "configuring $build (clang, NDP_FUZZ=ON)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DNDP_FUZZ=ON -DNDP_WERROR=OFF -DNDP_BUILD_RTL=OFF -DNDP_BENCH=OFF >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; log "configure failed"; exit 1; }
log "building sw/fuzz (all fuzz targets and the seed generator)"
cmake --build "$build" --target sw/fuzz/all -j "$(nproc)" >"$build.build.log" 2>&1 ||
  { tail -n 60 "$build.build.log"; log "build failed (full log: $build.build.log)"; exit 1; }

mapfile -t targets < <(find "$build/sw/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
if [ "${#targets[@]}" -eq 0 ]; then
  log "no fuzz targets were built"
  exit 1
fi
if [ -n "${FUZZ_SECONDS:-}" ]; then
  per_target="$FUZZ_SECONDS"
elif [ "$budget" -gt 0 ] && [ $((per_target * ${#targets[@]})) -gt "$budget" ]; then
  per_target=$((budget / ${#targets[@]}))
  [ "$per_target" -lt 5 ] && per_target=5
fi

seeds="$build/fuzz-seeds"
rm -rf "$seeds"
mkdir -p "$seeds"
if [ -x "$build/sw/fuzz/ndp_fuzz_seedgen" ]; then
  "$build/sw/fuzz/ndp_fuzz_seedgen" "$seeds" || { log "seed generator failed"; exit 1; }
fi

log "${#targets[@]} targets, ${per_target} s each ($mode)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
failed=()
summary=()
for exe in "${targets[@]}"; do
  t="$(basename "$exe")"
  corpus="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  dirs=("$corpus")
  [ -d "$seeds/$t" ] && dirs+=("$seeds/$t")
  [ -d "$root/sw/fuzz/seeds/$t" ] && dirs+=("$root/sw/fuzz/seeds/$t")
  case "$t" in  # the runtime's own example files seed its JSON targets
    fuzz_topology_override) dirs+=("$root/sw/runtime/examples" "$root/sw/runtime/tests/data") ;;
    fuzz_plan_json) dirs+=("$root/sw/runtime/examples") ;;
  esac
  tlog="$build/fuzz-$t.log"
  set +e
  # shellcheck disable=SC2086
  "$exe" -max_total_time="$per_target" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" $seed_opt "${dirs[@]}" >"$tlog" 2>&1
  rc=$?
  set -e
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$tlog" | tail -n 1)"
  cov="$(grep -oE 'cov: [0-9]+' "$tlog" | tail -n 1 | cut -d' ' -f2)"
  ncorpus="$(find "$corpus" -type f | wc -l)"
  if [ "$rc" -ne 0 ]; then
    failed+=("$t")
    summary+=("$(printf '%-28s FAILED (exit %d)  runs %s; log %s' "$t" "$rc" "${runs:-?}" "$tlog")")
    tail -n 40 "$tlog"
    for a in "$artifacts"/*; do [ -f "$a" ] && log "reproduce: $exe $a"; done
  else
    summary+=("$(printf '%-28s ok  %10s runs in %3d s  cov %-5s corpus %d' "$t" "${runs:-?}" "$per_target" "${cov:-?}" "$ncorpus")")
  fi
done

log "results:"
printf '  %s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
  log "FAILED: ${failed[*]}"
  exit 1
fi
log "all ${#targets[@]} fuzz targets ran without crashes"
