# KV window engines (rtl/kv): kv_window and kv_unwindow at three parameter points each
# (name C H W P): the LLaMA-style reference, stories260K's default geometry (head size 8, 4 KV
# heads co-packed per window, W = 128: 4096 elements like the reference) and a small odd point
# (W not a multiple of P, one block per token).
# Included by tb/CMakeLists.txt.
set(NDP_RTL_KV ${NDP_RTL_DIR}/kv/kv_run_gen.sv ${NDP_RTL_DIR}/kv/kv_base_buf.sv)
foreach(point "ref 128 1 32 16" "s260 8 4 128 16" "odd 8 1 12 8")
  separate_arguments(p UNIX_COMMAND "${point}")
  list(GET p 0 name)
  list(GET p 1 c)
  list(GET p 2 h)
  list(GET p 3 w)
  list(GET p 4 lanes)
  set(params -GC=${c} -GH=${h} -GW=${w} -GP=${lanes})
  ndp_verilate(Vkv_window_${name} kv_window
    SOURCES ${NDP_RTL_COMMON} ${NDP_RTL_KV} ${NDP_RTL_DIR}/kv/kv_window.sv PARAMS ${params})
  ndp_verilate(Vkv_unwindow_${name} kv_unwindow
    SOURCES ${NDP_RTL_COMMON} ${NDP_RTL_KV} ${NDP_RTL_DIR}/kv/kv_unwindow.sv PARAMS ${params})
endforeach()
# The KV benches record real KV caches with ndp_model (and read NKVT traces). ndp_tb_common is
# created after this file is included, so the link is added at the end of tb/CMakeLists.txt.
if(TARGET ndp_model)
  cmake_language(DEFER CALL target_link_libraries ndp_tb_common PUBLIC ndp_model)
endif()
