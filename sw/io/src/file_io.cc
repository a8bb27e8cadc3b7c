#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "reader_util.h"

namespace ndp::io {

Result<MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::Error(path + ": not a regular file");
  }
  MappedFile f;
  f.n_ = static_cast<size_t>(st.st_size);
  if (f.n_ > 0) {
    void* m = mmap(nullptr, f.n_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      return Status::Error(path + ": cannot map " + std::to_string(f.n_) + " bytes: " + std::strerror(e));
    }
    madvise(m, f.n_, MADV_SEQUENTIAL);
    f.p_ = static_cast<const uint8_t*>(m);
  }
  ::close(fd);
  return f;
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    if (p_) munmap(const_cast<uint8_t*>(p_), n_);
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (p_) munmap(const_cast<uint8_t*>(p_), n_);
}

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
