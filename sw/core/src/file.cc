// read_whole_file: open, fstat, read until the size seen at open (ndp/file.h).
#include "ndp/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace ndp {

namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Status read_whole_file(const std::string& path, std::vector<uint8_t>* out, uint64_t max_bytes) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return Status::Error(path + ": not a regular file");
  const uint64_t n = static_cast<uint64_t>(st.st_size);
  if (n > max_bytes)
    return Status::Error(path + ": " + std::to_string(n) + " bytes, larger than the " + std::to_string(max_bytes) +
                         "-byte limit");
  try {
    out->resize(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    return Status::Error(path + ": cannot allocate " + std::to_string(n) + " bytes to read it");
  }
  uint64_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(f.fd, out->data() + got, static_cast<size_t>(n - got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::Error(path + ": offset " + std::to_string(got) + ": read error: " + std::strerror(errno));
    if (r == 0)
      return Status::Error(path + ": offset " + std::to_string(got) + ": file ended early (it was " +
                           std::to_string(n) + " bytes at open; changed while reading?)");
    got += static_cast<uint64_t>(r);
  }
  return Status::Ok();
}

Result<std::string> read_text_file(const std::string& path, uint64_t max_bytes) {
  std::vector<uint8_t> b;
  NDP_RETURN_IF_ERROR(read_whole_file(path, &b, max_bytes));
  return std::string(b.begin(), b.end());
}

}  // namespace ndp
