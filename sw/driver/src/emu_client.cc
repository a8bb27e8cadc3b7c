// The emu backend: a client of the emulated node daemon (or the device model in process).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include "backends.h"
#include "emu_proto.h"
#include "ndp/emu_node.h"
#include "ndp/port_backend.h"

namespace ndp::drv {

using namespace emu;

namespace {

Result<int> connect_to(const std::string& name) {
  struct sockaddr_un a;
  std::string err;
  const socklen_t len = make_address(name, &a, &err);
  if (!len) return Status::Error("emu:" + name + ": " + err);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Error(std::string("socket: ") + std::strerror(errno));
  if (connect(fd, reinterpret_cast<struct sockaddr*>(&a), len) != 0) {
    const int e = errno;
    close(fd);
    return Status::Error("emu:" + name + ": no emulated node listening (" + std::strerror(e) +
                         "); start one with `ndp dev daemon --socket " + name + "`");
  }
  return fd;
}

// Start a node daemon on `name` (double fork: it is nobody's child, it outlives this process and
// exits when idle). Returns once it listens (or another node took the name first).
Status spawn_node(const std::string& name, const OpenOptions& o) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return Status::Error(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = fork();
  if (child < 0) return Status::Error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    if (fork() != 0) _exit(0);
    setsid();
    const int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != p[1]) close(fd);
    EmuNodeOptions no;
    no.socket = name;
    no.device = o;
    no.exit_when_idle = true;
    Status s = run_emu_node(no, [&] {
      const char ok = 'R';
      (void)!write(p[1], &ok, 1);
      close(p[1]);
    });
    if (!s.ok()) (void)!write(p[1], s.message().data(), s.message().size());
    _exit(s.ok() ? 0 : 1);
  }
  close(p[1]);
  int ws = 0;
  waitpid(child, &ws, 0);
  char buf[256];
  const ssize_t n = read(p[0], buf, sizeof buf);
  close(p[0]);
  if (n == 1 && buf[0] == 'R') return Status::Ok();
  const std::string msg = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "exited";
  if (msg.find("already listening") != std::string::npos) return Status::Ok();  // another client won the race
  return Status::Error("emu: could not start an emulated node: " + msg);
}

class EmuClient : public Backend {
 public:
  ~EmuClient() override {
    if (data_) munmap(data_, data_len_);
    if (sock_ >= 0) close(sock_);
  }

  static Result<std::unique_ptr<Backend>> connect(const std::string& name, bool spawn, const OpenOptions& o) {
    auto fd = connect_to(name);
    if (!fd.ok() && spawn) {
      NDP_RETURN_IF_ERROR(spawn_node(name, o));
      fd = connect_to(name);
    }
    if (!fd.ok()) return fd.status();
    std::unique_ptr<EmuClient> c(new EmuClient());
    c->sock_ = fd.value();
    NDP_RETURN_IF_ERROR(c->hello());
    return std::unique_ptr<Backend>(std::move(c));
  }

  std::string name() const override { return name_; }

  Result<uint32_t> load(const uint8_t* image, size_t bytes) override {
    const int fd = memfd_create("ndp-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return Status::Error(std::string("memfd_create: ") + std::strerror(errno));
    Status s = fill(fd, image, bytes);
    Frame f;
    if (s.ok()) s = call(Op::kLoad, Packer().u64(bytes), f, fd);
    close(fd);
    if (!s.ok()) return s;
    Unpacker u(f.payload);
    return static_cast<uint32_t>(u.u64());
  }

  Status unload(uint32_t image) override {
    Frame f;
    return call(Op::kUnload, Packer().u64(image), f);
  }

  Status read(uint32_t image, uint32_t tensor, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out,
              CallStats* st) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t done = 0; done < bytes;) {
      const uint64_t n = std::min(bytes - done, data_len_);
      Packer p;
      p.u64(image).u64(tensor).u64(static_cast<uint64_t>(r.kind)).u64(static_cast<uint64_t>(r.k));
      p.u64(static_cast<uint64_t>(r.guard)).u64(offset + done).u64(n);
      Frame f;
      Status s = exchange(Op::kRead, p, f);
      if (!s.ok()) return s;
      Unpacker u(f.payload);
      std::string msg = f.op_or_status ? u.str() : "";
      const CallStats cs = u.stats();
      if (st) st->add(cs);
      if (f.op_or_status) return Status::Error(msg);
      std::memcpy(out + done, data_, n);
      done += n;
    }
    return Status::Ok();
  }

  Result<uint32_t> kv_create(DType t, const KvGeometry& g) override {
    Frame f;
    NDP_RETURN_IF_ERROR(call(Op::kKvCreate, Packer().u64(static_cast<uint64_t>(t)).u64(g.window).u64(g.channels).u64(g.heads), f));
    Unpacker u(f.payload);
    const uint32_t id = static_cast<uint32_t>(u.u64());
    std::lock_guard<std::mutex> lock(mu_);
    kv_words_[id] = uint64_t{g.channels} * g.heads;
    return id;
  }

  Status kv_append(uint32_t stream, const uint16_t* tm, uint64_t tokens, CallStats* st) override {
    return kv_pieces(stream, tokens, st, [&](uint64_t done, uint64_t n, uint64_t per, Frame& f) {
      std::memcpy(data_, tm + done * per, 2 * n * per);
      return checked(Op::kKvAppend, Packer().u64(stream).u64(n), f);
    });
  }

  Status kv_read(uint32_t stream, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st) override {
    return kv_pieces(stream, tokens, st, [&](uint64_t done, uint64_t n, uint64_t per, Frame& f) {
      NDP_RETURN_IF_ERROR(checked(Op::kKvRead, Packer().u64(stream).u64(first + done).u64(n), f));
      std::memcpy(out + done * per, data_, 2 * n * per);
      return Status::Ok();
    });
  }

  Result<uint64_t> kv_tokens(uint32_t stream) override {
    Frame f;
    NDP_RETURN_IF_ERROR(call(Op::kKvTokens, Packer().u64(stream), f));
    Unpacker u(f.payload);
    return u.u64();
  }

  Result<bool> kv_on_device(uint32_t stream) override {
    Frame f;
    NDP_RETURN_IF_ERROR(call(Op::kKvOnDevice, Packer().u64(stream), f));
    Unpacker u(f.payload);
    return u.u64() != 0;
  }

  Status kv_free(uint32_t stream) override {
    Frame f;
    std::lock_guard<std::mutex> lock(mu_);
    kv_words_.erase(stream);
    return checked(Op::kKvFree, Packer().u64(stream), f);
  }

  BackendInfo info() override {
    Frame f;
    BackendInfo i;
    if (!call(Op::kInfo, Packer(), f).ok()) return i;
    Unpacker u(f.payload);
    i.memory_bytes = u.u64();
    i.free_bytes = u.u64();
    i.dram_energy_nj = u.f64();
    return i;
  }

 private:
  EmuClient() = default;

  Status hello() {
    const int fd = memfd_create("ndp-data", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return Status::Error(std::string("memfd_create: ") + std::strerror(errno));
    data_len_ = kDataBuffer;
    void* p = ftruncate(fd, static_cast<off_t>(data_len_)) == 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) == 0
                  ? mmap(nullptr, data_len_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                  : MAP_FAILED;
    if (p == MAP_FAILED) {
      close(fd);
      return Status::Error(std::string("shared data buffer: ") + std::strerror(errno));
    }
    data_ = static_cast<uint8_t*>(p);
    Frame f;
    Status s = call(Op::kHello, Packer().u64(kVersion).u64(data_len_), f, fd);
    close(fd);
    if (!s.ok()) return s;
    Unpacker u(f.payload);
    name_ = u.str();
    return Status::Ok();
  }

  // The image in a sealed memfd: the node maps it knowing that it can neither shrink nor change.
  static Status fill(int fd, const uint8_t* data, size_t n) {
    if (ftruncate(fd, static_cast<off_t>(n)) != 0) return Status::Error(std::string("ftruncate: ") + std::strerror(errno));
    for (size_t done = 0; done < n;) {
      const ssize_t w = pwrite(fd, data + done, n - done, static_cast<off_t>(done));
      if (w <= 0) return Status::Error(std::string("writing the image to shared memory: ") + std::strerror(errno));
      done += static_cast<size_t>(w);
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
      return Status::Error(std::string("sealing the image memfd: ") + std::strerror(errno));
    return Status::Ok();
  }

  // One request and its reply (the caller holds mu_).
  Status exchange(Op op, const Packer& p, Frame& f, int pass_fd = -1) {
    NDP_RETURN_IF_ERROR(send_frame(sock_, static_cast<uint32_t>(op), p.bytes(), pass_fd));
    NDP_RETURN_IF_ERROR(recv_frame(sock_, f));
    if (f.fd >= 0) close(f.fd);
    return Status::Ok();
  }
  // exchange() with an error reply turned into its message.
  Status checked(Op op, const Packer& p, Frame& f, int pass_fd = -1) {
    NDP_RETURN_IF_ERROR(exchange(op, p, f, pass_fd));
    if (f.op_or_status == 0) return Status::Ok();
    Unpacker u(f.payload);
    return Status::Error(u.str());
  }
  Status call(Op op, const Packer& p, Frame& f, int pass_fd = -1) {
    std::lock_guard<std::mutex> lock(mu_);
    return checked(op, p, f, pass_fd);
  }
  // KV tokens in pieces that fit the shared buffer: step(done, n, words per token, reply) per piece.
  template <class Step>
  Status kv_pieces(uint32_t stream, uint64_t tokens, CallStats* st, Step step) {
    auto per = kv_token_words(stream);
    if (!per.ok()) return per.status();
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t most = std::max<uint64_t>(1, data_len_ / (2 * per.value()));
    for (uint64_t done = 0; done < tokens;) {
      const uint64_t n = std::min(most, tokens - done);
      Frame f;
      NDP_RETURN_IF_ERROR(step(done, n, per.value(), f));
      Unpacker u(f.payload);
      if (st) st->add(u.stats());
      done += n;
    }
    return Status::Ok();
  }
  Result<uint64_t> kv_token_words(uint32_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = kv_words_.find(stream);
    if (it == kv_words_.end()) return Status::Error("no KV stream " + std::to_string(stream));
    return it->second;
  }

  std::mutex mu_;
  int sock_ = -1;
  uint8_t* data_ = nullptr;
  uint64_t data_len_ = 0;
  std::string name_;
  std::map<uint32_t, uint64_t> kv_words_;
};

}  // namespace

Result<std::unique_ptr<Backend>> make_emu_backend(const std::string& arg, const OpenOptions& o) {
  if (arg == "inproc") {
    auto b = make_model_backend(o, "emu:inproc");
    if (!b.ok()) return b.status();
    return std::unique_ptr<Backend>(std::move(b.value()));
  }
  const bool dflt = arg.empty();
  return EmuClient::connect(dflt ? default_socket() : arg, dflt && o.spawn, o);
}

}  // namespace ndp::drv
