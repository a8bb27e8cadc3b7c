// libFuzzer target: the KV trace reader must reject or accept any input without crashing. What it
// accepts must (1) have a geometry whose implied size, computed without overflow, is exactly the
// input size, with every stream inside the payload, and (2) serialize back to the same bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ndp/kvtrace.h"

namespace {

void fail(const char* why) {
  std::fprintf(stderr, "fuzz_kv_trace: %s\n", why);
  std::abort();
}

void check_geometry(const ndp::KvTrace& t, size_t size) {
  uint64_t elems = 0;
  if (!t.payload_elems(&elems) || elems > ndp::kKvTraceMaxElems) fail("accepted a payload product that overflows");
  // 128-bit sum: no wrap can make an inconsistent header match the size.
  const unsigned __int128 need = ndp::kKvTraceHeaderBytes + t.model_name.size() +
                                 4 * static_cast<unsigned __int128>(t.n_tokens) +
                                 2 * static_cast<unsigned __int128>(elems);
  if (need != size) fail("geometry does not account for the file size");
  if (t.kv.size() != elems || t.tokens.size() != t.n_tokens) fail("vector sizes differ from the geometry");
  const uint16_t* last = t.stream(t.n_layers - 1, 1, t.n_kv_heads - 1);
  if (last + t.stream_elems() != t.kv.data() + t.kv.size()) fail("last stream does not end at the payload end");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto t = ndp::parse_kv_trace(data, size, "fuzz");
  if (!t.ok()) {
    if (t.status().message().rfind("fuzz: offset ", 0) != 0) fail("error message without an offset");
    return 0;
  }
  check_geometry(t.value(), size);
  auto back = ndp::serialize_kv_trace(t.value());
  if (!back.ok() || back.value().size() != size || std::memcmp(back.value().data(), data, size) != 0)
    fail("accepted input does not serialize back to the same bytes");
  return 0;
}
