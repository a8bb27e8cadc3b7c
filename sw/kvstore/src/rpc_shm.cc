// Shared-memory RPC between clients and the index service (rpc.h).
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "ndp/kvstore/rpc.h"
#include "pool_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define NDP_CPU_RELAX() _mm_pause()
#else
#define NDP_CPU_RELAX() std::atomic_signal_fence(std::memory_order_seq_cst)
#endif

namespace ndp::kv {
namespace {

uint8_t* channel_base(const KvStore& s, uint32_t c) {
  return s.base() + s.rpc_offset() + uint64_t{c} * fmt::channel_bytes(s.rpc_depth());
}
fmt::ChannelCtl& channel_ctl(const KvStore& s, uint32_t c) { return *reinterpret_cast<fmt::ChannelCtl*>(channel_base(s, c)); }
fmt::RpcLine& req_line(const KvStore& s, uint32_t c, uint64_t seq) {
  auto* first = reinterpret_cast<fmt::RpcLine*>(channel_base(s, c) + sizeof(fmt::ChannelCtl));
  return first[2 * (seq % s.rpc_depth())];
}
fmt::RpcLine& resp_line(const KvStore& s, uint32_t c, uint64_t seq) { return (&req_line(s, c, seq))[1]; }

// Store the fields, make them visible, then the sequence number (single writer per line).
void write_line(fmt::RpcLine& l, const RpcMessage& m, uint64_t seq, Coherence coh) {
  l.op = m.op, l.arg = m.arg, l.a = m.a, l.b = m.b, l.c = m.c, l.d = m.d, l.e = m.e;
  if (coh != Coherence::kHost) flush_lines(&l, sizeof l);
  l.seq.store(seq, std::memory_order_release);
  publish(&l.seq, coh);
}
uint64_t line_seq(fmt::RpcLine& l, Coherence coh) {
  refresh(&l.seq, coh);
  return l.seq.load(std::memory_order_acquire);
}
RpcMessage read_line(const fmt::RpcLine& l) { return RpcMessage{l.op, l.arg, l.a, l.b, l.c, l.d, l.e}; }

using Clock = std::chrono::steady_clock;

// Shared (not private) futexes: the words live in a MAP_SHARED pool used by several processes.
void futex_wait(std::atomic<uint32_t>& w, uint32_t expect, uint64_t max_us) {
  timespec ts{time_t(max_us / 1000000), long(max_us % 1000000) * 1000};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&w), FUTEX_WAIT, expect, &ts, nullptr, 0);
}
void futex_wake(std::atomic<uint32_t>& w) { syscall(SYS_futex, reinterpret_cast<uint32_t*>(&w), FUTEX_WAKE, 1, nullptr, nullptr, 0); }

// After publishing: wake the other side if it announced that it sleeps (Dekker pattern: the
// publish and the flag read are ordered by the full fence).
void wake_if_sleeping(std::atomic<uint32_t>& flag) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (flag.load(std::memory_order_relaxed) == 1 && flag.exchange(0) == 1) futex_wake(flag);
}

RpcMessage reply(int32_t code, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0) {
  return RpcMessage{static_cast<uint32_t>(code), 0, a, b, c, 0, 0};
}

int32_t code_of(const Status& st) {
  const std::string& m = st.message();
  if (m.find("pool full") != std::string::npos) return kRpcErrFull;
  if (m.find("index full") != std::string::npos) return kRpcErrIndex;
  if (m.find("corrupt") != std::string::npos) return kRpcErrCorrupt;
  if (m.find("out of range") != std::string::npos) return kRpcErrBad;
  return kRpcErrState;
}

}  // namespace

const char* rpc_code_text(int32_t code) {
  switch (code) {
    case kRpcOk: return "ok";
    case kRpcMiss: return "not found";
    case kRpcPresent: return "already present";
    case kRpcErrFull: return "pool full";
    case kRpcErrState: return "block not in the expected state";
    case kRpcErrIndex: return "index full";
    case kRpcErrCorrupt: return "corrupt block header";
    default: return "bad request";
  }
}

RpcMessage handle_request(KvStore& s, const RpcMessage& q, uint32_t client) {
  MetaOps& m = s.local_meta();
  const Key k{q.b, q.c};
  switch (static_cast<RpcOp>(q.op)) {
    case RpcOp::kPing: return reply(kRpcOk, q.a);
    case RpcOp::kLookup: {
      BlockRef r;
      auto f = m.lookup(k, r);
      if (!f.ok()) return reply(code_of(f.status()));
      return f.value() ? reply(kRpcOk, r.block, r.version, r.checksum) : reply(kRpcMiss);
    }
    case RpcOp::kAlloc: {
      auto b = m.alloc(client, q.arg != 0);
      return b.ok() ? reply(kRpcOk, b.value()) : reply(code_of(b.status()));
    }
    case RpcOp::kCommit: {
      if (q.a >= s.blocks()) return reply(kRpcErrBad);
      auto r = m.commit(static_cast<uint32_t>(q.a), k, q.d);
      if (!r.ok()) return reply(code_of(r.status()));
      return reply(r.value() == PutResult::kStored ? kRpcOk : kRpcPresent);
    }
    case RpcOp::kAbort: {
      if (q.a >= s.blocks()) return reply(kRpcErrBad);
      return m.abort(static_cast<uint32_t>(q.a)).ok() ? reply(kRpcOk) : reply(kRpcErrState);
    }
    case RpcOp::kRemove: {
      auto f = m.remove(k);
      if (!f.ok()) return reply(code_of(f.status()));
      return reply(f.value() ? kRpcOk : kRpcMiss);
    }
  }
  return reply(kRpcErrBad);
}

// ---- service ----

Status IndexService::start() {
  auto& pid = control(s_).service_pid.value;
  uint64_t cur = pid.load();
  if (cur != 0 && cur != uint64_t(s_.owner_id()) && process_alive(uint32_t(cur)))
    return Status::Error(s_.path() + ": an index service already runs (pid " + std::to_string(cur) + ")");
  pid.store(s_.owner_id());
  publish(&pid, s_.coherence());
  for (uint32_t c = 0; c < s_.rpc_channels(); ++c) served_[c] = channel_ctl(s_, c).served.load();
  reap_dead();
  run_ = true;
  th_ = std::thread([this] { loop(); });
  return Status::Ok();
}

void IndexService::stop() {
  if (!run_.exchange(false)) return;
  if (th_.joinable()) th_.join();
  uint64_t me = s_.owner_id();
  control(s_).service_pid.value.compare_exchange_strong(me, 0);
}

uint64_t IndexService::serve_channel(uint32_t c) {
  auto& ctl = channel_ctl(s_, c);
  const uint32_t owner = ctl.owner.load(std::memory_order_acquire);
  if (owner == 0) return 0;
  uint64_t n = 0;
  for (; n < s_.rpc_depth(); ++n) {
    const uint64_t want = served_[c] + 1;
    fmt::RpcLine& rq = req_line(s_, c, want);
    if (line_seq(rq, s_.coherence()) != want) break;
    const RpcMessage out = handle_request(s_, read_line(rq), owner);
    // Counted before the response is visible, so a client that saw its answer sees it counted.
    served_total_.fetch_add(1, std::memory_order_relaxed);
    write_line(resp_line(s_, c, want), out, want, s_.coherence());
    served_[c] = want;
    ctl.served.store(want, std::memory_order_release);
    if (!o_.spin_only) wake_if_sleeping(ctl.client_waiting);
  }
  return n;
}

uint64_t IndexService::poll_once() {
  uint64_t n = 0;
  for (uint32_t c = 0; c < s_.rpc_channels(); ++c) n += serve_channel(c);
  polls_.fetch_add(1, std::memory_order_relaxed);
  return n;
}

uint64_t IndexService::reap_dead() {
  uint64_t reaped = 0;
  for (uint32_t c = 0; c < s_.rpc_channels(); ++c) {
    auto& ctl = channel_ctl(s_, c);
    uint32_t owner = ctl.owner.load();
    if (owner == 0 || process_alive(owner)) continue;
    // Requests the dead client posted but that were not served are skipped.
    uint64_t last = served_[c];
    for (uint32_t i = 0; i < s_.rpc_depth(); ++i)
      last = std::max(last, line_seq(req_line(s_, c, i), s_.coherence()));
    served_[c] = last;
    ctl.served.store(last);
    ctl.epoch.fetch_add(1);
    if (ctl.owner.compare_exchange_strong(owner, 0)) ++reaped;
  }
  if (reaped) {
    auto r = s_.recover(RecoverMode::kDeadOwners);
    if (r.ok()) reaped_blocks_ += r.value().freed_writing;
  }
  reaped_ch_ += reaped;
  return reaped;
}

// Announce the sleep, look once more (a client that posted before seeing the flag is served now),
// then wait until a client wakes us or 20 ms pass (reaping and the stop flag need the thread).
void IndexService::sleep_until_posted() {
  auto& flag = control(s_).service_sleeping.word;
  flag.store(1);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (poll_once() == 0) {
    sleeps_.fetch_add(1, std::memory_order_relaxed);
    futex_wait(flag, 1, 20000);
  }
  flag.store(0);
}

void IndexService::loop() {
  auto idle_since = Clock::now(), next_reap = Clock::now();
  auto& beat = control(s_).service_beat.value;
  for (uint64_t idle = 0; run_.load(std::memory_order_relaxed);) {
    if (poll_once()) {
      idle = 0;
      continue;
    }
    if ((++idle & 255) != 1) {
      NDP_CPU_RELAX();
      continue;
    }
    const auto now = Clock::now();
    if (idle == 1) idle_since = now;
    beat.fetch_add(1, std::memory_order_relaxed);
    if (now >= next_reap) reap_dead(), next_reap = now + std::chrono::milliseconds(50);
    if (!o_.spin_only && now - idle_since > std::chrono::microseconds(o_.spin_us)) {
      sleep_until_posted();
      idle = 0;
    }
  }
}

ServiceStats IndexService::stats() const {
  return ServiceStats{served_total_.load(), polls_.load(), reaped_ch_.load(), reaped_blocks_.load(), sleeps_.load()};
}

// ---- client ----

Result<std::unique_ptr<ShmRpcClient>> ShmRpcClient::connect(KvStore& s, const RpcClientOptions& o) {
  auto& sp = control(s).service_pid.value;
  refresh(&sp, s.coherence());
  const uint64_t svc = sp.load();
  if (svc == 0 || !process_alive(uint32_t(svc))) return Status::Error(s.path() + ": no index service is running on the pool");
  const uint32_t me = s.owner_id();
  for (uint32_t c = 0; c < s.rpc_channels(); ++c) {
    auto& ctl = channel_ctl(s, c);
    uint32_t free_owner = 0;
    if (!ctl.owner.compare_exchange_strong(free_owner, me)) continue;
    publish(&ctl.owner, s.coherence());
    return std::unique_ptr<ShmRpcClient>(new ShmRpcClient(s, c, ctl.served.load() + 1, o));
  }
  return Status::Error(s.path() + ": all " + std::to_string(s.rpc_channels()) + " RPC channels are taken");
}

ShmRpcClient::~ShmRpcClient() {
  auto& ctl = channel_ctl(s_, ch_);
  // Wait for what is in flight, then hand the channel back.
  if (next_ > 1) wait(next_ - 1).ok();
  uint32_t me = s_.owner_id();
  ctl.owner.compare_exchange_strong(me, 0);
  publish(&ctl.owner, s_.coherence());
}

uint64_t ShmRpcClient::post(const RpcMessage& req) {
  const uint64_t seq = next_++;
  write_line(req_line(s_, ch_, seq), req, seq, s_.coherence());
  if (!o_.spin_only) wake_if_sleeping(control(s_).service_sleeping.word);
  return seq;
}

// Spin for spin_us, then (same host) sleep on the channel's futex until the service wakes us.
Result<RpcMessage> ShmRpcClient::wait(uint64_t seq) {
  fmt::RpcLine& rl = resp_line(s_, ch_, seq);
  auto& waiting = channel_ctl(s_, ch_).client_waiting;
  const auto start = Clock::now(), deadline = start + std::chrono::milliseconds(o_.timeout_ms);
  const auto spin_end = start + std::chrono::microseconds(o_.spin_us);
  for (uint64_t spins = 0;; ++spins) {
    if (line_seq(rl, s_.coherence()) >= seq) return read_line(rl);
    if ((spins & 63) != 63) {
      NDP_CPU_RELAX();
      continue;
    }
    const auto now = Clock::now();
    if (now > deadline)
      return Status::Error(s_.path() + ": index service did not answer request " + std::to_string(seq) +
                           " on channel " + std::to_string(ch_) + " within " + std::to_string(o_.timeout_ms) + " ms");
    if (now < spin_end) continue;
    if (o_.spin_only) {
      sched_yield();
      continue;
    }
    waiting.store(1);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (line_seq(rl, s_.coherence()) < seq) futex_wait(waiting, 1, 2000);
    waiting.store(0);
  }
}

Result<RpcMessage> ShmRpcClient::call(const RpcMessage& req) { return wait(post(req)); }

Status ShmRpcClient::call_batch(std::span<const RpcMessage> reqs, std::span<RpcMessage> out) {
  if (out.size() < reqs.size()) return Status::Error("call_batch: output shorter than the requests");
  const uint64_t first = next_;
  size_t posted = 0, done = 0;
  while (done < reqs.size()) {
    while (posted < reqs.size() && posted - done < s_.rpc_depth()) post(reqs[posted++]);
    auto r = wait(first + done);
    if (!r.ok()) return r.status();
    out[done++] = r.value();
  }
  return Status::Ok();
}

namespace {
Status rpc_error(const KvStore& s, const char* what, uint32_t code) {
  return Status::Error(s.path() + ": index service " + what + ": " + rpc_code_text(int32_t(code)));
}
}  // namespace

Result<uint32_t> ShmRpcClient::alloc(uint32_t, bool evict_if_full) {
  auto r = call(RpcMessage{uint32_t(RpcOp::kAlloc), evict_if_full ? 1u : 0u});
  if (!r.ok()) return r.status();
  if (int32_t(r->op) != kRpcOk) return rpc_error(s_, "alloc", r->op);
  return static_cast<uint32_t>(r->a);
}

Result<PutResult> ShmRpcClient::commit(uint32_t block, const Key& k, uint64_t checksum) {
  auto r = call(RpcMessage{uint32_t(RpcOp::kCommit), 0, block, k.lo, k.hi, checksum});
  if (!r.ok()) return r.status();
  if (int32_t(r->op) == kRpcPresent) return PutResult::kAlreadyPresent;
  if (int32_t(r->op) != kRpcOk) return rpc_error(s_, "commit", r->op);
  return PutResult::kStored;
}

Status ShmRpcClient::abort(uint32_t block) {
  auto r = call(RpcMessage{uint32_t(RpcOp::kAbort), 0, block});
  if (!r.ok()) return r.status();
  return int32_t(r->op) == kRpcOk ? Status::Ok() : rpc_error(s_, "abort", r->op);
}

Result<bool> ShmRpcClient::lookup(const Key& k, BlockRef& out) {
  auto r = call(RpcMessage{uint32_t(RpcOp::kLookup), 0, 0, k.lo, k.hi});
  if (!r.ok()) return r.status();
  if (int32_t(r->op) == kRpcMiss) return false;
  if (int32_t(r->op) != kRpcOk) return rpc_error(s_, "lookup", r->op);
  out = BlockRef{static_cast<uint32_t>(r->a), static_cast<uint32_t>(r->b), r->c};
  return true;
}

Result<bool> ShmRpcClient::remove(const Key& k) {
  auto r = call(RpcMessage{uint32_t(RpcOp::kRemove), 0, 0, k.lo, k.hi});
  if (!r.ok()) return r.status();
  if (int32_t(r->op) == kRpcMiss) return false;
  if (int32_t(r->op) != kRpcOk) return rpc_error(s_, "remove", r->op);
  return true;
}

}  // namespace ndp::kv
