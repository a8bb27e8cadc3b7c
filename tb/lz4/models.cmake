# LZ4 lane engines (rtl/lz4): the decoder and encoder at their default parameters, plus one more
# parameter point of each (a separate model per point): decoder OutBytes 16 / 2 match slots /
# 4 KiB blocks, encoder 8 bytes per cycle. Included by tb/CMakeLists.txt.
set(NDP_RTL_LZ4 ${NDP_RTL_DIR}/lz4)
set(NDP_RTL_LZ4_COMMON ${NDP_RTL_DIR}/common/ram_1r1w.sv ${NDP_RTL_LZ4}/lz4_pkg.sv
  ${NDP_RTL_LZ4}/lz4_byteq.sv ${NDP_RTL_LZ4}/lz4_mq.sv)
set(NDP_RTL_LZ4_DEC ${NDP_RTL_LZ4_COMMON} ${NDP_RTL_LZ4}/lz4_dec_parser.sv
  ${NDP_RTL_LZ4}/lz4_dec_plan.sv ${NDP_RTL_LZ4}/lz4_dec_copy.sv ${NDP_RTL_LZ4}/lz4_decoder.sv)
set(NDP_RTL_LZ4_ENC ${NDP_RTL_LZ4_COMMON} ${NDP_RTL_LZ4}/lz4_mfifo.sv
  ${NDP_RTL_LZ4}/lz4_enc_front.sv ${NDP_RTL_LZ4}/lz4_enc_match.sv ${NDP_RTL_LZ4}/lz4_enc_inram.sv
  ${NDP_RTL_LZ4}/lz4_enc_select.sv ${NDP_RTL_LZ4}/lz4_enc_finder.sv ${NDP_RTL_LZ4}/lz4_enc_format.sv ${NDP_RTL_LZ4}/lz4_encoder.sv)

ndp_verilate(Vlz4_decoder lz4_decoder SOURCES ${NDP_RTL_LZ4_DEC})
ndp_verilate(Vlz4_decoder_w16 lz4_decoder SOURCES ${NDP_RTL_LZ4_DEC}
  PARAMS -GOutBytes=16 -GMatchSlots=2 -GMaxBlockBytes=4096)
ndp_verilate(Vlz4_encoder lz4_encoder SOURCES ${NDP_RTL_LZ4_ENC})
ndp_verilate(Vlz4_encoder_p8 lz4_encoder SOURCES ${NDP_RTL_LZ4_ENC}
  PARAMS -GInBytes=8 -GMatchBytes=8 -GHashBanks=32 -GOutBytes=16)

# The benches use the golden codec (ndp_codec: lz4_hw_model, block header, XXH32) and liblz4.
cmake_language(DEFER CALL target_link_libraries ndp_tb_common PUBLIC ndp_codec PkgConfig::LZ4)
