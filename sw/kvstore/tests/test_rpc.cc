// The index service over shared-memory RPC and over a Unix-domain socket: the operations, a
// store routed through the service, pipelining, a client killed mid-request, a dead service.
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "kv_test_util.h"
#include "ndp/kvstore/rpc.h"

namespace ndp::kv::test {
namespace {

std::unique_ptr<KvStore> pool(const ScratchPath& p, uint64_t blocks = 32, uint32_t channels = 4) {
  CreateOptions o;
  o.geometry = small_geometry(), o.blocks = blocks, o.rpc_channels = channels, o.rpc_depth = 4;
  auto s = KvStore::create(p.str(), o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s.value()) : nullptr;
}

TEST(KvRpc, ConnectNeedsAService) {
  ScratchPath p("nosvc");
  auto s = pool(p);
  auto c = ShmRpcClient::connect(*s);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("no index service"), std::string::npos);
}

TEST(KvRpc, StoreRoutedThroughTheServiceAndPing) {
  ScratchPath p("svc");
  auto s = pool(p);
  IndexService svc(*s);
  ASSERT_TRUE(svc.start().ok());
  auto other = KvStore::open(p.str());  // a second mapping, as another client process has
  ASSERT_TRUE(other.ok());
  auto c = ShmRpcClient::connect(*other.value());
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto pong = c.value()->call(RpcMessage{uint32_t(RpcOp::kPing), 0, 0xfeed});
  ASSERT_TRUE(pong.ok());
  EXPECT_EQ(pong->a, 0xfeedu);
  other.value()->set_meta(c.value().get());
  std::mt19937_64 rng(seed());
  const auto d = random_bytes(rng, s->geometry().block_bytes());
  ASSERT_EQ(other.value()->put(key_n(1), gather_of(s->geometry(), d)).value(), PutResult::kStored);
  EXPECT_EQ(other.value()->put(key_n(1), gather_of(s->geometry(), d)).value(), PutResult::kAlreadyPresent);
  std::vector<uint8_t> out(d.size());
  ASSERT_TRUE(s->get(key_n(1), scatter_of(s->geometry(), out)).value());  // local path sees it
  EXPECT_EQ(out, d);
  std::fill(out.begin(), out.end(), 0);
  ASSERT_TRUE(other.value()->get(key_n(1), scatter_of(s->geometry(), out)).value());
  EXPECT_EQ(out, d);
  EXPECT_TRUE(other.value()->remove(key_n(1)).value());
  EXPECT_FALSE(other.value()->contains(key_n(1)).value());
  EXPECT_GE(svc.stats().served, 7u);
  EXPECT_TRUE(s->check(true).consistent());
}

TEST(KvRpc, PipelinedBatchAnswersInOrder) {
  ScratchPath p("batch");
  auto s = pool(p);
  IndexService svc(*s);
  ASSERT_TRUE(svc.start().ok());
  auto c = ShmRpcClient::connect(*s);
  ASSERT_TRUE(c.ok());
  std::vector<RpcMessage> req(37), resp(37);
  for (size_t i = 0; i < req.size(); ++i) req[i] = RpcMessage{uint32_t(RpcOp::kPing), 0, 1000 + i};
  ASSERT_TRUE(c.value()->call_batch(req, resp).ok());
  for (size_t i = 0; i < resp.size(); ++i) EXPECT_EQ(resp[i].a, 1000 + i);
}

TEST(KvRpc, ChannelsRunOutThenComeBack) {
  ScratchPath p("chan");
  auto s = pool(p, 8, 2);
  IndexService svc(*s);
  ASSERT_TRUE(svc.start().ok());
  auto a = ShmRpcClient::connect(*s);
  auto b = ShmRpcClient::connect(*s);
  ASSERT_TRUE(a.ok() && b.ok());
  auto c = ShmRpcClient::connect(*s);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("all 2 RPC channels are taken"), std::string::npos);
  a.value().reset();
  auto d = ShmRpcClient::connect(*s);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d.value()->call(RpcMessage{uint32_t(RpcOp::kPing)}).ok());
}

TEST(KvRpc, DeadServiceIsATimeoutNotAHang) {
  ScratchPath p("dead");
  auto s = pool(p);
  auto svc = std::make_unique<IndexService>(*s);
  ASSERT_TRUE(svc->start().ok());
  auto c = ShmRpcClient::connect(*s, RpcClientOptions{100});
  ASSERT_TRUE(c.ok());
  svc->stop();
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c.value()->call(RpcMessage{uint32_t(RpcOp::kPing)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("did not answer"), std::string::npos) << r.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// A client process stopped after its allocation request was served, then killed: the service
// takes back its channel and the block it was writing.
TEST(KvRpc, ClientKilledMidPutIsReaped) {
  ScratchPath p("reap");
  auto s = pool(p, 8, 1);
  IndexService svc(*s);
  ASSERT_TRUE(svc.start().ok());
  auto* flag = static_cast<std::atomic<int>*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  flag->store(0);
  const pid_t pid = fork();
  if (pid == 0) {
    auto st = KvStore::open(p.str());
    if (!st.ok()) _exit(3);
    auto c = ShmRpcClient::connect(*st.value());
    if (!c.ok()) _exit(4);
    st.value()->set_meta(c.value().get());
    st.value()->set_fault_hook([](FaultPoint fp, void* ctx) {
      if (fp != FaultPoint::kPayloadHalf) return;
      static_cast<std::atomic<int>*>(ctx)->store(1);
      for (;;) pause();
    }, flag);
    std::vector<uint8_t> d(st.value()->geometry().block_bytes(), 0x42);
    (void)st.value()->put(key_n(9), gather_of(st.value()->geometry(), d));
    _exit(0);
  }
  for (int i = 0; i < 10000 && flag->load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(flag->load(), 1);
  EXPECT_EQ(s->stats().writing, 1u);
  EXPECT_FALSE(ShmRpcClient::connect(*s).ok());  // its one channel is held
  ::kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  bool reaped = false;
  for (int i = 0; i < 400 && !reaped; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    reaped = svc.stats().reaped_channels == 1 && s->stats().writing == 0;
  }
  EXPECT_TRUE(reaped);
  EXPECT_EQ(svc.stats().reaped_blocks, 1u);
  auto c = ShmRpcClient::connect(*s);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c.value()->call(RpcMessage{uint32_t(RpcOp::kPing)}).ok());
  EXPECT_TRUE(s->check(true).consistent());
  munmap(flag, 4096);
}

TEST(KvRpc, UnixSocketBaselineRunsTheSameRequests) {
  ScratchPath p("unix");
  auto s = pool(p);
  std::mt19937_64 rng(seed());
  const auto d = random_bytes(rng, s->geometry().block_bytes());
  ASSERT_TRUE(s->put(key_n(4), gather_of(s->geometry(), d)).ok());
  BlockRef ref;
  ASSERT_TRUE(s->find(key_n(4), ref).value());
  const std::string sock = p.str() + ".sock";
  auto srv = UnixRpcServer::start(*s, sock);
  ASSERT_TRUE(srv.ok()) << srv.status().message();
  auto c1 = UnixRpcClient::connect(sock);
  auto c2 = UnixRpcClient::connect(sock);
  ASSERT_TRUE(c1.ok() && c2.ok());
  auto pong = c1.value()->call(RpcMessage{uint32_t(RpcOp::kPing), 0, 77});
  ASSERT_TRUE(pong.ok());
  EXPECT_EQ(pong->a, 77u);
  auto look = c2.value()->call(RpcMessage{uint32_t(RpcOp::kLookup), 0, 0, key_n(4).lo, key_n(4).hi});
  ASSERT_TRUE(look.ok());
  EXPECT_EQ(int32_t(look->op), kRpcOk);
  EXPECT_EQ(look->a, ref.block);
  EXPECT_EQ(look->c, ref.checksum);
  auto miss = c2.value()->call(RpcMessage{uint32_t(RpcOp::kLookup), 0, 0, 5, 6});
  EXPECT_EQ(int32_t(miss->op), kRpcMiss);
  EXPECT_FALSE(UnixRpcClient::connect(sock + ".none").ok());
}

}  // namespace
}  // namespace ndp::kv::test
