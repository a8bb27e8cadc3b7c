# codec_lane (rtl/lane): encode and decode directions with the LZ4 engines at their defaults, the
# ZSTD encoder (zstd_encoder) on the encode side and the ZSTD decoder (zstd_lane_dec, 64 KiB
# history) on the decode side.
# Included by tb/CMakeLists.txt (before tb/lz4/models.cmake: this list stands on its own).
set(NDP_RTL_LANE ${NDP_RTL_DIR}/lane)
set(NDP_RTL_LANE_LZ4 ${NDP_RTL_DIR}/lz4)
ndp_verilate(Vcodec_lane codec_lane
  SOURCES ${NDP_RTL_DIR}/common/ram_1r1w.sv ${NDP_RTL_DIR}/common/spill_reg.sv
          ${NDP_RTL_DIR}/common/stream_fork.sv ${NDP_RTL_LANE_LZ4}/lz4_pkg.sv ${NDP_RTL_LANE}/lane_pkg.sv
          ${NDP_RTL_LANE_LZ4}/lz4_byteq.sv ${NDP_RTL_LANE_LZ4}/lz4_mq.sv ${NDP_RTL_LANE_LZ4}/lz4_mfifo.sv
          ${NDP_RTL_LANE_LZ4}/lz4_dec_parser.sv ${NDP_RTL_LANE_LZ4}/lz4_dec_plan.sv
          ${NDP_RTL_LANE_LZ4}/lz4_dec_copy.sv ${NDP_RTL_LANE_LZ4}/lz4_decoder.sv
          ${NDP_RTL_LANE_LZ4}/lz4_enc_front.sv ${NDP_RTL_LANE_LZ4}/lz4_enc_match.sv
          ${NDP_RTL_LANE_LZ4}/lz4_enc_inram.sv ${NDP_RTL_LANE_LZ4}/lz4_enc_select.sv
          ${NDP_RTL_LANE_LZ4}/lz4_enc_finder.sv ${NDP_RTL_LANE_LZ4}/lz4_enc_format.sv ${NDP_RTL_LANE_LZ4}/lz4_encoder.sv
          ${NDP_RTL_DIR}/common/rr_arbiter.sv ${NDP_RTL_DIR}/common/fifo_sync.sv
          ${NDP_RTL_DIR}/zstd/zstd_pkg.sv ${NDP_RTL_DIR}/zstd/zstd_byteq.sv
          ${NDP_RTL_DIR}/zstd/zstd_bitrd_fwd.sv ${NDP_RTL_DIR}/zstd/zstd_bitrd_bwd.sv
          ${NDP_RTL_DIR}/zstd/zstd_fse_build.sv ${NDP_RTL_DIR}/zstd/zstd_huf_tree.sv
          ${NDP_RTL_DIR}/zstd/zstd_huf_stream.sv ${NDP_RTL_DIR}/zstd/zstd_lits.sv
          ${NDP_RTL_DIR}/zstd/zstd_seq.sv ${NDP_RTL_DIR}/zstd/zstd_exec.sv
          ${NDP_RTL_DIR}/common/csa_tree.sv ${NDP_RTL_DIR}/common/pfx_add.sv
          ${NDP_RTL_DIR}/common/xxh_cmul.sv ${NDP_RTL_DIR}/zstd/zstd_xxh64.sv ${NDP_RTL_DIR}/zstd/zstd_frame.sv
          ${NDP_RTL_DIR}/zstd/zstd_decoder.sv ${NDP_RTL_DIR}/zstd/zstd_lane_dec.sv
          ${NDP_RTL_DIR}/zstd/zstd_enc_hist.sv ${NDP_RTL_DIR}/zstd/zstd_enc_sort.sv
          ${NDP_RTL_DIR}/zstd/zstd_enc_pm.sv ${NDP_RTL_DIR}/zstd/zstd_enc_code.sv
          ${NDP_RTL_DIR}/zstd/zstd_enc_fsew.sv ${NDP_RTL_DIR}/zstd/zstd_enc_tree.sv
          ${NDP_RTL_DIR}/zstd/zstd_enc_build.sv ${NDP_RTL_DIR}/zstd/zstd_enc_huf_stream.sv
          ${NDP_RTL_DIR}/zstd/zstd_enc_emit.sv ${NDP_RTL_DIR}/zstd/zstd_enc_seqstore.sv
          ${NDP_RTL_DIR}/zstd/zstd_enc_seqenc.sv ${NDP_RTL_DIR}/zstd/zstd_enc_litgather.sv ${NDP_RTL_DIR}/zstd/zstd_encoder.sv
          ${NDP_RTL_DIR}/common/pfx_carry.sv ${NDP_RTL_LANE}/lane_xxh32_round.sv ${NDP_RTL_LANE}/lane_xxh32.sv ${NDP_RTL_LANE}/codec_lane_enc.sv
          ${NDP_RTL_LANE}/codec_lane_dec.sv ${NDP_RTL_LANE}/codec_lane.sv)
# lane_xxh32 alone, at the lane's 32 B/cycle and at 16 B/cycle (tb/lane/test_lane_xxh32.cc)
foreach(w 32 16)
  ndp_verilate(Vlane_xxh32_${w} lane_xxh32
    SOURCES ${NDP_RTL_LANE}/lane_pkg.sv ${NDP_RTL_DIR}/common/csa_tree.sv ${NDP_RTL_DIR}/common/pfx_add.sv
            ${NDP_RTL_DIR}/common/xxh_cmul.sv ${NDP_RTL_DIR}/common/pfx_carry.sv ${NDP_RTL_LANE}/lane_xxh32_round.sv ${NDP_RTL_LANE}/lane_xxh32.sv
    PARAMS -GInBytes=${w})
endforeach()
