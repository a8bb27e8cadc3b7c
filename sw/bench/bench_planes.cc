// Single-core throughput of the golden model's hot paths over one default chunk (32768 elements):
// bit-plane pack/unpack (bf16 in both layouts, fp32) against memcpy of the same bytes, and precision
// region assembly (e8m3, fp8-e4m3, mxfp4 with one guard plane). Bytes processed = source element bytes of the chunk.
//   build/sw/bench/bench_planes --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ndp/convert.h"
#include "ndp/planes.h"
#include "ndp/precision.h"

namespace {

constexpr uint64_t kN = ndp::kDefaultChunkElems;

// Weight-like data: N(0, 0.02) FP32 values, as BF16 (RNE) when the dtype is bf16.
std::vector<uint8_t> make_chunk(ndp::DType t) {
  std::mt19937_64 rng(42);
  std::normal_distribution<float> dist(0.0f, 0.02f);
  std::vector<uint8_t> buf(ndp::dtype_bytes(t, kN));
  for (uint64_t i = 0; i < kN; ++i) {
    uint32_t f = ndp::f32_bits(dist(rng));
    if (t == ndp::DType::kBF16) {
      uint16_t h = ndp::fp32_to_bf16_rne(f);
      std::memcpy(&buf[2 * i], &h, 2);
    } else {
      std::memcpy(&buf[4 * i], &f, 4);
    }
  }
  return buf;
}

void BM_Memcpy(benchmark::State& state, ndp::DType t) {
  auto src = make_chunk(t);
  std::vector<uint8_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}

void BM_Pack(benchmark::State& state, ndp::DType t, ndp::Layout l) {
  auto src = make_chunk(t);
  std::vector<std::vector<uint8_t>> planes;
  for (auto _ : state) {
    ndp::pack_chunk(t, l, src.data(), kN, planes);
    benchmark::DoNotOptimize(planes.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}

void BM_Unpack(benchmark::State& state, ndp::DType t, ndp::Layout l) {
  auto src = make_chunk(t);
  std::vector<std::vector<uint8_t>> planes;
  ndp::pack_chunk(t, l, src.data(), kN, planes);
  std::vector<const uint8_t*> ptrs;
  for (auto& p : planes) ptrs.push_back(p.data());
  std::vector<uint8_t> dst(src.size());
  for (auto _ : state) {
    ndp::unpack_chunk(t, l, ptrs, kN, dst.data());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  if (dst != src) state.SkipWithError("unpack(pack(x)) != x");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}

// assemble_region over a bf16 chunk already rebuilt from its planes (the conversion step alone).
void BM_Assemble(benchmark::State& state, const char* region, int guard) {
  const ndp::DType t = ndp::DType::kBF16;
  auto src = make_chunk(t);
  auto r = ndp::parse_region(region, t, guard);
  if (!r.ok()) {
    state.SkipWithError(r.status().message().c_str());
    return;
  }
  std::vector<uint8_t> out(ndp::region_output_bytes(*r, t, kN));
  for (auto _ : state) {
    ndp::Status st = ndp::assemble_region(*r, t, src.data(), kN, out.data());
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}

using ndp::DType;
using ndp::Layout;
BENCHMARK_CAPTURE(BM_Memcpy, bf16, DType::kBF16);
BENCHMARK_CAPTURE(BM_Pack, bf16_bitplane, DType::kBF16, Layout::kBitplane);
BENCHMARK_CAPTURE(BM_Pack, bf16_expbyte, DType::kBF16, Layout::kExpByte);
BENCHMARK_CAPTURE(BM_Unpack, bf16_bitplane, DType::kBF16, Layout::kBitplane);
BENCHMARK_CAPTURE(BM_Unpack, bf16_expbyte, DType::kBF16, Layout::kExpByte);
BENCHMARK_CAPTURE(BM_Memcpy, fp32, DType::kFP32);
BENCHMARK_CAPTURE(BM_Pack, fp32_bitplane, DType::kFP32, Layout::kBitplane);
BENCHMARK_CAPTURE(BM_Pack, fp32_expbyte, DType::kFP32, Layout::kExpByte);
BENCHMARK_CAPTURE(BM_Unpack, fp32_bitplane, DType::kFP32, Layout::kBitplane);
BENCHMARK_CAPTURE(BM_Unpack, fp32_expbyte, DType::kFP32, Layout::kExpByte);

}  // namespace

namespace {
BENCHMARK_CAPTURE(BM_Assemble, bf16_e8m3_g1, "e8m3", 1);
BENCHMARK_CAPTURE(BM_Assemble, bf16_fp8e4m3_g1, "fp8-e4m3", 1);
BENCHMARK_CAPTURE(BM_Assemble, bf16_mxfp4_g1, "mxfp4", 1);
}  // namespace
