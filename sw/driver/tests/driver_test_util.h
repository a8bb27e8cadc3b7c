// Shared helpers of the driver tests: the images (device_test_util.h plus a BF16 expbyte image
// with partial chunks), a node daemon in a child process, dax stand-in files, golden regions.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "device_test_util.h"
#include "ndp/driver.h"
#include "ndp/emu_node.h"

namespace ndp::drv::test {

using dev::devtest::test_seed;

// BF16 expbyte tensors with partial chunks and a partial last 64-element group (the soft kernel's
// tail), LZ4/ZSTD/RAW blocks, plus an fp32 tensor. rtl: what the RTL bench's ndp_device maps (bf16
// only, chunk_elems multiples of 2048).
inline std::vector<uint8_t> bf16_image(bool rtl = false) {
  ImageWriter w;
  struct T { uint64_t n; uint32_t ce; CodecPolicy p; };
  const uint32_t small = rtl ? 2048 : 1024, tiny = rtl ? 2048 : 128;
  const T ts[] = {{70001, 4096, CodecPolicy::kAuto}, {4133, 2048, CodecPolicy::kLz4}, {64 * 33, small, CodecPolicy::kRaw},
                  {131, tiny, CodecPolicy::kZstd}};
  int i = 0;
  for (const T& t : ts) {
    const std::vector<uint8_t> d = imgtest::weights(DType::kBF16, t.n, 500 + i);
    EXPECT_TRUE(w.add_tensor("bf16_" + std::to_string(i++), DType::kBF16, {t.n}, d.data(), d.size(),
                             {t.ce, Layout::kExpByte, t.p}).ok());
  }
  if (!rtl) {
    const std::vector<uint8_t> f = imgtest::weights(DType::kFP32, 3000, 77);
    EXPECT_TRUE(w.add_tensor("fp32", DType::kFP32, {3000}, f.data(), f.size(), {1024, Layout::kExpByte}).ok());
  }
  return dev::devtest::finish(w);
}

// A file of `bytes` zero bytes standing in for a devdax device; removed by the destructor.
struct DaxFile {
  std::string path;
  explicit DaxFile(uint64_t bytes = uint64_t{256} << 20) {
    char tmpl[] = "/tmp/ndp-dax-XXXXXX";
    const int fd = mkstemp(tmpl);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(ftruncate(fd, static_cast<off_t>(bytes)), 0);
    close(fd);
    path = tmpl;
  }
  ~DaxFile() { unlink(path.c_str()); }
  std::string uri() const { return "dax:" + path; }
};

// A node daemon in a child process on a private abstract socket; stopped by the destructor.
struct NodeProcess {
  std::string socket;
  pid_t pid = -1;
  explicit NodeProcess(uint64_t dram = uint64_t{1} << 30) {
    static int count = 0;
    socket = "@ndp-test-" + std::to_string(getpid()) + "-" + std::to_string(count++);
    int p[2];
    EXPECT_EQ(pipe(p), 0);
    pid = fork();
    if (pid == 0) {
      close(p[0]);
      EmuNodeOptions o;
      o.socket = socket;
      o.device.dram_bytes = dram;
      Status s = run_emu_node(o, [&] {
        (void)!write(p[1], "R", 1);
        close(p[1]);
      });
      _exit(s.ok() ? 0 : 3);
    }
    close(p[1]);
    char c = 0;
    EXPECT_EQ(read(p[0], &c, 1), 1) << "node did not start";
    close(p[0]);
  }
  ~NodeProcess() {
    if (pid <= 0) return;
    Status s = stop_emu_node(socket);
    EXPECT_TRUE(s.ok()) << s.message();
    int ws = 0;
    waitpid(pid, &ws, 0);
    EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0) << "node exit status " << ws;
  }
  std::string uri() const { return "emu:" + socket; }
};

inline std::unique_ptr<Device> open_ok(const std::string& uri, const OpenOptions& o = {}) {
  auto d = Device::open(uri, o);
  EXPECT_TRUE(d.ok()) << uri << ": " << d.status().message();
  return d.ok() ? std::move(d.value()) : nullptr;
}

inline uint32_t load_ok(Device& d, const std::vector<uint8_t>& image) {
  auto id = d.load(image.data(), image.size());
  EXPECT_TRUE(id.ok()) << d.uri() << ": " << id.status().message();
  return id.ok() ? id.value() : 0;
}

}  // namespace ndp::drv::test
