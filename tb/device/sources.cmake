# The RTL sources of ndp_device in dependency order (tb/device/models.cmake, tb/fpga/models.cmake).
set(NDP_RTL_DEV ${NDP_RTL_DIR}/device)
set(NDP_DEVICE_SOURCES ${NDP_RTL_COMMON} ${NDP_RTL_DIR}/common/fifo_ram.sv ${NDP_RTL_DIR}/bitplane/bp_pkg.sv ${NDP_RTL_DIR}/lz4/lz4_pkg.sv
          ${NDP_RTL_DIR}/lane/lane_pkg.sv ${NDP_RTL_DIR}/zstd/zstd_pkg.sv ${NDP_RTL_DEV}/ndp_dev_pkg.sv
          ${NDP_RTL_DIR}/bitplane/bp_asm_dec.sv ${NDP_RTL_DIR}/bitplane/bp_asm_align.sv
          ${NDP_RTL_DIR}/bitplane/bp_asm_round.sv ${NDP_RTL_DIR}/bitplane/bp_asm_mx.sv
          ${NDP_RTL_DIR}/bitplane/bp_asm_pack.sv ${NDP_RTL_DIR}/bitplane/bp_assembler.sv
          ${NDP_RTL_DIR}/lz4/lz4_byteq.sv ${NDP_RTL_DIR}/lz4/lz4_mq.sv ${NDP_RTL_DIR}/lz4/lz4_mfifo.sv
          ${NDP_RTL_DIR}/lz4/lz4_dec_parser.sv ${NDP_RTL_DIR}/lz4/lz4_dec_plan.sv
          ${NDP_RTL_DIR}/lz4/lz4_dec_copy.sv ${NDP_RTL_DIR}/lz4/lz4_decoder.sv
          ${NDP_RTL_DIR}/zstd/zstd_byteq.sv
          ${NDP_RTL_DIR}/zstd/zstd_bitrd_fwd.sv ${NDP_RTL_DIR}/zstd/zstd_bitrd_bwd.sv
          ${NDP_RTL_DIR}/zstd/zstd_fse_build.sv ${NDP_RTL_DIR}/zstd/zstd_huf_tree.sv
          ${NDP_RTL_DIR}/zstd/zstd_huf_stream.sv ${NDP_RTL_DIR}/zstd/zstd_lits.sv
          ${NDP_RTL_DIR}/zstd/zstd_seq.sv ${NDP_RTL_DIR}/zstd/zstd_exec.sv
          ${NDP_RTL_DIR}/common/csa_tree.sv ${NDP_RTL_DIR}/common/pfx_add.sv ${NDP_RTL_DIR}/common/pfx_inc.sv
          ${NDP_RTL_DIR}/common/xxh_cmul.sv ${NDP_RTL_DIR}/zstd/zstd_xxh64.sv ${NDP_RTL_DIR}/zstd/zstd_frame.sv
          ${NDP_RTL_DIR}/zstd/zstd_decoder.sv ${NDP_RTL_DIR}/zstd/zstd_lane_dec.sv
          ${NDP_RTL_DIR}/common/pfx_carry.sv ${NDP_RTL_DIR}/lane/lane_xxh32_round.sv ${NDP_RTL_DIR}/lane/lane_xxh32.sv ${NDP_RTL_DIR}/lane/codec_lane_dec.sv
          ${NDP_RTL_DEV}/ndp_dev_div.sv ${NDP_RTL_DEV}/ndp_dev_csr.sv ${NDP_RTL_DEV}/ndp_dev_wr.sv
          ${NDP_RTL_DEV}/ndp_dev_tags.sv ${NDP_RTL_DEV}/ndp_dev_track.sv ${NDP_RTL_DEV}/ndp_dev_rd.sv ${NDP_RTL_DEV}/ndp_dev_lane.sv
          ${NDP_RTL_DEV}/ndp_dev_sets.sv ${NDP_RTL_DEV}/ndp_dev_index.sv ${NDP_RTL_DEV}/ndp_dev_stage.sv
          ${NDP_RTL_DEV}/ndp_dev_chunk.sv
          ${NDP_RTL_DEV}/ndp_device.sv)
