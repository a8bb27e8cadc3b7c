// The emulated node as a device shared by processes: one daemon, several client processes loading
// their own images and reading every region concurrently (results exact), a client with a corrupt
// image and one that dies mid-session while the others keep being served; afterwards the node's
// DRAM is all free again (a departed client's images are released). Also the auto-started node of
// the default socket.
#include <sys/wait.h>

#include <random>

#include "driver_test_util.h"

namespace ndp::drv::test {
namespace {

// Child body: every region of every tensor of `image`, `rounds` times, compared with the golden
// reader. Returns "" or the first failure.
std::string client_reads(const std::string& uri, const std::vector<uint8_t>& image, int rounds) {
  auto gold = ImageReader::open_bytes(image);
  auto dev = Device::open(uri);
  if (!gold.ok() || !dev.ok()) return "open: " + dev.status().message();
  auto id = dev.value()->load(image.data(), image.size());
  if (!id.ok()) return "load: " + id.status().message();
  std::vector<uint8_t> want, got;
  for (int round = 0; round < rounds; ++round)
    for (size_t t = 0; t < gold.value()->tensors().size(); ++t) {
      const DType dt = gold.value()->tensors()[t].dtype;
      for (const Region& r : all_regions(dt, round % 3)) {
        if (!gold.value()->read_region(t, r, want).ok()) return "golden read";
        Status s = dev.value()->read_region(id.value(), t, r, got);
        if (!s.ok()) return "read: " + s.message();
        if (got != want) return "tensor " + std::to_string(t) + " region " + region_name(r, dt) + " differs";
      }
    }
  return "";
}

pid_t fork_client(const std::function<std::string()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string err = body();
    if (!err.empty()) std::fprintf(stderr, "client %d: %s\n", getpid(), err.c_str());
    _exit(err.empty() ? 0 : 1);
  }
  return pid;
}

TEST(DriverNode, SeveralClientProcessesAtOnce) {
  const std::vector<uint8_t> a = bf16_image(), b = dev::devtest::synth_image();
  uint64_t corrupt_at = 0;
  std::vector<uint8_t> bad = a;
  {
    auto rd = ImageReader::open_bytes(bad);
    ASSERT_TRUE(rd.ok());
    corrupt_at = rd.value()->block_offset(1, 1, 1);  // tensor 1, chunk 1, EXPBYTE
    bad[corrupt_at + 14] ^= 0x5A;
  }
  NodeProcess node;
  const std::string uri = node.uri();
  std::vector<pid_t> pids;
  for (int c = 0; c < 4; ++c) pids.push_back(fork_client([&] { return client_reads(uri, c % 2 ? a : b, 2); }));
  // A client whose image has a bad block: its bad reads fail, its good ones do not.
  pids.push_back(fork_client([&]() -> std::string {
    auto dev = Device::open(uri);
    if (!dev.ok()) return dev.status().message();
    auto id = dev.value()->load(bad.data(), bad.size());
    if (!id.ok()) return id.status().message();
    std::vector<uint8_t> out;
    for (int i = 0; i < 20; ++i) {
      Status s = dev.value()->read_region(id.value(), 1, Region{}, out);
      if (s.ok() || s.message().find("chunk 1") == std::string::npos) return "corrupt read: " + s.message();
      if (!dev.value()->read_region(id.value(), 0, Region{}, out).ok()) return "good tensor failed";
    }
    return "";
  }));
  // A client that dies holding an image.
  pids.push_back(fork_client([&]() -> std::string {
    auto dev = Device::open(uri);
    if (!dev.ok() || !dev.value()->load(a.data(), a.size()).ok()) return "load";
    _exit(0);
  }));
  for (pid_t p : pids) {
    int ws = 0;
    ASSERT_EQ(waitpid(p, &ws, 0), p);
    EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0) << "client " << p << " status " << ws;
  }
  auto dev = open_ok(uri);
  ASSERT_TRUE(dev);
  for (int i = 0; i < 50 && dev->stats().device_free != dev->stats().device_memory; ++i) usleep(20000);
  EXPECT_EQ(dev->stats().device_free, dev->stats().device_memory) << "images of departed clients are freed";
}

TEST(DriverNode, ClientsSeeOnlyTheirImages) {
  NodeProcess node;
  const std::vector<uint8_t> a = bf16_image();
  auto one = open_ok(node.uri()), two = open_ok(node.uri());
  ASSERT_TRUE(one && two);
  const uint32_t id = load_ok(*one, a);
  // Image handles belong to the client that loaded them.
  std::vector<uint8_t> out(64);
  EXPECT_FALSE(two->read(id, 0, Region{}, 0, 64, out.data()).ok());
  EXPECT_TRUE(one->read(id, 0, Region{}, 0, 64, out.data()).ok());
  EXPECT_NE(one->backend_name().find(node.socket), std::string::npos);
}

TEST(DriverNode, DefaultSocketStartsANode) {
  const std::string sock = "@ndp-test-default-" + std::to_string(getpid());
  setenv("NDP_EMU_SOCKET", sock.c_str(), 1);
  const std::vector<uint8_t> a = bf16_image();
  auto gold = ImageReader::open_bytes(a);
  ASSERT_TRUE(gold.ok());
  {
    auto dev = open_ok("emu");  // nobody listens: the driver starts a node (it exits when idle)
    ASSERT_TRUE(dev);
    const uint32_t id = load_ok(*dev, a);
    std::vector<uint8_t> out, want;
    ASSERT_TRUE(dev->read_region(id, 0, Region{}, out).ok());
    ASSERT_TRUE(gold.value()->read_region(0, Region{}, want).ok());
    EXPECT_EQ(out, want);
    auto again = open_ok("emu");  // a second client joins the same node
    ASSERT_TRUE(again);
    EXPECT_EQ(again->backend_name(), dev->backend_name());
  }
  EXPECT_TRUE(stop_emu_node(sock).ok());
  OpenOptions no_spawn;
  no_spawn.spawn = false;
  for (int i = 0; i < 100 && Device::open("emu", no_spawn).ok(); ++i) usleep(20000);
  EXPECT_FALSE(Device::open("emu", no_spawn).ok());
  unsetenv("NDP_EMU_SOCKET");
}

}  // namespace
}  // namespace ndp::drv::test

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "../src/emu_proto.h"

namespace ndp::drv::test {
namespace {

int raw_connect(const std::string& name) {
  struct sockaddr_un a;
  std::string err;
  const socklen_t len = emu::make_address(name, &a, &err);
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  EXPECT_EQ(connect(fd, reinterpret_cast<struct sockaddr*>(&a), len), 0);
  return fd;
}

// Clients that break the protocol: an unsealed data buffer or image memfd is refused with an error
// reply, a frame with a bad magic or a request before HELLO closes that connection only, a READ of
// another client's image is refused by the node; the node keeps serving a well-behaved client.
TEST(DriverNode, MalformedClientsDoNotHurtTheNode) {
  NodeProcess node;
  const std::vector<uint8_t> img = bf16_image();
  auto good = open_ok(node.uri());
  ASSERT_TRUE(good);
  const uint32_t id = load_ok(*good, img);
  emu::Frame f;
  {  // unsealed data buffer
    const int s = raw_connect(node.socket), m = memfd_create("x", 0);
    ASSERT_EQ(ftruncate(m, 1 << 20), 0);
    ASSERT_TRUE(emu::send_frame(s, static_cast<uint32_t>(emu::Op::kHello), emu::Packer().u64(emu::kVersion).u64(1 << 20).bytes(), m).ok());
    ASSERT_TRUE(emu::recv_frame(s, f).ok());
    EXPECT_EQ(f.op_or_status, 1u);
    emu::Unpacker u(f.payload);
    EXPECT_NE(u.str().find("not sealed"), std::string::npos);
    close(m);
    close(s);
  }
  {  // a READ before HELLO, then garbage: the node drops the connection
    const int s = raw_connect(node.socket);
    ASSERT_TRUE(emu::send_frame(s, static_cast<uint32_t>(emu::Op::kRead), emu::Packer().u64(id).bytes()).ok());
    EXPECT_FALSE(emu::recv_frame(s, f).ok());
    close(s);
    const int g = raw_connect(node.socket);
    const uint8_t junk[32] = {1, 2, 3};
    EXPECT_EQ(write(g, junk, sizeof junk), 32);
    EXPECT_FALSE(emu::recv_frame(g, f).ok());
    close(g);
  }
  {  // a client that asks the node itself for the other client's image
    const int s = raw_connect(node.socket), m = memfd_create("x", MFD_ALLOW_SEALING);
    ASSERT_EQ(ftruncate(m, 1 << 20), 0);
    ASSERT_EQ(fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK), 0);
    ASSERT_TRUE(emu::send_frame(s, static_cast<uint32_t>(emu::Op::kHello), emu::Packer().u64(emu::kVersion).u64(1 << 20).bytes(), m).ok());
    ASSERT_TRUE(emu::recv_frame(s, f).ok());
    EXPECT_EQ(f.op_or_status, 0u);
    emu::Packer rd;
    rd.u64(id).u64(0).u64(0).u64(0).u64(0).u64(0).u64(64);
    ASSERT_TRUE(emu::send_frame(s, static_cast<uint32_t>(emu::Op::kRead), rd.bytes()).ok());
    ASSERT_TRUE(emu::recv_frame(s, f).ok());
    EXPECT_EQ(f.op_or_status, 1u);
    emu::Unpacker u(f.payload);
    EXPECT_NE(u.str().find("loaded by this client"), std::string::npos);
    close(m);
    close(s);
  }
  std::vector<uint8_t> out, want;
  ASSERT_TRUE(good->read_region(id, 0, Region{}, out).ok());
  ASSERT_TRUE(ImageReader::open_bytes(img).value()->read_region(0, Region{}, want).ok());
  EXPECT_EQ(out, want);
}

}  // namespace
}  // namespace ndp::drv::test
