// The emulated node daemon: accept loop, one thread per client, requests executed on the shared
// PortBackend (which serialises device access, as one device answers one request at a time).
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "emu_proto.h"
#include "ndp/emu_node.h"
#include "ndp/port_backend.h"

namespace ndp::drv {

using namespace emu;

namespace {

std::atomic<bool> g_signal{false};
extern "C" void on_signal(int) { g_signal = true; }

struct Session {
  int sock = -1;
  uint8_t* data = nullptr;
  uint64_t data_len = 0;
  std::set<uint32_t> images;
  std::map<uint32_t, uint64_t> streams;  // KV stream -> words per token
  ~Session() {
    if (data) munmap(data, data_len);
  }
};

struct Node {
  std::unique_ptr<PortBackend> dev;
  std::atomic<bool> stop{false};
  std::atomic<int> clients{0};
  bool log = false;
  std::mutex mu;
  std::set<int> socks;  // connected clients, shut down on exit
};

Status reply_ok(int sock, const Packer& p = Packer()) { return send_frame(sock, 0, p.bytes()); }
Status reply_err(int sock, const std::string& msg) { return send_frame(sock, 1, Packer().str(msg).bytes()); }

// Map a client's shared buffer (HELLO) or image (LOAD); nullptr and msg on failure. The memfd must
// be sealed against shrinking (and, for an image, against writes), so that a client cannot make the
// node fault on memory it took away or change an image while it is being stored.
uint8_t* map_fd(int fd, uint64_t bytes, bool writable, std::string* msg) {
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0 || static_cast<uint64_t>(sb.st_size) < bytes || bytes == 0) {
    *msg = "shared memory of " + std::to_string(bytes) + " bytes missing";
    return nullptr;
  }
  const int need = F_SEAL_SHRINK | (writable ? 0 : F_SEAL_WRITE);
  const int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (seals & need) != need) {
    *msg = "shared memory not sealed against shrinking" + std::string(writable ? "" : " and writes");
    return nullptr;
  }
  void* p = mmap(nullptr, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    *msg = std::string("mmap of the client's shared memory failed: ") + std::strerror(errno);
    return nullptr;
  }
  return static_cast<uint8_t*>(p);
}

Status handle_load(Node& n, Session& s, Unpacker& u, int fd) {
  const uint64_t bytes = u.u64();
  std::string msg;
  uint8_t* img = u.ok() ? map_fd(fd, bytes, false, &msg) : nullptr;
  if (!img) return reply_err(s.sock, u.ok() ? msg : "malformed LOAD");
  auto id = n.dev->load(img, bytes);
  munmap(img, bytes);
  if (!id.ok()) return reply_err(s.sock, id.status().message());
  s.images.insert(id.value());
  return reply_ok(s.sock, Packer().u64(id.value()));
}

Status handle_read(Node& n, Session& s, Unpacker& u) {
  const uint64_t image = u.u64(), tensor = u.u64(), kind = u.u64(), k = u.u64(), guard = u.u64();
  const uint64_t offset = u.u64(), bytes = u.u64();
  if (!u.ok() || kind > static_cast<uint64_t>(RegionKind::kMXFP4) || k > 32 || guard > 2)
    return reply_err(s.sock, "malformed READ");
  if (!s.images.count(static_cast<uint32_t>(image)))
    return reply_err(s.sock, "no image " + std::to_string(image) + " loaded by this client");
  if (bytes > s.data_len) return reply_err(s.sock, "READ of " + std::to_string(bytes) + " bytes exceeds the shared buffer");
  const Region r{static_cast<RegionKind>(kind), static_cast<int>(k), static_cast<int>(guard)};
  CallStats st;
  Status rs = n.dev->read(static_cast<uint32_t>(image), static_cast<uint32_t>(tensor), r, offset, bytes, s.data, &st);
  if (!rs.ok()) return send_frame(s.sock, 1, Packer().str(rs.message()).stats(st).bytes());
  return reply_ok(s.sock, Packer().stats(st));
}

Status handle_kv(Node& n, Session& s, Op op, Unpacker& u) {
  if (op == Op::kKvCreate) {
    const uint64_t dt = u.u64(), w = u.u64(), c = u.u64(), h = u.u64();
    if (!u.ok() || dt > 255 || w > UINT32_MAX || c > UINT32_MAX || h > UINT32_MAX) return reply_err(s.sock, "malformed KV_CREATE");
    auto id = n.dev->kv_create(static_cast<DType>(dt), KvGeometry{static_cast<uint32_t>(w), static_cast<uint32_t>(c),
                                                                  static_cast<uint32_t>(h)});
    if (!id.ok()) return reply_err(s.sock, id.status().message());
    s.streams[id.value()] = c * h;
    return reply_ok(s.sock, Packer().u64(id.value()));
  }
  const uint64_t id = u.u64();
  if (!u.ok() || !s.streams.count(static_cast<uint32_t>(id)))
    return reply_err(s.sock, "no KV stream " + std::to_string(id) + " created by this client");
  const uint32_t sid = static_cast<uint32_t>(id);
  CallStats st;
  Status r;
  if (op == Op::kKvTokens) {
    auto t = n.dev->kv_tokens(sid);
    return t.ok() ? reply_ok(s.sock, Packer().u64(t.value())) : reply_err(s.sock, t.status().message());
  }
  if (op == Op::kKvOnDevice) {
    auto d = n.dev->kv_on_device(sid);
    return d.ok() ? reply_ok(s.sock, Packer().u64(d.value() ? 1 : 0)) : reply_err(s.sock, d.status().message());
  }
  if (op == Op::kKvFree) {
    s.streams.erase(sid);
    r = n.dev->kv_free(sid);
    return r.ok() ? reply_ok(s.sock) : reply_err(s.sock, r.message());
  }
  const uint64_t a = u.u64(), b = op == Op::kKvRead ? u.u64() : 0, tokens = op == Op::kKvRead ? b : a;
  const uint64_t per = s.streams[sid];
  if (!u.ok() || per == 0 || tokens > s.data_len / (2 * per)) return reply_err(s.sock, "malformed KV request");
  uint16_t* buf = reinterpret_cast<uint16_t*>(s.data);
  r = op == Op::kKvAppend ? n.dev->kv_append(sid, buf, a, &st) : n.dev->kv_read(sid, a, b, buf, &st);
  if (!r.ok()) return reply_err(s.sock, r.message());
  return reply_ok(s.sock, Packer().stats(st));
}

// One request; an error return closes the connection.
Status handle(Node& n, Session& s, Frame& f) {
  Unpacker u(f.payload);
  const Op op = static_cast<Op>(f.op_or_status);
  const int fd = f.fd;
  f.fd = -1;
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd >= 0) close(fd);
    }
  } closer{fd};
  switch (op) {
    case Op::kHello: {
      const uint64_t version = u.u64(), len = u.u64();
      std::string msg;
      if (!u.ok() || version != kVersion) return reply_err(s.sock, "protocol version mismatch");
      if (s.data || !(s.data = map_fd(fd, len, true, &msg))) return reply_err(s.sock, s.data ? "second HELLO" : msg);
      s.data_len = len;
      return reply_ok(s.sock, Packer().str(n.dev->name()));
    }
    case Op::kLoad: return handle_load(n, s, u, fd);
    case Op::kUnload: {
      const uint32_t id = static_cast<uint32_t>(u.u64());
      if (!u.ok() || !s.images.erase(id)) return reply_err(s.sock, "no image " + std::to_string(id) + " loaded by this client");
      Status r = n.dev->unload(id);
      return r.ok() ? reply_ok(s.sock) : reply_err(s.sock, r.message());
    }
    case Op::kRead: return handle_read(n, s, u);
    case Op::kKvCreate: case Op::kKvAppend: case Op::kKvRead: case Op::kKvTokens: case Op::kKvFree:
    case Op::kKvOnDevice:
      return handle_kv(n, s, op, u);
    case Op::kInfo: {
      BackendInfo i = n.dev->info();
      return reply_ok(s.sock, Packer().u64(i.memory_bytes).u64(i.free_bytes).f64(i.dram_energy_nj));
    }
    case Op::kShutdown: n.stop = true; return reply_ok(s.sock);
  }
  return Status::Error("unknown request " + std::to_string(f.op_or_status));
}

void serve(Node& n, int sock) {
  {
    Session s;
    s.sock = sock;
    Frame f;
    while (!n.stop) {
      Status st = recv_frame(sock, f);
      if (!st.ok()) break;
      if (!s.data && static_cast<Op>(f.op_or_status) != Op::kHello && static_cast<Op>(f.op_or_status) != Op::kShutdown) {
        if (f.fd >= 0) close(f.fd);
        break;  // HELLO first
      }
      if (!handle(n, s, f).ok()) break;
    }
    for (uint32_t id : s.images) (void)n.dev->unload(id);
    for (const auto& [id, per] : s.streams) (void)n.dev->kv_free(id);
    if (n.log) std::fprintf(stderr, "ndp emu node: client left (%zu images freed)\n", s.images.size());
  }
  {
    std::lock_guard<std::mutex> lock(n.mu);
    n.socks.erase(sock);
  }
  close(sock);
  n.clients--;
}

Result<int> listen_on(const std::string& name) {
  struct sockaddr_un a;
  std::string err;
  const socklen_t len = make_address(name, &a, &err);
  if (!len) return Status::Error(err);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Error(std::string("socket: ") + std::strerror(errno));
  if (name[0] != '@') {
    if (connect(fd, reinterpret_cast<struct sockaddr*>(&a), len) == 0) {
      close(fd);
      return Status::Error("an emulated node is already listening on " + name);
    }
    unlink(name.c_str());  // a stale socket file of a node that is gone
  }
  if (bind(fd, reinterpret_cast<struct sockaddr*>(&a), len) != 0 || listen(fd, 64) != 0) {
    const int e = errno;
    close(fd);
    if (e == EADDRINUSE) return Status::Error("an emulated node is already listening on " + name);
    return Status::Error("cannot listen on " + name + ": " + std::strerror(e));
  }
  return fd;
}

}  // namespace

namespace {

struct Worker {
  std::thread t;
  std::shared_ptr<std::atomic<bool>> done;
};

// A client thread for a connection just accepted.
void admit(Node& n, int c, bool log, std::list<Worker>& threads) {
  n.clients++;
  {
    std::lock_guard<std::mutex> lock(n.mu);
    n.socks.insert(c);
  }
  if (log) std::fprintf(stderr, "ndp emu node: client connected\n");
  auto done = std::make_shared<std::atomic<bool>>(false);
  threads.push_back({std::thread([&n, c, done] {
                       serve(n, c);
                       *done = true;
                     }),
                     done});
}

// Accept clients until a shutdown request, a signal or the idle exit; reap finished threads.
void accept_loop(Node& n, int lfd, const EmuNodeOptions& o, std::list<Worker>& threads) {
  auto idle_since = std::chrono::steady_clock::now();
  while (!n.stop && !g_signal) {
    struct pollfd p = {lfd, POLLIN, 0};
    if (poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
      const int c = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) admit(n, c, o.log, threads);
    }
    for (auto it = threads.begin(); it != threads.end();) {
      if (*it->done) {
        it->t.join();
        it = threads.erase(it);
      } else {
        ++it;
      }
    }
    if (n.clients > 0) idle_since = std::chrono::steady_clock::now();
    if (o.exit_when_idle &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - idle_since).count() > o.idle_seconds)
      break;
  }
}

}  // namespace

Status run_emu_node(const EmuNodeOptions& o, const std::function<void()>& ready) {
  const std::string name = o.socket.empty() ? default_socket() : o.socket;
  Node n;
  n.log = o.log;
  auto dev = make_model_backend(o.device, "emu:" + name);
  if (!dev.ok()) return dev.status();
  n.dev = std::move(dev.value());
  auto lfd = listen_on(name);
  if (!lfd.ok()) return lfd.status();
  g_signal = false;
  struct sigaction sa = {}, old_int, old_term;
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  if (ready) ready();
  std::list<Worker> threads;
  accept_loop(n, lfd.value(), o, threads);
  close(lfd.value());
  if (name[0] != '@') unlink(name.c_str());
  n.stop = true;
  {  // wake the clients' threads blocked in recv
    std::lock_guard<std::mutex> lock(n.mu);
    for (int c : n.socks) shutdown(c, SHUT_RDWR);
  }
  for (auto& w : threads) w.t.join();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return Status::Ok();
}

Status stop_emu_node(const std::string& socket) {
  const std::string name = socket.empty() ? default_socket() : socket;
  struct sockaddr_un a;
  std::string err;
  const socklen_t len = make_address(name, &a, &err);
  if (!len) return Status::Error(err);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<struct sockaddr*>(&a), len) != 0) {
    if (fd >= 0) close(fd);
    return Status::Error("no emulated node listens on " + name);
  }
  Status s = send_frame(fd, static_cast<uint32_t>(Op::kShutdown), {});
  Frame f;
  if (s.ok()) s = recv_frame(fd, f);
  close(fd);
  return s;
}

}  // namespace ndp::drv
