// libFuzzer target: ndp::parse_rwkv on arbitrary bytes (see fuzz_read_common.h for the oracle).
#include "fuzz_read_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = ndp::parse_rwkv(data, size, "fuzz");
  ndp::fuzz::check_model_result(r, "fuzz");
  return 0;
}
