#!/usr/bin/env bash
# Parameter sweeps of the LZ4 engines on real plane blocks (docs/results/lz4.md), outside the ctest
# build: each point is verilated on its own (verilator --build, no tracing), then streams the data.
#   tb/lz4/sweep/sweep.sh enc P BANKS D OUT [LAZY BACKEXT]    e.g. enc 8 32 8 16 (1 1)
#   tb/lz4/sweep/sweep.sh dec OUT SLOTS SEQS   e.g. dec 32 4 4
# env: NDP_DATA_DIR (default ../shared/data), SWEEP_OUT (default build/lz4-sweep)
set -euo pipefail
cd "$(dirname "$0")/../../.."
DATA=${NDP_DATA_DIR:-$PWD/../shared/data}
OUT=${SWEEP_OUT:-build/lz4-sweep}
R=$PWD/rtl
COMMON="$R/common/ram_1r1w.sv $R/lz4/lz4_pkg.sv $R/lz4/lz4_byteq.sv $R/lz4/lz4_mq.sv"
FLAGS=(--cc --exe --build -j 2 --assert -Wno-fatal -O3 --x-assign fast --x-initial fast -I$R/common)
CXX="-O1 -std=c++20 -I$PWD/sw/codec/include -I$PWD/sw/core/include -I$PWD/tb/lz4/sweep"
case "${1:-}" in
  enc)
    [ $# -eq 5 ] || [ $# -eq 7 ] || { echo "usage: $0 enc P BANKS D OUT [LAZY BACKEXT]" >&2; exit 2; }
    lazy=${6:-1} back=${7:-1}
    dir=$OUT/enc_p$2_b$3_d$4_o$5_l${lazy}_x${back}
    verilator "${FLAGS[@]}" $COMMON $R/lz4/lz4_mfifo.sv $R/lz4/lz4_enc_front.sv $R/lz4/lz4_enc_match.sv \
      $R/lz4/lz4_enc_inram.sv $R/lz4/lz4_enc_select.sv $R/lz4/lz4_enc_finder.sv $R/lz4/lz4_enc_format.sv $R/lz4/lz4_encoder.sv \
      --top-module lz4_encoder -GInBytes=$2 -GHashBanks=$3 -GMatchBytes=$4 -GOutBytes=$5 -GLazy=$lazy -GBackExt=$back \
      $PWD/tb/lz4/sweep/enc_sweep.cc $PWD/sw/codec/src/lz4_hw_model.cc $PWD/sw/codec/src/block_header.cc \
      -CFLAGS "$CXX" -LDFLAGS "-llz4 -lxxhash" -Mdir "$dir" > "$dir.log" 2>&1 || { tail -20 "$dir.log"; exit 1; }
    "$dir/Vlz4_encoder" "$DATA" "$2" "$3" "$4" "$5" "$lazy" "$back"
    ;;
  dec)
    [ $# -eq 4 ] || { echo "usage: $0 dec OUT SLOTS SEQS" >&2; exit 2; }
    dir=$OUT/dec_o$2_k$3_s$4
    verilator "${FLAGS[@]}" $COMMON $R/lz4/lz4_dec_parser.sv $R/lz4/lz4_dec_plan.sv $R/lz4/lz4_dec_copy.sv \
      $R/lz4/lz4_decoder.sv --top-module lz4_decoder -GOutBytes=$2 -GMatchSlots=$3 -GSeqs=$4 \
      $PWD/tb/lz4/sweep/dec_sweep.cc -CFLAGS "$CXX" -LDFLAGS "-llz4" -Mdir "$dir" > "$dir.log" 2>&1 || { tail -20 "$dir.log"; exit 1; }
    "$dir/Vlz4_decoder" "$DATA" "$2"
    ;;
  *) echo "usage: $0 enc P BANKS D OUT | dec OUT SLOTS SEQS" >&2; exit 2 ;;
esac
