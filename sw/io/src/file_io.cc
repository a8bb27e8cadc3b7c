#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "reader_util.h"

namespace ndp::io {

Status read_file_exact(const std::string& path, uint64_t n, std::vector<uint8_t>* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  out->resize(static_cast<size_t>(n));
  uint64_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, out->data() + got, static_cast<size_t>(n - got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      int e = errno;
      ::close(fd);
      return reader_error(path, got, r == 0 ? "file ended early (changed while reading?)" : std::strerror(e));
    }
    got += static_cast<uint64_t>(r);
  }
  ::close(fd);
  return Status::Ok();
}

}  // namespace ndp::io
