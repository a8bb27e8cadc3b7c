// The index service and its shared-memory RPC (after ../shared/papers/beluga-kvcache.txt, 6.2):
// clients post fixed 64-byte requests into per-client channels inside the pool and spin on the
// response line; one service thread polls every channel, runs the request against the pool's
// allocator and index, and writes the response. Nothing enters the kernel on either side.
//
// Channel c: a control line (owner pid, epoch, requests served), then `depth` slots of a request
// line and a response line. Request n goes to slot n % depth; its sequence number is written last
// (after the other fields are stored, and flushed when the pool is not coherent), so the service
// never sees a half-written request, and likewise for responses. A client claims a free channel
// with one compare-and-swap; the service reaps channels whose owner process died and frees the
// blocks that process left being written.
//
// The same requests also travel over a Unix-domain stream socket (UnixRpcServer/UnixRpcClient),
// the kernel baseline the shared-memory round trip is measured against.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "ndp/kvstore/kvstore.h"

namespace ndp::kv {

enum class RpcOp : uint32_t { kPing = 1, kLookup = 2, kAlloc = 3, kCommit = 4, kAbort = 5, kRemove = 6 };

// Response codes in RpcMessage::op.
enum RpcCode : int32_t {
  kRpcOk = 0, kRpcMiss = 1, kRpcPresent = 2,
  kRpcErrFull = -1, kRpcErrState = -2, kRpcErrIndex = -3, kRpcErrCorrupt = -4, kRpcErrBad = -5,
};
const char* rpc_code_text(int32_t code);

// 48 bytes of request or response (the rest of the 64-byte line is the sequence number).
struct RpcMessage {
  uint32_t op = 0;  // request: RpcOp; response: RpcCode (as uint32)
  uint32_t arg = 0;
  uint64_t a = 0, b = 0, c = 0, d = 0, e = 0;
};

// Run one request against the store's local allocator and index on behalf of `client` (pid).
RpcMessage handle_request(KvStore& s, const RpcMessage& req, uint32_t client);

// Waiting: both sides spin first (the paper's polling: the lowest latency when each has a core),
// then, on one host, sleep on a futex in the pool that the other side wakes, so an oversubscribed
// host does not lose whole scheduler slices to spinners. Across hosts futexes do not reach: set
// spin_only there (and ServiceOptions::spin_only on the service).
struct RpcClientOptions {
  uint64_t timeout_ms = 2000;  // no response within this: error naming the pool and channel
  uint32_t spin_us = 20;       // spin this long before sleeping
  bool spin_only = false;
};
struct ServiceOptions {
  uint32_t spin_us = 200;  // idle this long before sleeping until a client posts
  bool spin_only = false;
};

struct ServiceStats {
  uint64_t served = 0, polls = 0, reaped_channels = 0, reaped_blocks = 0, sleeps = 0;
};

class IndexService {
 public:
  explicit IndexService(KvStore& s, ServiceOptions o = {}) : s_(s), o_(o), served_(s.rpc_channels(), 0) {}
  ~IndexService() { stop(); }
  IndexService(const IndexService&) = delete;
  IndexService& operator=(const IndexService&) = delete;
  // Announce the service in the pool and poll on a thread. Error if a live service already runs.
  Status start();
  void stop();
  // One pass over every channel (start() loops on it); returns requests served.
  uint64_t poll_once();
  // Free channels whose owner died and the blocks they left WRITING; returns channels reaped.
  uint64_t reap_dead();
  ServiceStats stats() const;

 private:
  uint64_t serve_channel(uint32_t c);
  void loop();
  void sleep_until_posted();
  KvStore& s_;
  ServiceOptions o_;
  std::vector<uint64_t> served_;  // next expected sequence - 1, per channel
  std::atomic<bool> run_{false};
  std::thread th_;
  std::atomic<uint64_t> served_total_{0}, polls_{0}, reaped_ch_{0}, reaped_blocks_{0}, sleeps_{0};
};


// A client's channel; also a MetaOps, so KvStore::set_meta(client) routes a store's allocation and
// index operations through the service (the mode needed across hosts without coherence).
class ShmRpcClient final : public MetaOps {
 public:
  // Claim a free channel. Errors: no live index service on the pool, every channel taken.
  static Result<std::unique_ptr<ShmRpcClient>> connect(KvStore& s, const RpcClientOptions& o = {});
  ~ShmRpcClient() override;
  uint32_t channel() const { return ch_; }
  Result<RpcMessage> call(const RpcMessage& req);
  // Pipelined: keep up to `depth` requests in flight; responses land in `out` in order.
  Status call_batch(std::span<const RpcMessage> reqs, std::span<RpcMessage> out);

  Result<uint32_t> alloc(uint32_t owner, bool evict_if_full) override;
  Result<PutResult> commit(uint32_t block, const Key& k, uint64_t checksum) override;
  Status abort(uint32_t block) override;
  Result<bool> lookup(const Key& k, BlockRef& out) override;
  Result<bool> remove(const Key& k) override;

 private:
  ShmRpcClient(KvStore& s, uint32_t ch, uint64_t next, const RpcClientOptions& o) : s_(s), ch_(ch), next_(next), o_(o) {}
  uint64_t post(const RpcMessage& req);
  Result<RpcMessage> wait(uint64_t seq);
  KvStore& s_;
  uint32_t ch_;
  uint64_t next_;
  RpcClientOptions o_;
};

// Kernel baseline: the same 64-byte requests over a Unix-domain stream socket, one thread per
// connection on the service side.
class UnixRpcServer {
 public:
  static Result<std::unique_ptr<UnixRpcServer>> start(KvStore& s, const std::string& socket_path);
  ~UnixRpcServer();
  const std::string& path() const { return path_; }

 private:
  UnixRpcServer(KvStore& s) : s_(s) {}
  void accept_loop();
  KvStore& s_;
  std::string path_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::atomic<bool> run_{true};
  std::thread acceptor_;
  std::vector<std::thread> conns_;
  std::vector<int> conn_fds_;
};

class UnixRpcClient {
 public:
  static Result<std::unique_ptr<UnixRpcClient>> connect(const std::string& socket_path);
  ~UnixRpcClient();
  Result<RpcMessage> call(const RpcMessage& req);

 private:
  explicit UnixRpcClient(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace ndp::kv
