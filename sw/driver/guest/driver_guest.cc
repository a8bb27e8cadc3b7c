// Self-checking program of the QEMU cxl-type3 guest (scripts/qemu-driver-dax-test.sh): libndp's dax
// backend on real CXL memory of the emulated device, as a devdax device and, once onlined, as a
// CPU-less NUMA node.
//   ndp_driver_guest_test dax /dev/daxX.Y [IMAGE...]
//   ndp_driver_guest_test numa NODE [IMAGE...]
// Loads a built-in synthetic image (every dtype and layout, partial chunks) and each IMAGE into that
// memory, reads every region and guard count of every tensor and compares it with the golden reader
// over the host copy, maps a region (numa: with its pages on DRAM node 0, placed by sw/runtime, while
// the image is on the CXL node), and round-trips a KV stream. Prints NDPDRV CHECK lines and a
// final "NDPDRV PASS ..." or "NDPDRV FAIL ..."; exit status 0 only on PASS.
#include <numaif.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "ndp/driver.h"
#include "ndp/image.h"

namespace {

using namespace ndp;

std::vector<uint8_t> synthetic_image() {
  struct T { DType t; uint64_t n; uint32_t ce; Layout l; };
  const T ts[] = {{DType::kBF16, 70001, 4096, Layout::kExpByte}, {DType::kBF16, 5000, 1024, Layout::kBitplane},
                  {DType::kFP32, 3000, 1024, Layout::kExpByte},   {DType::kFP16, 4000, 2048, Layout::kExpByte},
                  {DType::kFP8E4M3, 3001, 128, Layout::kExpByte}, {DType::kINT8, 999, 512, Layout::kBitplane},
                  {DType::kINT4, 1337, 384, Layout::kBitplane}};
  std::mt19937 rng(20240611);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  ImageWriter w;
  int i = 0;
  for (const T& t : ts) {
    std::vector<uint8_t> d(dtype_bytes(t.t, t.n));
    for (size_t k = 0; k < d.size(); ++k) {
      float f = nd(rng);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      d[k] = static_cast<uint8_t>(t.t == DType::kFP32 || t.t == DType::kBF16 ? u >> (8 * (k % 2 + 2)) : rng());
    }
    if (!w.add_tensor("t" + std::to_string(i++), t.t, {t.n}, d.data(), d.size(), {t.ce, t.l}).ok()) return {};
  }
  auto img = w.finish();
  return img.ok() ? img.value() : std::vector<uint8_t>{};
}

// Every region of every tensor of one image: device bytes == golden bytes. Returns regions compared
// or -1 (message printed).
long check_image(drv::Device& dev, const std::vector<uint8_t>& bytes, const std::string& what) {
  auto gold = ImageReader::open_bytes(bytes);
  if (!gold.ok()) return std::printf("NDPDRV FAIL %s: %s\n", what.c_str(), gold.status().message().c_str()), -1;
  auto id = dev.load(bytes.data(), bytes.size());
  if (!id.ok()) return std::printf("NDPDRV FAIL %s: load: %s\n", what.c_str(), id.status().message().c_str()), -1;
  long n = 0;
  uint64_t fetched = 0, out = 0;
  std::vector<uint8_t> got, want;
  for (size_t t = 0; t < gold.value()->tensors().size(); ++t) {
    const TensorInfo& ti = gold.value()->tensors()[t];
    for (int g = 0; g <= 2; ++g)
      for (const Region& r : all_regions(ti.dtype, g)) {
        drv::CallStats st;
        Status s = dev.read_region(id.value(), t, r, got, &st);
        if (!s.ok() || !gold.value()->read_region(t, r, want).ok() || got != want) {
          std::printf("NDPDRV FAIL %s: tensor '%s' region %s g=%d: %s\n", what.c_str(), ti.name.c_str(),
                      region_name(r, ti.dtype).c_str(), g, s.ok() ? "bytes differ" : s.message().c_str());
          return -1;
        }
        fetched += st.device_bytes;
        out += got.size();
        ++n;
      }
  }
  std::printf("NDPDRV CHECK %s: %ld regions bit-exact (%llu output bytes, %llu bytes fetched from CXL memory)\n",
              what.c_str(), n, static_cast<unsigned long long>(out), static_cast<unsigned long long>(fetched));
  return n;
}

// Every page of the mapping on `node` (move_pages), when node >= 0.
bool pages_on(const uint8_t* p, uint64_t len, int node) {
  if (node < 0) return true;
  std::vector<void*> pages;
  for (uint64_t at = 0; at < len; at += 4096) pages.push_back(const_cast<uint8_t*>(p) + at);
  std::vector<int> where(pages.size(), -1);
  if (move_pages(0, pages.size(), pages.data(), nullptr, where.data(), 0) != 0) return false;
  for (int w : where)
    if (w != node) return std::printf("NDPDRV FAIL a mapped page is on node %d, not %d\n", w, node), false;
  std::printf("NDPDRV CHECK the %zu mapped pages are on host node %d\n", pages.size(), node);
  return true;
}

bool check_map_and_kv(drv::Device& dev, const std::vector<uint8_t>& bytes, int host_node) {
  auto id = dev.load(bytes.data(), bytes.size());
  auto gold = ImageReader::open_bytes(bytes);
  if (!id.ok() || !gold.ok()) return false;
  std::vector<uint8_t> want;
  const Region r = parse_region("fp8-e4m3", DType::kBF16, 1).value();
  if (!gold.value()->read_region(0, r, want).ok()) return false;
  auto m = dev.map(id.value(), 0, r, 0, want.size());
  if (!m.ok()) return std::printf("NDPDRV FAIL map: %s\n", m.status().message().c_str()), false;
  if (std::memcmp(m.value()->data(), want.data(), want.size()) != 0) return std::printf("NDPDRV FAIL map bytes\n"), false;
  if (!pages_on(m.value()->data(), want.size(), host_node)) return false;
  std::vector<uint16_t> in(70 * 64), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint16_t>(0x3C00 + (i * 2654435761u >> 20) % 700);
  auto kv = dev.kv_create(DType::kBF16, {32, 64, 1});
  if (!kv.ok() || !dev.kv_append(kv.value(), in.data(), 70).ok() || !dev.kv_read(kv.value(), 0, 70, out.data()).ok() ||
      in != out)
    return std::printf("NDPDRV FAIL kv round trip\n"), false;
  std::printf("NDPDRV CHECK map (%llu faults) and KV stream (70 tokens) bit-exact\n",
              static_cast<unsigned long long>(m.value()->faults()));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::string(argv[1]) != "dax" && std::string(argv[1]) != "numa")) {
    std::fprintf(stderr, "usage: ndp_driver_guest_test dax /dev/daxX.Y|numa NODE [IMAGE...]\n");
    return 2;
  }
  const std::string uri = std::string(argv[1]) == "dax" ? std::string("dax:") + argv[2] : std::string("dax:numa:") + argv[2];
  const bool numa = std::string(argv[1]) == "numa";
  drv::OpenOptions o;
  o.dram_bytes = uint64_t{64} << 20;  // dax:numa: memory placed on the node
  o.host_node = numa ? 0 : -1;        // host-side buffers (mapped regions) on the DRAM node
  auto dev = drv::Device::open(uri, o);
  if (!dev.ok()) return std::printf("NDPDRV FAIL open %s: %s\n", uri.c_str(), dev.status().message().c_str()), 1;
  std::printf("NDPDRV CHECK opened %s (%llu bytes)\n", dev.value()->backend_name().c_str(),
              static_cast<unsigned long long>(dev.value()->stats().device_memory));
  const std::vector<uint8_t> synth = synthetic_image();
  long total = check_image(*dev.value(), synth, "synthetic image");
  for (int i = 3; i < argc && total >= 0; ++i) {
    std::ifstream f(argv[i], std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const long n = check_image(*dev.value(), bytes, argv[i]);
    total = n < 0 ? -1 : total + n;
  }
  if (total < 0 || !check_map_and_kv(*dev.value(), synth, o.host_node)) return 1;
  std::printf("NDPDRV PASS %s: %ld regions bit-exact\n", uri.c_str(), total);
  return 0;
}
