// Image writer/reader round trips: every dtype, layout and codec policy; statistics; files; regions.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <memory>

#include "image_test_util.h"
#include "ndp/image.h"
#include "ndp/zstd_hw_model.h"

namespace ndp {
namespace {

using imgtest::weights;

std::unique_ptr<ImageReader> open_ok(std::vector<uint8_t> img) {
  auto r = ImageReader::open_bytes(std::move(img));
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r.value()) : nullptr;
}

TEST(ImageRoundTrip, EveryDtypeLayoutPolicy) {
  uint32_t seed = 100;
  for (DType t : imgtest::kAllTypes)
    for (Layout l : {Layout::kBitplane, Layout::kExpByte})
      for (CodecPolicy pol : {CodecPolicy::kAuto, CodecPolicy::kLz4, CodecPolicy::kZstd, CodecPolicy::kRaw}) {
        ImageWriter w;
        struct T {
          std::string name;
          std::vector<uint64_t> shape;
          uint32_t chunk;
          std::vector<uint8_t> data;
        };
        std::vector<T> ts = {{"a", {3, 1000}, 1024, {}}, {"b", {4097}, 4096, {}}, {"c", {7}, 64, {}},
                             {"empty", {0, 5}, 64, {}}, {"scalar", {}, 32768, {}}};
        for (auto& x : ts) {
          uint64_t n = 1;
          for (auto d : x.shape) n *= d;
          x.data = weights(t, n, ++seed);
          Status st = w.add_tensor(x.name, t, x.shape, x.data.data(), x.data.size(), {x.chunk, l, pol});
          ASSERT_TRUE(st.ok()) << st.message();
        }
        const uint64_t predicted = w.image_bytes();
        auto img = w.finish();
        ASSERT_TRUE(img.ok()) << img.status().message();
        EXPECT_EQ(img->size(), predicted);
        auto r = open_ok(std::move(img.value()));
        ASSERT_TRUE(r);
        ASSERT_EQ(r->tensors().size(), ts.size());
        for (size_t i = 0; i < ts.size(); ++i) {
          const TensorInfo& ti = r->tensors()[i];
          EXPECT_EQ(ti.name, ts[i].name);
          EXPECT_EQ(ti.shape, ts[i].shape);
          EXPECT_EQ(ti.dtype, t);
          EXPECT_EQ(ti.layout, dtype_info(t).is_float ? l : Layout::kBitplane);
          std::vector<uint8_t> back;
          ReadStats rs;
          Status st = r->read_tensor(i, back, &rs);
          ASSERT_TRUE(st.ok()) << st.message();
          ASSERT_EQ(back, ts[i].data) << dtype_info(t).name << " " << ts[i].name;
          EXPECT_EQ(rs.fetched_bytes, ti.stored_bytes);
          EXPECT_EQ(rs.blocks, ti.chunks * ti.plane_ids.size());
        }
        EXPECT_TRUE(r->verify().empty());
      }
}

TEST(ImageRoundTrip, StatisticsAddUp) {
  auto d = weights(DType::kBF16, 100000, 5);
  ImageWriter w;
  ASSERT_TRUE(w.add_tensor("w", DType::kBF16, {100000}, d.data(), d.size()).ok());
  const TensorStats& s = w.stats().at(0);
  EXPECT_EQ(s.raw_bytes, 200000u);
  ASSERT_EQ(s.planes.size(), 9u);
  EXPECT_EQ(s.planes[0].plane_id, 15);
  EXPECT_EQ(s.planes[1].plane_id, 0x40);
  uint64_t stored = 0, raw = 0;
  for (const PlaneStats& p : s.planes) {
    EXPECT_EQ(p.blocks, 4u);  // 100000 elements in chunks of 32768
    uint64_t cs = 0, cb = 0;
    for (int c = 0; c < 4; ++c) {
      cs += p.codec_stored[c];
      cb += p.codec_blocks[c];
    }
    EXPECT_EQ(cs, p.stored_bytes);
    EXPECT_EQ(cb, p.blocks);
    stored += p.stored_bytes;
    raw += p.raw_bytes;
    // GUARD: bf16 mantissa bit-planes only.
    EXPECT_EQ(p.guard, p.plane_id < 7) << int(p.plane_id);
  }
  EXPECT_EQ(stored, s.stored_bytes);
  EXPECT_EQ(raw, 200000u);  // expbyte: 1 + 8 + 7 bits per element
  EXPECT_EQ(s.index_bytes, 4u * (8 + 4 * 9));
  EXPECT_GT(s.planes[1].huffman_blocks, 0u);
  // A stats-only writer reports the same numbers without keeping data.
  ImageWriter w2(false);
  ASSERT_TRUE(w2.add_tensor("w", DType::kBF16, {100000}, d.data(), d.size()).ok());
  EXPECT_EQ(w2.image_bytes(), w.image_bytes());
  EXPECT_EQ(w2.stats()[0].stored_bytes, s.stored_bytes);
  EXPECT_FALSE(w2.finish().ok());
}

TEST(ImageRoundTrip, GuardFlagInStoredHeaders) {
  auto d = weights(DType::kBF16, 5000, 6);
  ImageWriter w;
  ASSERT_TRUE(w.add_tensor("w", DType::kBF16, {5000}, d.data(), d.size()).ok());
  auto img = w.finish();
  ASSERT_TRUE(img.ok());
  const std::vector<uint8_t> bytes = img.value();
  auto r = open_ok(bytes);
  const TensorInfo& t = r->tensors()[0];
  for (size_t p = 0; p < t.plane_ids.size(); ++p) {
    const uint8_t flags = bytes[r->block_offset(0, 0, p) + 3] & 0xF0;
    EXPECT_EQ(flags == 0x10, t.plane_ids[p] < 7) << int(t.plane_ids[p]);
    EXPECT_EQ(bytes[r->block_offset(0, 0, p) + 2], t.plane_ids[p]);
  }
}

TEST(ImageRoundTrip, File) {
  auto d = weights(DType::kFP16, 70000, 7);
  ImageWriter w;
  ASSERT_TRUE(w.add_tensor("x", DType::kFP16, {700, 100}, d.data(), d.size()).ok());
  const std::string path = ::testing::TempDir() + "/ndp_image_test.ndpi";
  ASSERT_TRUE(w.write_file(path).ok());
  auto r = ImageReader::open_file(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto idx = r.value()->find("x");
  ASSERT_TRUE(idx.ok());
  EXPECT_FALSE(r.value()->find("y").ok());
  std::vector<uint8_t> back;
  ASSERT_TRUE(r.value()->read_tensor(idx.value(), back).ok());
  EXPECT_EQ(back, d);
  std::remove(path.c_str());
  auto missing = ImageReader::open_file(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(path), std::string::npos);
}

// Issue 15: open_file mapped the image, so a file truncated by another process while the reader was
// open raised SIGBUS on the next read (the test process died). The reader now owns a copy: reads
// after the truncation still return the data, and a directory or FIFO is a clean error.
TEST(ImageRoundTrip, FileTruncatedWhileOpen) {
  auto d = weights(DType::kBF16, 200000, 9);
  ImageWriter w;
  ASSERT_TRUE(w.add_tensor("x", DType::kBF16, {200000}, d.data(), d.size()).ok());
  const std::string path = ::testing::TempDir() + "/ndp_image_trunc.ndpi";
  ASSERT_TRUE(w.write_file(path).ok());
  auto r = ImageReader::open_file(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(truncate(path.c_str(), 100), 0);  // keep the header only
  std::vector<uint8_t> back;
  ASSERT_TRUE(r.value()->read_tensor(0, back).ok());
  EXPECT_EQ(back, d);
  EXPECT_TRUE(r.value()->verify().empty());
  auto again = ImageReader::open_file(path);  // a new open sees the short file: an error, no crash
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("truncated"), std::string::npos) << again.status().message();
  std::remove(path.c_str());
  auto dir = ImageReader::open_file(::testing::TempDir());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("not a regular file"), std::string::npos) << dir.status().message();
}

TEST(ImageRoundTrip, WriterRejectsBadInput) {
  auto d = weights(DType::kBF16, 1000, 8);
  ImageWriter w;
  EXPECT_FALSE(w.add_tensor("a", DType::kBF16, {1000}, d.data(), d.size() - 2).ok());  // size mismatch
  EXPECT_FALSE(w.add_tensor("a", DType::kBF16, {1000}, d.data(), d.size(), {100}).ok());  // not x64
  EXPECT_FALSE(w.add_tensor("a", DType::kBF16, {1000}, d.data(), d.size(), {131072}).ok());  // expbyte > 64K
  EXPECT_TRUE(w.add_tensor("a", DType::kBF16, {1000}, d.data(), d.size(), {131072, Layout::kBitplane}).ok());
  EXPECT_FALSE(w.add_tensor("a", DType::kBF16, {1000}, d.data(), d.size()).ok());  // duplicate
  EXPECT_FALSE(w.add_tensor("", DType::kBF16, {1000}, d.data(), d.size()).ok());
  ASSERT_TRUE(w.finish().ok());
  EXPECT_FALSE(w.add_tensor("b", DType::kBF16, {1000}, d.data(), d.size()).ok());
  EXPECT_FALSE(w.finish().ok());
}

// Zero the bits of the planes a region does not fetch, element by element (reference view).
std::vector<uint8_t> fetch_view(const std::vector<uint8_t>& src, DType t, Layout l, const Region& r) {
  const auto fetched = region_planes(r, t, l);
  const DTypeInfo& di = dtype_info(t);
  uint32_t keep = 0;
  for (int b = 0; b < di.bits; ++b) {
    const bool exp_bit = di.is_float && b >= di.man_bits && b < di.man_bits + di.exp_bits;
    for (uint8_t id : fetched)
      if (id == b || (exp_bit && id == kPlaneExpByte)) keep |= 1u << b;
  }
  std::vector<uint8_t> v = src;
  const int eb = di.bits / 8;
  for (size_t i = 0; i + eb <= v.size(); i += static_cast<size_t>(eb)) {
    uint32_t x = 0;
    std::memcpy(&x, &v[i], static_cast<size_t>(eb));
    x &= keep;
    std::memcpy(&v[i], &x, static_cast<size_t>(eb));
  }
  return v;
}

TEST(ImageRegion, FetchesOnlyRegionPlanesAndMatchesReference) {
  for (DType t : {DType::kBF16, DType::kFP16, DType::kFP32})
    for (Layout l : {Layout::kExpByte, Layout::kBitplane}) {
      const uint64_t n = 3 * 4096 + 96;  // partial last chunk, multiple of 32
      auto d = weights(t, n, 9 + static_cast<uint32_t>(t));
      ImageWriter w;
      ASSERT_TRUE(w.add_tensor("w", t, {n}, d.data(), d.size(), {4096, l, CodecPolicy::kAuto}).ok());
      auto r = open_ok(w.finish().value());
      const TensorInfo& ti = r->tensors()[0];
      for (int g = 0; g <= 2; ++g)
        for (const Region& reg : all_regions(t, g)) {
          std::vector<uint8_t> out;
          ReadStats rs;
          Status st = r->read_region(0, reg, out, &rs);
          ASSERT_TRUE(st.ok()) << region_name(reg, t) << ": " << st.message();
          // Fetched bytes: exactly the blocks of the region's planes.
          const auto planes = region_planes(reg, t, l);
          uint64_t want = 0;
          for (uint64_t k = 0; k < ti.chunks; ++k)
            for (size_t p = 0; p < ti.plane_ids.size(); ++p)
              if (std::find(planes.begin(), planes.end(), ti.plane_ids[p]) != planes.end())
                want += r->block_span(0, k, p);
          EXPECT_EQ(rs.fetched_bytes, want) << region_name(reg, t);
          EXPECT_EQ(rs.blocks, ti.chunks * planes.size());
          if (planes.size() < ti.plane_ids.size()) {
            EXPECT_LT(rs.fetched_bytes, ti.stored_bytes) << region_name(reg, t);
          }
          // Output: assemble_region over the whole reference view.
          const auto view = fetch_view(d, t, l, reg);
          std::vector<uint8_t> ref(region_output_bytes(reg, t, n));
          ASSERT_TRUE(assemble_region(reg, t, view.data(), n, ref.data()).ok());
          ASSERT_EQ(out, ref) << dtype_info(t).name << " " << region_name(reg, t);
        }
    }
}

TEST(ImageRegion, IntegerTensorsFullOnly) {
  auto d = weights(DType::kINT8, 3000, 10);
  ImageWriter w;
  ASSERT_TRUE(w.add_tensor("q", DType::kINT8, {3000}, d.data(), d.size()).ok());
  auto r = open_ok(w.finish().value());
  std::vector<uint8_t> out;
  ASSERT_TRUE(r->read_region(0, Region{}, out).ok());
  EXPECT_EQ(out, d);
}

// Issue 15: a tensor that failed half-way stayed in the writer's tables (with its chunk data), so a
// later finish() described blocks that were never completed. A failed add now leaves the writer as
// it was: here the image limit stops tensor "b" at its third chunk, and finish() must give exactly
// the image of a writer that only ever saw "a".
TEST(ImageWriterAtomic, FailedAddLeavesTheWriterAsItWas) {
  const auto a = imgtest::weights(DType::kBF16, 3000, 11);
  const auto b = imgtest::weights(DType::kFP32, 8192, 12);  // 8 chunks of 1024, hardly compressible
  const TensorOptions to{1024};
  ImageWriter only_a;
  ASSERT_TRUE(only_a.add_tensor("a", DType::kBF16, {3000}, a.data(), a.size(), to).ok());
  const uint64_t a_bytes = only_a.image_bytes();
  const auto expect = only_a.finish().value();

  ImageWriter w;
  ASSERT_TRUE(w.add_tensor("a", DType::kBF16, {3000}, a.data(), a.size(), to).ok());
  w.set_max_image_bytes(a_bytes + 2 * 4096 + 1000);  // room for about two chunks of "b"
  Status st = w.add_tensor("b", DType::kFP32, {8192}, b.data(), b.size(), to);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("tensor 'b' chunk 2: the image would exceed its limit"), std::string::npos)
      << st.message();
  EXPECT_EQ(w.image_bytes(), a_bytes);
  ASSERT_EQ(w.stats().size(), 1u);
  // A failed add of an existing name must not release it either.
  EXPECT_FALSE(w.add_tensor("a", DType::kBF16, {3000}, a.data(), a.size(), to).ok());
  EXPECT_FALSE(w.add_tensor("a", DType::kBF16, {3000}, a.data(), a.size(), to).ok());
  auto img = w.finish();
  ASSERT_TRUE(img.ok()) << img.status().message();
  EXPECT_EQ(img.value(), expect);
  auto r = ImageReader::open_bytes(img.value());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r.value()->verify().empty());

  // Without the limit, the same add then succeeds and gives the two-tensor image.
  ImageWriter w2, ab;
  ASSERT_TRUE(w2.add_tensor("a", DType::kBF16, {3000}, a.data(), a.size(), to).ok());
  w2.set_max_image_bytes(a_bytes + 1);
  ASSERT_FALSE(w2.add_tensor("b", DType::kFP32, {8192}, b.data(), b.size(), to).ok());
  w2.set_max_image_bytes(0);
  ASSERT_TRUE(w2.add_tensor("b", DType::kFP32, {8192}, b.data(), b.size(), to).ok());
  ASSERT_TRUE(ab.add_tensor("a", DType::kBF16, {3000}, a.data(), a.size(), to).ok());
  ASSERT_TRUE(ab.add_tensor("b", DType::kFP32, {8192}, b.data(), b.size(), to).ok());
  EXPECT_EQ(w2.finish().value(), ab.finish().value());
}

// The limit is exact: an image of exactly max bytes is accepted.
TEST(ImageWriterAtomic, LimitIsInclusive) {
  const auto a = imgtest::weights(DType::kBF16, 3000, 11);
  ImageWriter probe;
  ASSERT_TRUE(probe.add_tensor("a", DType::kBF16, {3000}, a.data(), a.size(), {1024}).ok());
  ImageWriter w;
  w.set_max_image_bytes(probe.image_bytes());
  ASSERT_TRUE(w.add_tensor("a", DType::kBF16, {3000}, a.data(), a.size(), {1024}).ok());
  EXPECT_EQ(w.finish().value().size(), probe.image_bytes());
}

// set_block_encoder: the writer's container around blocks another encoder wrote (the RTL runner's
// `ndp-rtl pack` hands over the hardware lanes' blocks this way).
TEST(ImageWriterEncoder, ForeignBlocksInTheSameContainer) {
  const std::vector<uint8_t> a = weights(DType::kBF16, 70000, 31), b = weights(DType::kBF16, 100, 32);
  // the software encoder passed in by hand gives the default writer's image, byte for byte
  ImageWriter def, same;
  auto enc = std::make_shared<BlockEncoder>();
  uint64_t calls = 0;
  same.set_block_encoder([enc, &calls](const uint8_t* p, size_t n, uint8_t id, uint64_t k, CodecPolicy pol, bool g,
                                       std::vector<uint8_t>& out) {
    ++calls;
    return enc->encode(p, n, id, k, pol, g, out);
  });
  for (ImageWriter* w : {&def, &same}) {
    ASSERT_TRUE(w->add_tensor("a", DType::kBF16, {70000}, a.data(), a.size(), {32768, Layout::kExpByte}).ok());
    ASSERT_TRUE(w->add_tensor("b", DType::kBF16, {100}, b.data(), b.size(), {64, Layout::kBitplane}).ok());
  }
  EXPECT_EQ(calls, 3u * 9 + 2u * 16);  // one call per plane block, in storage order
  EXPECT_EQ(def.finish().value(), same.finish().value());

  // the hardware lane's golden encoder: a different block mix, still a valid image read back exactly
  ImageWriter hw;
  hw.set_block_encoder([](const uint8_t* p, size_t n, uint8_t id, uint64_t k, CodecPolicy pol, bool g,
                          std::vector<uint8_t>& out) { return encode_block_lane(p, n, id, k, pol, g, out); });
  ASSERT_TRUE(hw.add_tensor("a", DType::kBF16, {70000}, a.data(), a.size(), {32768, Layout::kExpByte}).ok());
  EXPECT_GT(hw.stats()[0].planes[0].huffman_blocks + hw.stats()[0].planes[1].huffman_blocks, 0u);
  auto r = open_ok(hw.finish().value());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->verify().empty());
  std::vector<uint8_t> back;
  ASSERT_TRUE(r->read_tensor(0, back).ok());
  EXPECT_EQ(back, a);
}

TEST(ImageWriterEncoder, FailingEncoderLeavesTheWriterAsItWas) {
  const std::vector<uint8_t> a = weights(DType::kBF16, 1000, 33);
  ImageWriter w;
  ASSERT_TRUE(w.add_tensor("first", DType::kBF16, {1000}, a.data(), a.size(), {64}).ok());
  const uint64_t size = w.image_bytes();
  int left = 20;
  w.set_block_encoder([&left](const uint8_t* p, size_t n, uint8_t id, uint64_t k, CodecPolicy pol, bool g,
                              std::vector<uint8_t>& out) -> Result<BlockInfo> {
    if (--left == 0) return Status::Error("lane gave up");
    return encode_block_lane(p, n, id, k, pol, g, out);
  });
  Status st = w.add_tensor("second", DType::kBF16, {1000}, a.data(), a.size(), {64});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("tensor 'second' chunk 2: lane gave up"), std::string::npos) << st.message();
  EXPECT_EQ(w.image_bytes(), size);
  w.set_block_encoder({});  // back to the software encoder
  ASSERT_TRUE(w.add_tensor("second", DType::kBF16, {1000}, a.data(), a.size(), {64}).ok());
  auto r = open_ok(w.finish().value());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->tensors().size(), 2u);
}

}  // namespace
}  // namespace ndp
