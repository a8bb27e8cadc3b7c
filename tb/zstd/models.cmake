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

# The encoder (rtl/zstd/zstd_encoder): the LZ4 encoder's match finder and input ring, the Huffman
# code builder and stream encoders, the sequence store and FSE sequence encoder, the block writer.
set(NDP_RTL_ZSTD_ENC_SRC ${NDP_RTL_DIR}/common/ram_1r1w.sv ${NDP_RTL_DIR}/common/rr_arbiter.sv
  ${NDP_RTL_DIR}/common/fifo_sync.sv ${NDP_RTL_DIR}/common/csa_tree.sv ${NDP_RTL_DIR}/common/xxh_cmul.sv
  ${NDP_RTL_DIR}/common/pfx_carry.sv ${NDP_RTL_DIR}/common/pfx_add.sv
  ${NDP_RTL_DIR}/lz4/lz4_byteq.sv ${NDP_RTL_DIR}/lz4/lz4_mq.sv ${NDP_RTL_DIR}/lz4/lz4_mfifo.sv
  ${NDP_RTL_DIR}/lz4/lz4_enc_front.sv ${NDP_RTL_DIR}/lz4/lz4_enc_match.sv ${NDP_RTL_DIR}/lz4/lz4_enc_inram.sv
  ${NDP_RTL_DIR}/lz4/lz4_enc_select.sv ${NDP_RTL_DIR}/lz4/lz4_enc_finder.sv
  ${NDP_RTL_ZSTD}/zstd_enc_hist.sv ${NDP_RTL_ZSTD}/zstd_enc_sort.sv ${NDP_RTL_ZSTD}/zstd_enc_pm.sv
  ${NDP_RTL_ZSTD}/zstd_enc_code.sv ${NDP_RTL_ZSTD}/zstd_enc_fsew.sv ${NDP_RTL_ZSTD}/zstd_enc_tree.sv
  ${NDP_RTL_ZSTD}/zstd_enc_build.sv ${NDP_RTL_ZSTD}/zstd_enc_huf_stream.sv ${NDP_RTL_ZSTD}/zstd_enc_emit.sv
  ${NDP_RTL_ZSTD}/zstd_enc_seqstore.sv ${NDP_RTL_ZSTD}/zstd_enc_seqenc.sv ${NDP_RTL_ZSTD}/zstd_enc_litgather.sv
  ${NDP_RTL_ZSTD}/zstd_encoder.sv)
# zenc_public.vlt makes the finder's parameters public: the bench reads them from the model.
list(APPEND NDP_RTL_ZSTD_ENC_SRC ${CMAKE_CURRENT_LIST_DIR}/zenc_public.vlt)
ndp_verilate(Vzstd_encoder zstd_encoder SOURCES ${NDP_RTL_ZSTD_ENC_SRC})
# The candidate build: the finder hashing 8 bytes per position and Huffman-coded literals in
# sequences blocks (docs/zstd_encoder.md "Hash bytes", "Huffman literals").
ndp_verilate(Vzstd_encoder_h8 zstd_encoder SOURCES ${NDP_RTL_ZSTD_ENC_SRC} PARAMS -GHashBytes=8 -GHufLits=1)
