#!/usr/bin/env bash
# Names the registers on a block's worst paths. synth/synth.sh names flops after their RTL source
# span (`rename -src`), which does not say which register of an always block a path starts or ends
# at. This re-runs the block's last synthesis (synth/out/BLOCK/yosys.ys, same sources, parameters
# and ABC script) with every flop named after the register bit it drives (`rename -wire` before
# `dfflibmap`), times it with the block's OpenSTA script, and prints the start and end register of
# the worst path to each of the N worst endpoints (recovery checks of the reset left out), with the
# full report in synth/out/BLOCK/named/sta.log. The timing can differ from the row's by a few
# percent (ABC's run-to-run spread); the row in results/synth.md stays the one synth.sh writes.
#
# usage: synth/paths.sh BLOCK [N]     (after synth/synth.sh BLOCK; N defaults to 5)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:?usage: synth/paths.sh BLOCK [N]}
N=${2:-5}
S=$PWD/synth/out/$B
O=$S/named
[ -f "$S/yosys.ys" ] && [ -f "$S/sta.tcl" ] || { echo "paths: run synth/synth.sh $B first" >&2; exit 1; }
mkdir -p "$O"
sed -e "s|^\(synth -top .*\)$|\1\nrename -wire t:\$_*DFF*|" -e 's|^rename -src t:\*DFF\*$||' \
    -e "s#$S/\(net.v\|stat.txt\|logic_mem.txt\)#$O/\1#g" "$S/yosys.ys" > "$O/yosys.ys"
grep -q '^rename -wire' "$O/yosys.ys" && ! grep -q "$S/net.v" "$O/yosys.ys" ||
  { echo "paths: unexpected $S/yosys.ys" >&2; exit 1; }
yosys -q -l "$O/yosys.log" -s "$O/yosys.ys" > /dev/null
sed -e "s|$S/net.v|$O/net.v|" \
    -e "s/^report_checks -path_delay max .*/report_checks -path_delay max -group_count $((N + 20)) -endpoint_count 1 -digits 1/" \
    "$S/sta.tcl" > "$O/sta.tcl"
sta -exit "$O/sta.tcl" > "$O/sta.log" 2>&1
awk -v n="$N" '
  /^Startpoint:/ { s = $2; rec = 0 }
  /^Endpoint:/   { e = $2 }
  /recovery check|removal check/ { rec = 1 }
  /slack \((MET|VIOLATED)\)/ { if (!rec && k < n) { printf "slack %8s ps  %s -> %s\n", $1, s, e; k++ } }
' "$O/sta.log"
