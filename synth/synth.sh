#!/usr/bin/env bash
# make synth: per-block synthesis to a real standard-cell liberty with static timing, plus an FPGA
# estimate, and the summary table docs/results/synth.md.
#
# usage: synth/synth.sh [BLOCK ...]        (default: every synth/blocks/*.cfg)
# env:   LIBERTY=asap7 (default) | osu018 | /path/to/lib.lib   SYNTH_OUT=synth/out (git-ignored)
#        ASAP7_DIR=../shared/pdk/asap7     OSU018_LIB=/usr/share/qflow/tech/osu018/osu018_stdcells.lib
#        SYNTH_FPGA=0 skips synth_xilinx    SYNTH_TABLE=0 skips the table
#        (a block config with FPGA=0 skips it too: blocks whose real RTL holds black-boxed engines;
#        ASIC_SKIP="file ..." lists sources that only a black box's real body needs)
#
# Per block (synth/blocks/BLOCK.cfg sets TOP, SOURCES, PARAMS "Name=value ...", PERIOD_PS,
# BLACKBOX "module ...", DESC, optional SYNTH_ARGS for `synth`, e.g. "-noshare" where Yosys' SAT-based
# resource sharing runs out of memory, optional ABC_SCRIPT=fast for synth/abc_asic_fast.script): an elaboration pass counts the RAM bits of the real RTL; the ASIC
# pass replaces each BLACKBOX module by synth/stubs/<module>.sv (no SRAM macros in these libraries), or,
# for a module without one (a sub-block with its own row), by its RTL header generated into SYNTH_OUT,
# synthesises with Yosys (ASAP7 recipe of ../shared/pdk/asap7/README.md: merged library for abc, the
# fixed SEQ library for dfflibmap, abc.constr; the ABC script synth/abc_asic.script adds fanout
# buffering and gate sizing after mapping, without which 256-bit datapaths are dominated by
# unbuffered x1 drivers of hundreds of loads), exposes the macro pins as ports (`expose -evert`, so paths to
# and from the macro are timed against an ideal macro: 0 ps clock-to-output, 0 ps setup) and runs
# OpenSTA at PERIOD_PS; fpga/synth_xilinx.sh gives LUT/FF/BRAM counts on the real RTL.
# Outputs: SYNTH_OUT/BLOCK/{yosys.log,net.v,stat.txt,sta.log,fpga.*,summary.env}.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${SYNTH_OUT:-synth/out}
case "$OUT" in /*) ;; *) OUT=$ROOT/$OUT ;; esac
LIBERTY=${LIBERTY:-asap7}
ASAP7_DIR=${ASAP7_DIR:-$ROOT/../shared/pdk/asap7}
OSU018_LIB=${OSU018_LIB:-/usr/share/qflow/tech/osu018/osu018_stdcells.lib}
mkdir -p "$OUT"

for tool in yosys sta python3; do
  command -v $tool > /dev/null || { echo "synth: $tool not found (bash scripts/install-deps.sh)" >&2; exit 1; }
done

# ---- liberty -------------------------------------------------------------------------------
if [ "$LIBERTY" = asap7 ] && [ ! -d "$ASAP7_DIR" ]; then
  echo "synth: ASAP7 not found at $ASAP7_DIR; using OSU018 (LIBERTY=osu018)"
  LIBERTY=osu018
fi
HILO="" BUF="" CONSTR=""
case "$LIBERTY" in
  asap7)
    P=$OUT/pdk/asap7
    mkdir -p "$P"
    for f in "$ASAP7_DIR"/*.lib.gz; do
      t=$P/$(basename "$f" .gz)
      [ -f "$t" ] && [ "$t" -nt "$f" ] || gunzip -c "$f" > "$t"
    done
    MERGED=$P/asap7sc7p5t_RVT_TT_merged.lib
    [ -f "$MERGED" ] || python3 "$ASAP7_DIR/merge_libs.py" "$MERGED" asap7sc7p5t_RVT_TT_merged \
      "$P"/asap7sc7p5t_SIMPLE_RVT_TT_nldm_211120.lib "$P"/asap7sc7p5t_INVBUF_RVT_TT_nldm_220122.lib \
      "$P"/asap7sc7p5t_AO_RVT_TT_nldm_211120.lib "$P"/asap7sc7p5t_OA_RVT_TT_nldm_211120.lib \
      "$P"/asap7sc7p5t_SEQ_RVT_TT_nldm_220123.lib > /dev/null
    SEQMAP=$P/asap7sc7p5t_SEQ_RVT_TT_nldm_220123_yosys_dfflibmap.lib
    STA_LIBS=""
    for f in SIMPLE_RVT_TT_nldm_211120 INVBUF_RVT_TT_nldm_220122 AO_RVT_TT_nldm_211120 \
             OA_RVT_TT_nldm_211120 SEQ_RVT_TT_nldm_220123; do
      STA_LIBS+=" $P/asap7sc7p5t_$f.lib"
    done
    HILO="hilomap -singleton -hicell TIEHIx1_ASAP7_75t_R H -locell TIELOx1_ASAP7_75t_R L"
    BUF="BUFx2_ASAP7_75t_R A Y"
    CONSTR="-constr $ASAP7_DIR/abc.constr"
    LIBNAME="ASAP7 RVT TT 0.7 V 25 C (NLDM, merged SIMPLE/INVBUF/AO/OA/SEQ, no dont_use)"
    ;;
  osu018)
    [ -f "$OSU018_LIB" ] || { echo "synth: $OSU018_LIB missing: apt-get install qflow-tech-osu018" >&2; exit 1; }
    MERGED=$OSU018_LIB SEQMAP=$OSU018_LIB STA_LIBS=$OSU018_LIB
    BUF="BUFX2 A Y"
    mkdir -p "$OUT/pdk/osu018"
    printf 'set_driving_cell BUFX2\nset_load 0.01\n' > "$OUT/pdk/osu018/abc.constr"  # load in pF
    CONSTR="-constr $OUT/pdk/osu018/abc.constr"
    LIBNAME="OSU 0.18 um (qflow-tech-osu018 osu018_stdcells.lib)"
    ;;
  *)
    [ -f "$LIBERTY" ] || { echo "synth: LIBERTY=$LIBERTY: not asap7, osu018 or a liberty file" >&2; exit 1; }
    MERGED=$LIBERTY SEQMAP=$LIBERTY STA_LIBS=$LIBERTY
    LIBNAME=$(basename "$LIBERTY")
    ;;
esac
# Library time unit in ps (OpenSTA works in it; periods and slacks here are in ps).
TU_PS=$(python3 - "$MERGED" <<'PYEOF'
import re, sys
m = re.search(r'time_unit\s*:\s*"?\s*([0-9.]+)\s*([pn]s)', open(sys.argv[1], errors="replace").read(200000))
print(1 if not m else float(m.group(1)) * (1000 if m.group(2) == "ns" else 1))
PYEOF
)
case "$MERGED" in /*) ;; *) MERGED=$ROOT/$MERGED ;; esac
case "$SEQMAP" in /*) ;; *) SEQMAP=$ROOT/$SEQMAP ;; esac
case "$ASAP7_DIR" in /*) ;; *) ASAP7_DIR=$ROOT/$ASAP7_DIR ;; esac

# shellcheck source=synth/yosys_read.sh
source synth/yosys_read.sh

# ---- one block -----------------------------------------------------------------------------
synth_block() {
  local block=$1 cfg=synth/blocks/$1.cfg
  [ -f "$cfg" ] || { echo "synth: no config $cfg" >&2; return 1; }
  local TOP="" SOURCES="" PARAMS="" PERIOD_PS="" BLACKBOX="" DESC="" SYNTH_ARGS="" FPGA="" ASIC_SKIP="" ABC_SCRIPT=""
  # shellcheck disable=SC1090
  source "$cfg"
  SOURCES=$(echo $SOURCES)  # one line
  for v in TOP SOURCES PERIOD_PS; do
    [ -n "${!v}" ] || { echo "synth: $cfg does not set $v" >&2; return 1; }
  done
  local D=$OUT/$block
  rm -rf "$D"
  mkdir -p "$D"

  # RAM bits of the real RTL; minus those left in the ASIC pass (small FIFOs built from flops)
  # this gives the SRAM bits kept as macros
  {
    yosys_read "$TOP" "$PARAMS" "$SOURCES"
    echo "proc"
    echo "flatten"
    echo "tee -o $D/mem.txt stat"
  } > "$D/mem.ys"
  yosys -q -l "$D/mem.log" -s "$D/mem.ys" > /dev/null
  local membits
  membits=$(awk '/Number of memory bits:/ {print $NF}' "$D/mem.txt" | tail -1)

  # ASIC pass with black-boxed macros
  local srcs="" s m bb="" evert=""
  for s in $SOURCES; do
    m=$(basename "$s" .sv)
    # sources only a black box's real body needs (listed in ASIC_SKIP) are read by the RAM-bit pass only
    [[ " $(echo $ASIC_SKIP) " == *" $s "* ]] && continue
    if [[ " $BLACKBOX " == *" $m "* ]]; then
      if [ -f "synth/stubs/$m.sv" ]; then
        srcs+=" synth/stubs/$m.sv"
      else
        # a block with its own row: its black box is its RTL header (parameters and ports) alone
        { echo "(* blackbox *)"; awk '/^module /{p=1} p{print} p&&/^\);/{exit}' "$s"; echo "endmodule"; } > "$D/bb_$m.sv"
        grep -q '^);' "$D/bb_$m.sv" || { echo "synth: no module header ending in ');' in $s" >&2; return 1; }
        srcs+=" $D/bb_$m.sv"
      fi
      bb+=" $m"
    else
      srcs+=" $s"
    fi
  done
  {
    yosys_read "$TOP" "$PARAMS" "$srcs"
    echo "proc"
    echo "flatten"
    echo "tee -o $D/logic_mem.txt stat"
    echo "synth -top $TOP -flatten${SYNTH_ARGS:+ $SYNTH_ARGS}"
    [ -n "$bb" ] && echo "tee -o $D/macros.txt stat" && echo "expose -evert" && echo "opt_clean"
    echo "dfflibmap -liberty $SEQMAP"
    echo "rename -src t:*DFF*"  # flops named after their RTL source line: readable sta.log paths
    echo "abc -D $PERIOD_PS -script $D/abc.script $CONSTR -liberty $MERGED"
    [ -n "$HILO" ] && echo "$HILO"
    echo "setundef -zero"
    echo "opt_clean -purge"
    [ -n "$BUF" ] && echo "insbuf -buf $BUF"
    echo "opt_clean -purge"
    echo "tee -o $D/stat.txt stat -liberty $MERGED"
    echo "write_verilog -noattr -noexpr -nohex -nodec $D/net.v"
  } > "$D/yosys.ys"
  sed "s/{D}/$PERIOD_PS/g" "synth/abc_asic${ABC_SCRIPT:+_$ABC_SCRIPT}.script" > "$D/abc.script"
  if ! yosys -q -l "$D/yosys.log" -s "$D/yosys.ys" > /dev/null 2>&1; then
    echo "synth: $block: yosys failed (see $D/yosys.log)" >&2
    grep -m5 ERROR "$D/yosys.log" >&2 || true
    return 1
  fi
  local area cells macros=0
  area=$(awk '/Chip area for module/ {print $NF}' "$D/stat.txt" | tail -1)
  cells=$(awk '/Number of cells:/ {print $NF}' "$D/stat.txt" | tail -1)
  local logicbits
  logicbits=$(awk '/Number of memory bits:/ {print $NF}' "$D/logic_mem.txt" | tail -1)
  membits=$(( ${membits:-0} - ${logicbits:-0} ))
  [ -n "$bb" ] && macros=$(awk -v bb="$bb" '{for (i = split(bb, a, " "); i > 0; i--) if ($1 ~ a[i] && $2 ~ /^[0-9]+$/) s += $2} END {print s + 0}' "$D/macros.txt")
  # every black box of the elaborated design must survive synthesis: Yosys removes one whose
  # outputs drive nothing, which is also what happens to an output bound to an unpacked-array
  # element (Yosys 0.23 loses that connection): the row would then time logic without its RAM
  for m in $bb; do
    local n_in n_out
    n_in=$(awk -v m="$m" '$1 == m {s += $2} END {print s + 0}' "$D/logic_mem.txt")
    n_out=$(awk -v m="$m" '$1 == m {s += $2} END {print s + 0}' "$D/macros.txt")
    if [ "$n_out" -lt "$n_in" ]; then
      echo "synth: $block: synthesis removed $((n_in - n_out)) of $n_in $m instances (an output on an unpacked-array element, or unused)" >&2
      return 1
    fi
  done

  # Static timing: ideal clock, inputs and outputs at the clock edge; exposed macro clock pins
  # (outputs named *clk_i) carry the clock, not data, and are not constrained.
  cat > "$D/sta.tcl" <<EOT
foreach lib {$STA_LIBS} { read_liberty \$lib }
read_verilog $D/net.v
link_design $TOP
create_clock -name clk -period $(python3 -c "print($PERIOD_PS / $TU_PS)") [get_ports clk_i]
set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports clk_i]]
set_output_delay 0 -clock clk [delete_from_list [all_outputs] [get_ports -quiet *clk_i]]
report_checks -path_delay max -digits 2
report_wns
report_tns
report_worst_slack -digits 2
EOT
  sta -no_splash -exit "$D/sta.tcl" > "$D/sta.log" 2>&1 || true
  local ws wns
  ws=$(awk -v u="$TU_PS" '/^worst slack/ {printf "%.2f", $NF * u}' "$D/sta.log" | tail -1)
  wns=$(awk -v u="$TU_PS" '/^wns/ {printf "%.2f", $NF * u}' "$D/sta.log" | tail -1)
  if [ -z "$ws" ]; then
    echo "synth: $block: OpenSTA gave no slack (see $D/sta.log)" >&2
    grep -m5 -i error "$D/sta.log" >&2 || true
    return 1
  fi

  # FPGA estimate on the real RTL
  local LUTS="" FFS="" BRAM36="" BRAM18="" LUTRAM="" DSP="" CARRY=""
  if [ "${SYNTH_FPGA:-1}" != 0 ] && [ "${FPGA:-1}" != 0 ]; then
    bash fpga/synth_xilinx.sh "$block" "$D" > /dev/null
    # shellcheck disable=SC1091
    source "$D/fpga.env"
  fi
  cat > "$D/summary.env" <<EOT
BLOCK='$block'
TOP='$TOP'
PARAMS='$PARAMS'
DESC='$DESC${ABC_SCRIPT:+ [ABC $ABC_SCRIPT script]}'
PERIOD_PS='$PERIOD_PS'
CELLS='$cells'
AREA='$area'
MEMBITS='${membits:-0}'
MACROS='$macros'
WORST_SLACK='$ws'
WNS='$wns'
LIBNAME='$LIBNAME'
LIBERTY='$LIBERTY'
LUTS='$LUTS'
FFS='$FFS'
BRAM36='$BRAM36'
BRAM18='$BRAM18'
LUTRAM='$LUTRAM'
DSP='$DSP'
EOT
  printf 'synth %-14s cells %-7s area %-10s um2  worst slack %-8s ps @ %s ps  LUTs %-6s FFs %-6s BRAM36 %s BRAM18 %s  SRAM bits %s\n' \
    "$block" "$cells" "$area" "$ws" "$PERIOD_PS" "${LUTS:--}" "${FFS:--}" "${BRAM36:--}" "${BRAM18:--}" "${membits:-0}"
}

blocks=("$@")
if [ ${#blocks[@]} -eq 0 ]; then
  for f in synth/blocks/*.cfg; do blocks+=("$(basename "$f" .cfg)"); done
fi
echo "synth: liberty $LIBNAME"
rc=0
for b in "${blocks[@]}"; do synth_block "$b" || rc=1; done
if [ "${SYNTH_TABLE:-1}" != 0 ]; then
  python3 synth/table.py "$OUT" docs/results/synth.md || rc=1
fi
exit $rc
