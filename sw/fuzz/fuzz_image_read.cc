// libFuzzer target: ndp::ImageReader on arbitrary bytes: open (header, table, index validation),
// verify() every block, read every tensor and its full region. No size filter: the reader grows its
// output only as chunks decode (at most 65536 bytes per >= 13-byte block), so what it allocates is
// bounded by the input; the oracle checks that bound and that a successful read has the size the
// table gives.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <xxhash.h>

#include "ndp/image.h"

namespace {

void check(bool ok, const char* why) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_image_read: %s\n", why);
  std::abort();
}

void exercise(const uint8_t* data, size_t size) {
  auto r = ndp::ImageReader::open_view(data, size);
  if (!r.ok()) return;
  ndp::ImageReader& img = *r.value();
  (void)img.verify();
  // Decoded bytes a read may return: 65536 per block, every block >= 13 bytes of the input.
  const uint64_t bound = uint64_t{size} / 13 * 65536;
  for (size_t i = 0; i < img.tensors().size(); ++i) {
    const ndp::TensorInfo& t = img.tensors()[i];
    std::vector<uint8_t> out;
    ndp::Status s = img.read_tensor(i, out);
    check(out.size() <= bound, "read_tensor returned more bytes than the input's blocks can hold");
    check(!s.ok() || out.size() == ndp::dtype_bytes(t.dtype, t.elems), "read_tensor size differs from the table");
    ndp::Region full;
    s = img.read_region(i, full, out);
    check(out.size() <= bound, "read_region returned more bytes than the input's blocks can hold");
    check(!s.ok() || out.size() == ndp::dtype_bytes(t.dtype, t.elems), "read_region size differs from the table");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  exercise(data, size);
  // Most mutations break the recorded image size or the tensor-table XXH32 and stop at open; a
  // patched copy (size fixed, table checksum recomputed over [table offset, end), as the writer lays
  // it out) lets the fuzzer reach the table, index and block paths too.
  if (size >= ndp::kImageHeaderBytes) {
    std::vector<uint8_t> c(data, data + size);
    uint64_t toff = 0;
    for (int i = 0; i < 8; ++i) toff |= uint64_t{c[16 + static_cast<size_t>(i)]} << (8 * i);
    for (int i = 0; i < 8; ++i) c[24 + static_cast<size_t>(i)] = static_cast<uint8_t>(uint64_t{size} >> (8 * i));
    if (toff <= size) {
      const uint32_t x = XXH32(c.data() + toff, size - toff, 0);
      for (int i = 0; i < 4; ++i) c[32 + static_cast<size_t>(i)] = static_cast<uint8_t>(x >> (8 * i));
    }
    exercise(c.data(), c.size());
  }
  return 0;
}
