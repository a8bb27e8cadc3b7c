# Zstandard decoder (rtl/zstd): one parameter point (HistBytes = 64 KiB). Included by
# tb/CMakeLists.txt.
set(NDP_RTL_ZSTD ${NDP_RTL_DIR}/zstd)
set(NDP_RTL_ZSTD_SRC ${NDP_RTL_ZSTD}/zstd_pkg.sv
  ${NDP_RTL_DIR}/common/ram_1r1w.sv ${NDP_RTL_DIR}/common/rr_arbiter.sv
  ${NDP_RTL_DIR}/common/fifo_sync.sv ${NDP_RTL_DIR}/common/csa_tree.sv ${NDP_RTL_DIR}/common/pfx_add.sv
  ${NDP_RTL_DIR}/common/xxh_cmul.sv
  ${NDP_RTL_ZSTD}/zstd_byteq.sv ${NDP_RTL_ZSTD}/zstd_bitrd_fwd.sv ${NDP_RTL_ZSTD}/zstd_bitrd_bwd.sv
  ${NDP_RTL_ZSTD}/zstd_fse_build.sv ${NDP_RTL_ZSTD}/zstd_huf_tree.sv
  ${NDP_RTL_ZSTD}/zstd_huf_stream.sv ${NDP_RTL_ZSTD}/zstd_lits.sv ${NDP_RTL_ZSTD}/zstd_seq.sv
  ${NDP_RTL_ZSTD}/zstd_exec.sv ${NDP_RTL_ZSTD}/zstd_xxh64.sv ${NDP_RTL_ZSTD}/zstd_frame.sv
  ${NDP_RTL_ZSTD}/zstd_decoder.sv)
ndp_verilate(Vzstd_decoder zstd_decoder SOURCES ${NDP_RTL_ZSTD_SRC})
# The codec lane's ZSTD payload path (zstd_decoder + the spec section 3 payload rules).
ndp_verilate(Vzstd_lane_dec zstd_lane_dec SOURCES ${NDP_RTL_ZSTD_SRC} ${NDP_RTL_ZSTD}/zstd_lane_dec.sv)

# The bench uses libzstd (reference decoder and compressor) and the project's Huffman frame
# writer (ndp_codec).
cmake_language(DEFER CALL target_link_libraries ndp_tb_common PUBLIC ndp_codec PkgConfig::ZSTD)
