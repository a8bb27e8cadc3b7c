// libFuzzer target: ndp::decode_block on arbitrary bytes. Two decodes per input: one whose expected
// plane id / block id / raw size are taken from the input's own header (so the fuzzer reaches the
// LZ4 / ZSTD / Huffman-frame payload paths) and one with expectations from the input's tail.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ndp/block.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ndp::BlockExpect x;
  x.what = "fuzz block";
  if (size >= ndp::kBlockHeaderBytes) {
    x.plane_id = data[2];
    x.block_id = static_cast<uint64_t>(data[0] | (data[1] << 8));
    const uint32_t raw = static_cast<uint32_t>(data[4] | (data[5] << 8));
    x.raw_size = raw ? raw : ndp::kMaxPlaneBytes;
    x.pad_mask = size > 12 ? static_cast<uint8_t>(data[size - 1] & 0x80) : 0;
  } else {
    x.raw_size = 1 + static_cast<uint32_t>(size);
  }
  // Exactly raw_size bytes: ASan flags any write beyond it.
  std::vector<uint8_t> out(x.raw_size);
  size_t used = 0;
  ndp::Status st = ndp::decode_block(data, size, x, out.data(), &used);
  if (st.ok() && (used > size || used < ndp::kBlockHeaderBytes)) __builtin_trap();
  if (st.ok()) {
    // A block that decodes must re-encode to a block that decodes to the same bytes.
    std::vector<uint8_t> again, back(x.raw_size);
    auto r = ndp::encode_block(out.data(), out.size(), x.plane_id, x.block_id, ndp::CodecPolicy::kAuto, false, again);
    if (!r.ok()) __builtin_trap();
    if (!ndp::decode_block(again.data(), again.size(), x, back.data()).ok()) __builtin_trap();
    if (back != out) __builtin_trap();
  }
  if (size >= 4) {
    ndp::BlockExpect y;
    y.what = "fuzz block (tail expectations)";
    y.plane_id = data[size - 1];
    y.block_id = data[size - 2];
    y.raw_size = 1 + ((static_cast<uint32_t>(data[size - 3]) << 8 | data[size - 4]) & 0xFFFF);
    std::vector<uint8_t> out2(y.raw_size);
    (void)ndp::decode_block(data, size - 4, y, out2.data());
  }
  return 0;
}
