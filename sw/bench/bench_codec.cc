// Plane block codec and image pipeline throughput (single core) on real BF16 weight planes: GPT-2
// attention weights from ../shared/data (FP32 -> BF16 RNE), or, when that data is absent, a
// deterministic synthetic N(0, 0.02) weight set of the same size (a message says which).
// Bytes processed = raw (decoded) plane bytes for block benchmarks, element bytes for the pipeline.
//   build/sw/bench/bench_codec --benchmark_min_time=0.5
// Benchmarks:
//   BlockEncode/<policy>, BlockDecode/<policy>: ndp::BlockEncoder / BlockDecoder over every plane
//     block (sign, EXPBYTE, 7 mantissa per 32768-element chunk), policy auto / lz4 / zstd.
//   Exp/<coder>Encode, Exp/<coder>Decode: only the EXPBYTE planes, coder = LZ4 block, libzstd
//     level-3 frame, literals-only Huffman frame (decode: ZSTD_decompressDCtx, as decode_block).
//   Pipeline/Write: ImageWriter::add_tensor of the whole set (pack_chunk + encode) and finish();
//   Pipeline/Read: ImageReader::read_tensor of every tensor (decode + unpack_chunk).
#include <benchmark/benchmark.h>
#include <lz4.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "../codec/tests/real_data.h"
#include "ndp/block.h"
#include "ndp/huffman_frame.h"
#include "ndp/image.h"
#include "ndp/planes.h"

namespace {

struct Plane {
  uint8_t id;
  std::vector<uint8_t> bytes;
};

struct Corpus {
  std::vector<ndp::testdata::NamedTensor> tensors;
  std::vector<Plane> planes;  // every block of every chunk
  uint64_t plane_bytes = 0, exp_bytes = 0;
};

const Corpus& corpus() {
  static Corpus c = [] {
    Corpus k;
    std::string why;
    k.tensors = ndp::testdata::load_gpt2_attention(&why);
    if (k.tensors.empty()) {
      std::fprintf(stderr, "bench_codec: %s; using synthetic N(0, 0.02) weights instead\n", why.c_str());
      std::mt19937 rng(1234);
      std::normal_distribution<float> nd(0.0f, 0.02f);
      for (int i = 0; i < 24; ++i) {
        ndp::testdata::NamedTensor t{"synthetic" + std::to_string(i), {768, 768}, {}, {}};
        t.fp32.resize(768 * 768);
        for (auto& u : t.fp32) u = ndp::f32_bits(nd(rng));
        ndp::testdata::finish(t);
        k.tensors.push_back(std::move(t));
      }
    } else {
      std::fprintf(stderr, "bench_codec: GPT-2 attention weights (24 x 768x768, BF16 by RNE)\n");
    }
    std::vector<std::vector<uint8_t>> planes;
    const auto order = ndp::plane_order(ndp::DType::kBF16, ndp::Layout::kExpByte);
    for (const auto& t : k.tensors)
      for (size_t at = 0; at < t.bf16.size(); at += ndp::kDefaultChunkElems) {
        const size_t n = std::min<size_t>(ndp::kDefaultChunkElems, t.bf16.size() - at);
        ndp::pack_chunk(ndp::DType::kBF16, ndp::Layout::kExpByte,
                        reinterpret_cast<const uint8_t*>(t.bf16.data() + at), n, planes);
        for (size_t p = 0; p < planes.size(); ++p) {
          k.plane_bytes += planes[p].size();
          if (order[p] == ndp::kPlaneExpByte) k.exp_bytes += planes[p].size();
          k.planes.push_back({order[p], planes[p]});
        }
      }
    return k;
  }();
  return c;
}

void BM_BlockEncode(benchmark::State& state, ndp::CodecPolicy pol) {
  const Corpus& c = corpus();
  ndp::BlockEncoder enc;
  std::vector<uint8_t> out;
  uint64_t stored = 0;
  for (auto _ : state) {
    stored = 0;
    for (size_t i = 0; i < c.planes.size(); ++i) {
      out.clear();
      auto r = enc.encode(c.planes[i].bytes.data(), c.planes[i].bytes.size(), c.planes[i].id, i, pol, false, out);
      if (!r.ok()) state.SkipWithError(r.status().message().c_str());
      stored += out.size();
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.plane_bytes));
  state.counters["ratio"] = static_cast<double>(c.plane_bytes) / static_cast<double>(stored);
}

void BM_BlockDecode(benchmark::State& state, ndp::CodecPolicy pol) {
  const Corpus& c = corpus();
  ndp::BlockEncoder enc;
  std::vector<std::vector<uint8_t>> blocks(c.planes.size());
  for (size_t i = 0; i < c.planes.size(); ++i)
    (void)enc.encode(c.planes[i].bytes.data(), c.planes[i].bytes.size(), c.planes[i].id, i, pol, false, blocks[i]);
  ndp::BlockDecoder dec;
  std::vector<uint8_t> out(65536);
  for (auto _ : state)
    for (size_t i = 0; i < blocks.size(); ++i) {
      ndp::BlockExpect x{c.planes[i].id, i, static_cast<uint32_t>(c.planes[i].bytes.size()), 0, "bench"};
      ndp::Status st = dec.decode(blocks[i].data(), blocks[i].size(), x, out.data());
      if (!st.ok()) state.SkipWithError(st.message().c_str());
      benchmark::DoNotOptimize(out.data());
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.plane_bytes));
}

enum class Coder { kLz4, kZstd, kHuffman };

std::vector<uint8_t> exp_encode(Coder k, const std::vector<uint8_t>& p, ZSTD_CCtx* cctx) {
  std::vector<uint8_t> out;
  if (k == Coder::kLz4) {
    out.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(p.size()))));
    out.resize(static_cast<size_t>(LZ4_compress_default(reinterpret_cast<const char*>(p.data()),
                                                        reinterpret_cast<char*>(out.data()),
                                                        static_cast<int>(p.size()), static_cast<int>(out.size()))));
  } else if (k == Coder::kZstd) {
    out.resize(ZSTD_compressBound(p.size()));
    out.resize(ZSTD_compressCCtx(cctx, out.data(), out.size(), p.data(), p.size(), ndp::kZstdLevel));
  } else {
    ndp::write_huffman_frame(p.data(), p.size(), out);
  }
  return out;
}

void BM_ExpEncode(benchmark::State& state, Coder k) {
  const Corpus& c = corpus();
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  uint64_t stored = 0;
  for (auto _ : state) {
    stored = 0;
    for (const Plane& p : c.planes)
      if (p.id == ndp::kPlaneExpByte) stored += exp_encode(k, p.bytes, cctx).size();
  }
  ZSTD_freeCCtx(cctx);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.exp_bytes));
  state.counters["ratio"] = static_cast<double>(c.exp_bytes) / static_cast<double>(stored);
}

void BM_ExpDecode(benchmark::State& state, Coder k) {
  const Corpus& c = corpus();
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::vector<std::pair<const Plane*, std::vector<uint8_t>>> enc;
  for (const Plane& p : c.planes)
    if (p.id == ndp::kPlaneExpByte) enc.emplace_back(&p, exp_encode(k, p.bytes, cctx));
  std::vector<uint8_t> out(65536);
  for (auto _ : state)
    for (const auto& [p, e] : enc) {
      const size_t n = p->bytes.size();
      size_t r;
      if (k == Coder::kLz4)
        r = static_cast<size_t>(LZ4_decompress_safe(reinterpret_cast<const char*>(e.data()),
                                                    reinterpret_cast<char*>(out.data()), static_cast<int>(e.size()),
                                                    static_cast<int>(n)));
      else
        r = ZSTD_decompressDCtx(dctx, out.data(), n, e.data(), e.size());
      if (r != n) state.SkipWithError("decode failed");
      benchmark::DoNotOptimize(out.data());
    }
  ZSTD_freeCCtx(cctx);
  ZSTD_freeDCtx(dctx);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.exp_bytes));
}

void BM_PipelineWrite(benchmark::State& state) {
  const Corpus& c = corpus();
  uint64_t raw = 0, image = 0;
  for (auto _ : state) {
    ndp::ImageWriter w;
    raw = 0;
    for (const auto& t : c.tensors) {
      (void)w.add_tensor(t.name, ndp::DType::kBF16, t.shape, reinterpret_cast<const uint8_t*>(t.bf16.data()),
                         2 * t.bf16.size());
      raw += 2 * t.bf16.size();
    }
    auto img = w.finish();
    image = img->size();
    benchmark::DoNotOptimize(img->data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * raw));
  state.counters["device_ratio"] = static_cast<double>(raw) / static_cast<double>(image);
}

void BM_PipelineRead(benchmark::State& state) {
  const Corpus& c = corpus();
  ndp::ImageWriter w;
  uint64_t raw = 0;
  for (const auto& t : c.tensors) {
    (void)w.add_tensor(t.name, ndp::DType::kBF16, t.shape, reinterpret_cast<const uint8_t*>(t.bf16.data()),
                       2 * t.bf16.size());
    raw += 2 * t.bf16.size();
  }
  auto r = ndp::ImageReader::open_bytes(w.finish().value());
  if (!r.ok()) {
    state.SkipWithError(r.status().message().c_str());
    return;
  }
  std::vector<uint8_t> out;
  for (auto _ : state)
    for (size_t i = 0; i < c.tensors.size(); ++i) {
      if (!r.value()->read_tensor(i, out).ok()) state.SkipWithError("read failed");
      benchmark::DoNotOptimize(out.data());
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * raw));
}

BENCHMARK_CAPTURE(BM_BlockEncode, auto, ndp::CodecPolicy::kAuto)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BlockEncode, lz4, ndp::CodecPolicy::kLz4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BlockEncode, zstd, ndp::CodecPolicy::kZstd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BlockDecode, auto, ndp::CodecPolicy::kAuto)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BlockDecode, lz4, ndp::CodecPolicy::kLz4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BlockDecode, zstd, ndp::CodecPolicy::kZstd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExpEncode, lz4, Coder::kLz4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExpEncode, zstd_level3, Coder::kZstd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExpEncode, huffman_frame, Coder::kHuffman)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExpDecode, lz4, Coder::kLz4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExpDecode, zstd_level3, Coder::kZstd)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExpDecode, huffman_frame, Coder::kHuffman)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PipelineWrite)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PipelineRead)->Unit(benchmark::kMillisecond);

}  // namespace
