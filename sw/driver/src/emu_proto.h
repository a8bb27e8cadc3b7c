// Wire protocol between libndp clients and the emulated node daemon (docs/driver.md, "emu").
// A Unix stream socket carries small framed requests and replies; bulk data moves through shared
// memory: each client passes a memfd data buffer at HELLO (region bytes and KV tokens are written
// and read there) and an image memfd with each LOAD (SCM_RIGHTS).
//   request: u32 magic, u32 op, u64 payload bytes, payload
//   reply:   u32 magic, u32 status (0 ok, 1 error: payload is the message), u64 bytes, payload
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ndp/driver.h"
#include "ndp/status.h"

namespace ndp::drv::emu {

constexpr uint32_t kMagic = 0x45504E44;  // "DNPE"
constexpr uint32_t kVersion = 1;
constexpr uint64_t kMaxPayload = 1 << 16;  // control payloads only; data goes through shared memory
constexpr uint64_t kDataBuffer = uint64_t{64} << 20;  // default client data buffer

enum class Op : uint32_t {
  kHello = 1, kLoad, kUnload, kRead, kKvCreate, kKvAppend, kKvRead, kKvTokens, kKvFree, kInfo, kShutdown,
  kKvOnDevice,
};

// Little-endian field packing of payloads.
class Packer {
 public:
  Packer& u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) b_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Packer& str(const std::string& s) {
    u64(s.size());
    b_.insert(b_.end(), s.begin(), s.end());
    return *this;
  }
  Packer& f64(double d) {
    uint64_t v;
    std::memcpy(&v, &d, 8);
    return u64(v);
  }
  Packer& stats(const CallStats& s) {
    return u64(s.host_bytes).u64(s.link_bytes).u64(s.device_bytes).u64(s.blocks).u64(s.errors).f64(s.seconds);
  }
  const std::vector<uint8_t>& bytes() const { return b_; }

 private:
  std::vector<uint8_t> b_;
};

class Unpacker {
 public:
  Unpacker(const std::vector<uint8_t>& b) : b_(b) {}  // NOLINT(implicit)
  bool ok() const { return ok_; }
  uint64_t u64() {
    if (pos_ + 8 > b_.size()) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{b_[pos_ + i]} << (8 * i);
    pos_ += 8;
    return v;
  }
  std::string str() {
    const uint64_t n = u64();
    if (!ok_ || n > b_.size() - pos_) {
      ok_ = false;
      return {};
    }
    std::string s(b_.begin() + static_cast<long>(pos_), b_.begin() + static_cast<long>(pos_ + n));
    pos_ += n;
    return s;
  }
  double f64() {
    const uint64_t v = u64();
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  CallStats stats() {
    CallStats s;
    s.host_bytes = u64();
    s.link_bytes = u64();
    s.device_bytes = u64();
    s.blocks = u64();
    s.errors = u64();
    s.seconds = f64();
    return s;
  }

 private:
  const std::vector<uint8_t>& b_;
  size_t pos_ = 0;
  bool ok_ = true;
};

struct Frame {
  uint32_t op_or_status = 0;
  std::vector<uint8_t> payload;
  int fd = -1;  // a passed descriptor (owned by the receiver), -1 if none
};

// Send one frame (with an optional descriptor); error on a closed or failed socket.
Status send_frame(int sock, uint32_t op_or_status, const std::vector<uint8_t>& payload, int pass_fd = -1);
// Receive one frame; error on EOF, a bad magic or a payload over kMaxPayload.
Status recv_frame(int sock, Frame& f);

// Socket address of a node name: "@name" is abstract, anything else a filesystem path.
// Returns the sockaddr_un length (0 and an error message for an invalid name).
socklen_t make_address(const std::string& name, struct sockaddr_un* addr, std::string* err);
// The default node socket: $NDP_EMU_SOCKET, else "@ndp-emu-<uid>".
std::string default_socket();

}  // namespace ndp::drv::emu
