// libFuzzer target: the KV trace reader must reject or accept any input without crashing, and what it
// accepts must serialize back to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "ndp/kvtrace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto t = ndp::parse_kv_trace(data, size, "fuzz");
  if (!t.ok()) return 0;
  auto back = ndp::serialize_kv_trace(t.value());
  if (!back.ok() || back.value().size() != size || std::memcmp(back.value().data(), data, size) != 0) std::abort();
  return 0;
}
