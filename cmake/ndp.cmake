# Shared build settings for every target: warnings, sanitizers, test registration.
include_guard(GLOBAL)

find_package(PkgConfig REQUIRED)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
find_package(GTest REQUIRED)
find_package(Threads REQUIRED)
include(GoogleTest)

add_library(ndp_options INTERFACE)
target_compile_options(ndp_options INTERFACE -Wall -Wextra -Wshadow -Wno-unused-parameter)
if(NDP_WERROR)
  target_compile_options(ndp_options INTERFACE -Werror)
endif()
if(NDP_SANITIZE)
  target_compile_options(ndp_options INTERFACE -fsanitize=${NDP_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(ndp_options INTERFACE -fsanitize=${NDP_SANITIZE})
endif()
target_compile_definitions(ndp_options INTERFACE NDP_DATA_DIR="${NDP_DATA_DIR}")

# ndp_add_test(NAME SOURCES... LIBS libs... [LABELS labels...])
# A GoogleTest binary registered with ctest, one ctest entry per test case.
function(ndp_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} ndp_options GTest::gtest GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/sw/testing)  # ndp/test_seed.h
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT} SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endfunction()
