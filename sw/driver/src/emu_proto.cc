// Framing of the emulated node protocol over a Unix stream socket.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>

#include "emu_proto.h"

namespace ndp::drv::emu {

namespace {

Status write_all(int sock, const uint8_t* p, size_t n, int pass_fd) {
  while (n > 0) {
    struct iovec iov = {const_cast<uint8_t*>(p), n};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(struct cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
    if (pass_fd >= 0) {
      msg.msg_control = ctl;
      msg.msg_controllen = sizeof ctl;
      struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
    }
    const ssize_t w = sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return Status::Error(std::string("emulated node connection lost (send: ") + std::strerror(errno) + ")");
    pass_fd = -1;  // the descriptor travels with the first byte
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status read_all(int sock, uint8_t* p, size_t n, int* got_fd) {
  while (n > 0) {
    struct iovec iov = {p, n};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(struct cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
    msg.msg_control = ctl;
    msg.msg_controllen = sizeof ctl;
    const ssize_t r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return Status::Error("emulated node connection closed");
    if (r < 0) return Status::Error(std::string("emulated node connection lost (recv: ") + std::strerror(errno) + ")");
    for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
        if (got_fd && *got_fd < 0)
          *got_fd = fd;
        else
          close(fd);
      }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return Status::Ok();
}

}  // namespace

Status send_frame(int sock, uint32_t op_or_status, const std::vector<uint8_t>& payload, int pass_fd) {
  uint8_t h[16];
  const uint64_t n = payload.size();
  std::memcpy(h, &kMagic, 4);
  std::memcpy(h + 4, &op_or_status, 4);
  std::memcpy(h + 8, &n, 8);
  std::vector<uint8_t> all(h, h + 16);
  all.insert(all.end(), payload.begin(), payload.end());
  return write_all(sock, all.data(), all.size(), pass_fd);
}

Status recv_frame(int sock, Frame& f) {
  uint8_t h[16];
  f.fd = -1;
  NDP_RETURN_IF_ERROR(read_all(sock, h, 16, &f.fd));
  uint32_t magic;
  uint64_t n;
  std::memcpy(&magic, h, 4);
  std::memcpy(&f.op_or_status, h + 4, 4);
  std::memcpy(&n, h + 8, 8);
  if (magic != kMagic) return Status::Error("emulated node protocol: bad frame magic");
  if (n > kMaxPayload) return Status::Error("emulated node protocol: payload of " + std::to_string(n) + " bytes");
  f.payload.resize(n);
  return read_all(sock, f.payload.data(), n, &f.fd);
}

socklen_t make_address(const std::string& name, struct sockaddr_un* addr, std::string* err) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  const bool abstract = !name.empty() && name[0] == '@';
  if (name.size() < 2 && abstract) {
    *err = "empty abstract socket name";
    return 0;
  }
  if (name.empty() || name.size() >= sizeof addr->sun_path) {
    *err = "socket name '" + name + "' empty or longer than " + std::to_string(sizeof addr->sun_path - 1) + " bytes";
    return 0;
  }
  std::memcpy(addr->sun_path, name.data(), name.size());
  if (abstract) addr->sun_path[0] = '\0';
  return static_cast<socklen_t>(offsetof(struct sockaddr_un, sun_path) + name.size() + (abstract ? 0 : 1));
}

std::string default_socket() {
  const char* env = std::getenv("NDP_EMU_SOCKET");
  if (env && *env) return env;
  return "@ndp-emu-" + std::to_string(getuid());
}

}  // namespace ndp::drv::emu
