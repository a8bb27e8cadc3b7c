#!/usr/bin/env bash
# make formal: yosys + yosys-smtbmc + z3 on the `ifdef FORMAL` properties of the common cells and
# the blocks listed in rtl/formal/jobs.txt: bounded model check (BMC), k-induction (an unbounded
# proof) and cover (the properties are not vacuous: the covered states are reachable). A job's file
# field may list several files separated by commas (packages first); its parameters are chparam
# values, plus bmc=N / ind=N to set that job's depths.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${FORMAL_OUT:-build/formal}
mkdir -p "$OUT"
BMC_DEPTH=${FORMAL_BMC_DEPTH:-24}
IND_DEPTH=${FORMAL_IND_DEPTH:-12}
fail=0
while read -r name file top params; do
  case "$name" in ''|'#'*) continue ;; esac
  chp=""
  bmc_depth=$BMC_DEPTH
  ind_depth=$IND_DEPTH
  for p in $params; do
    case "$p" in
      bmc=*) bmc_depth=${p#bmc=} ;;
      ind=*) ind_depth=${p#ind=} ;;
      *) chp+=" -set ${p%%=*} ${p#*=}" ;;
    esac
  done
  ys="$OUT/$name.ys"
  {
    echo "read_verilog -sv -formal -Irtl/common ${file//,/ }"
    [ -n "$chp" ] && echo "chparam$chp $top"
    echo "prep -top $top"
    echo "memory_map"
    echo "opt -fast"
    echo "async2sync"
    echo "dffunmap"
    echo "write_smt2 -wires $OUT/$name.smt2"
  } > "$ys"
  if ! yosys -q -l "$OUT/$name.yosys.log" -s "$ys" > /dev/null 2>&1; then
    echo "formal $name: yosys FAILED (see $OUT/$name.yosys.log)"; fail=1; continue
  fi
  # --unroll: z3 4.8 stalls on the uninterpreted-state encoding, the unrolled one is instant.
  for mode in bmc induction cover; do
    case $mode in
      bmc) args="-t $bmc_depth" ;;
      induction) args="-i -t $ind_depth" ;;
      cover) args="-c -t $bmc_depth" ;;
    esac
    log="$OUT/$name.$mode.log"
    if timeout 300 yosys-smtbmc -s z3 --unroll $args "$OUT/$name.smt2" > "$log" 2>&1 &&
       grep -q 'Status: PASSED' "$log"; then
      printf 'formal %-16s %-9s PASSED (%s)\n' "$name" "$mode" "$args"
    else
      printf 'formal %-16s %-9s FAILED (see %s)\n' "$name" "$mode" "$log"
      grep -E 'failed|Assert|Status' "$log" | head -5 || true
      fail=1
    fi
  done
done < "${FORMAL_JOBS:-rtl/formal/jobs.txt}"
[ $fail -eq 0 ] && echo "formal: all proofs passed" || { echo "formal: FAILED"; exit 1; }
