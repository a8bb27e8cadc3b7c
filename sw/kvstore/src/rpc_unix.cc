// The Unix-domain socket baseline for the index RPC (rpc.h): the same 64-byte request and
// response, carried by the kernel.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ndp/kvstore/rpc.h"

namespace ndp::kv {
namespace {

constexpr size_t kWire = 64;

bool io_full(int fd, void* buf, size_t n, bool write_side) {
  auto* p = static_cast<uint8_t*>(buf);
  while (n) {
    const ssize_t r = write_side ? ::send(fd, p, n, MSG_NOSIGNAL) : ::recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= size_t(r);
  }
  return true;
}

void encode(const RpcMessage& m, uint8_t* w) {
  std::memset(w, 0, kWire);
  std::memcpy(w, &m, sizeof m);
}
RpcMessage decode(const uint8_t* w) {
  RpcMessage m;
  std::memcpy(&m, w, sizeof m);
  return m;
}

Result<sockaddr_un> address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return Status::Error(path + ": socket path longer than " + std::to_string(sizeof a.sun_path - 1));
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return a;
}

void serve_connection(KvStore& s, int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  const uint32_t client = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? uint32_t(cred.pid) : 0;
  uint8_t buf[kWire];
  while (io_full(fd, buf, kWire, false)) {
    encode(handle_request(s, decode(buf), client), buf);
    if (!io_full(fd, buf, kWire, true)) break;
  }
}

}  // namespace

Result<std::unique_ptr<UnixRpcServer>> UnixRpcServer::start(KvStore& s, const std::string& socket_path) {
  auto addr = address(socket_path);
  if (!addr.ok()) return addr.status();
  std::unique_ptr<UnixRpcServer> srv(new UnixRpcServer(s));
  srv->path_ = socket_path;
  srv->listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (srv->listen_fd_ < 0) return Status::Error(std::string("socket: ") + std::strerror(errno));
  ::unlink(socket_path.c_str());
  if (::bind(srv->listen_fd_, reinterpret_cast<sockaddr*>(&addr.value()), sizeof(sockaddr_un)) != 0 ||
      ::listen(srv->listen_fd_, 64) != 0)
    return Status::Error(socket_path + ": bind/listen: " + std::strerror(errno));
  if (::pipe2(srv->wake_, O_CLOEXEC) != 0) return Status::Error(std::string("pipe: ") + std::strerror(errno));
  srv->acceptor_ = std::thread([p = srv.get()] { p->accept_loop(); });
  return srv;
}

void UnixRpcServer::accept_loop() {
  while (run_) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 && errno != EINTR) break;
    if (p[1].revents) break;
    if (!(p[0].revents & POLLIN)) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    conn_fds_.push_back(fd);
    conns_.emplace_back([this, fd] { serve_connection(s_, fd); });
  }
}

UnixRpcServer::~UnixRpcServer() {
  run_ = false;
  if (wake_[1] >= 0 && ::write(wake_[1], "x", 1) < 0) {
  }
  if (acceptor_.joinable()) acceptor_.join();
  for (int fd : conn_fds_) ::shutdown(fd, SHUT_RDWR);
  for (auto& t : conns_) t.join();
  for (int fd : conn_fds_) ::close(fd);
  for (int fd : {listen_fd_, wake_[0], wake_[1]})
    if (fd >= 0) ::close(fd);
  if (!path_.empty()) ::unlink(path_.c_str());
}

Result<std::unique_ptr<UnixRpcClient>> UnixRpcClient::connect(const std::string& socket_path) {
  auto addr = address(socket_path);
  if (!addr.ok()) return addr.status();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Error(std::string("socket: ") + std::strerror(errno));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr.value()), sizeof(sockaddr_un)) != 0) {
    const int e = errno;
    ::close(fd);
    return Status::Error(socket_path + ": connect: " + std::strerror(e));
  }
  return std::unique_ptr<UnixRpcClient>(new UnixRpcClient(fd));
}

UnixRpcClient::~UnixRpcClient() { ::close(fd_); }

Result<RpcMessage> UnixRpcClient::call(const RpcMessage& req) {
  uint8_t buf[kWire];
  encode(req, buf);
  if (!io_full(fd_, buf, kWire, true) || !io_full(fd_, buf, kWire, false))
    return Status::Error(std::string("unix rpc: connection lost: ") + std::strerror(errno));
  return decode(buf);
}

}  // namespace ndp::kv
