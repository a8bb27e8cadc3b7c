// KV trace reader and writer (format in ndp/kvtrace.h and docs/kv.md).
#include "ndp/kvtrace.h"

#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <memory>

namespace ndp {
namespace {

constexpr char kMagic[4] = {'N', 'K', 'V', 'T'};
constexpr uint16_t kVersion = 1;
// Largest payload accepted (16 GiB): keeps size arithmetic far from overflow.
constexpr uint64_t kMaxElems = kKvTraceMaxElems;

template <typename T>
void put(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}
template <typename T>
T get(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}

// XXH32 (seed 0) of the whole file with the checksum field (bytes 40-43) read as zero.
uint32_t trace_checksum(const uint8_t* p, size_t n) {
  XXH32_state_t* st = XXH32_createState();
  XXH32_reset(st, 0);
  const uint8_t zero[4] = {0, 0, 0, 0};
  XXH32_update(st, p, 40);
  XXH32_update(st, zero, 4);
  XXH32_update(st, p + 44, n - 44);
  const uint32_t h = XXH32_digest(st);
  XXH32_freeState(st);
  return h;
}

}  // namespace

Status check_kv_trace(const KvTrace& t) {
  if (t.dtype != DType::kBF16 && t.dtype != DType::kFP16)
    return Status::Error("kv trace: dtype must be bf16 or fp16");
  if (t.n_layers == 0 || t.n_kv_heads == 0 || t.head_dim == 0 || t.n_tokens == 0)
    return Status::Error("kv trace: n_layers, n_kv_heads, head_dim and n_tokens must be non-zero");
  if (t.n_layers > 65536 || t.n_kv_heads > 65536 || t.head_dim > 65536 || t.n_tokens > (1u << 24))
    return Status::Error("kv trace: geometry out of range");
  uint64_t elems = 0;
  if (!t.payload_elems(&elems) || elems > kMaxElems) return Status::Error("kv trace: payload larger than 16 GiB");
  if (t.tokens.size() != t.n_tokens) return Status::Error("kv trace: token list length differs from n_tokens");
  if (t.kv.size() != elems)
    return Status::Error("kv trace: payload has " + std::to_string(t.kv.size()) + " elements, expected " +
                         std::to_string(elems));
  if (t.model_name.size() > 65535) return Status::Error("kv trace: model name longer than 65535 bytes");
  return Status::Ok();
}

Result<std::vector<uint8_t>> serialize_kv_trace(const KvTrace& t) {
  NDP_RETURN_IF_ERROR(check_kv_trace(t));
  const size_t name = t.model_name.size();
  const size_t total = kKvTraceHeaderBytes + name + 4 * t.tokens.size() + 2 * t.kv.size();
  std::vector<uint8_t> b(total, 0);
  std::memcpy(b.data(), kMagic, 4);
  put<uint16_t>(b, 4, kVersion);
  b[6] = static_cast<uint8_t>(t.dtype);
  put<uint32_t>(b, 8, t.n_layers);
  put<uint32_t>(b, 12, t.n_kv_heads);
  put<uint32_t>(b, 16, t.head_dim);
  put<uint32_t>(b, 20, t.n_tokens);
  put<uint32_t>(b, 24, t.n_heads);
  put<uint32_t>(b, 28, t.dim);
  put<uint64_t>(b, 32, t.seed);
  put<uint16_t>(b, 44, static_cast<uint16_t>(name));
  put<uint16_t>(b, 46, t.rope_style);
  size_t off = kKvTraceHeaderBytes;
  std::memcpy(b.data() + off, t.model_name.data(), name);
  off += name;
  std::memcpy(b.data() + off, t.tokens.data(), 4 * t.tokens.size());
  off += 4 * t.tokens.size();
  std::memcpy(b.data() + off, t.kv.data(), 2 * t.kv.size());
  put<uint32_t>(b, 40, trace_checksum(b.data(), b.size()));
  return b;
}

Status write_kv_trace(const std::string& path, const KvTrace& t) {
  auto bytes = serialize_kv_trace(t);
  if (!bytes.ok()) return Status(bytes.status()).prepend(path + ": ");
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!f) return Status::Error(path + ": cannot open for writing");
  const auto& b = bytes.value();
  if (std::fwrite(b.data(), 1, b.size(), f.get()) != b.size()) return Status::Error(path + ": write failed");
  if (std::fclose(f.release()) != 0) return Status::Error(path + ": close failed");
  return Status::Ok();
}

Result<KvTrace> parse_kv_trace(const uint8_t* p, size_t n, const std::string& what) {
  auto err = [&](size_t off, const std::string& msg) {
    return Status::Error(what + ": offset " + std::to_string(off) + ": " + msg);
  };
  if (n < kKvTraceHeaderBytes) return err(0, "file shorter than the 64-byte KV trace header");
  if (std::memcmp(p, kMagic, 4) != 0) return err(0, "bad magic (not an NKVT KV trace)");
  if (get<uint16_t>(p, 4) != kVersion) return err(4, "unsupported version " + std::to_string(get<uint16_t>(p, 4)));
  KvTrace t;
  if (p[6] != static_cast<uint8_t>(DType::kBF16) && p[6] != static_cast<uint8_t>(DType::kFP16))
    return err(6, "dtype code " + std::to_string(p[6]) + " is not bf16 or fp16");
  t.dtype = static_cast<DType>(p[6]);
  if (p[7] != 0) return err(7, "reserved byte is not zero");
  t.n_layers = get<uint32_t>(p, 8);
  t.n_kv_heads = get<uint32_t>(p, 12);
  t.head_dim = get<uint32_t>(p, 16);
  t.n_tokens = get<uint32_t>(p, 20);
  t.n_heads = get<uint32_t>(p, 24);
  t.dim = get<uint32_t>(p, 28);
  t.seed = get<uint64_t>(p, 32);
  const uint32_t checksum = get<uint32_t>(p, 40);
  const size_t name = get<uint16_t>(p, 44);
  t.rope_style = get<uint16_t>(p, 46);
  if (t.rope_style > 1) return err(46, "rope style " + std::to_string(t.rope_style) + " is not 0 or 1");
  for (size_t i = 48; i < kKvTraceHeaderBytes; ++i)
    if (p[i] != 0) return err(i, "reserved header byte is not zero");
  if (t.n_layers == 0 || t.n_kv_heads == 0 || t.head_dim == 0 || t.n_tokens == 0 || t.n_layers > 65536 ||
      t.n_kv_heads > 65536 || t.head_dim > 65536 || t.n_tokens > (1u << 24))
    return err(8, "geometry out of range");
  uint64_t elems = 0;
  if (!t.payload_elems(&elems) || elems > kMaxElems) return err(8, "payload larger than 16 GiB");
  // elems <= 2^33, n_tokens <= 2^24, name < 2^16: the sum cannot overflow.
  const uint64_t need = kKvTraceHeaderBytes + name + 4 * uint64_t{t.n_tokens} + 2 * elems;
  if (n != need)
    return err(n < need ? n : need, "file is " + std::to_string(n) + " bytes, header implies " + std::to_string(need));
  if (trace_checksum(p, n) != checksum)
    return err(40, "XXH32 checksum mismatch");
  size_t off = kKvTraceHeaderBytes;
  t.model_name.assign(reinterpret_cast<const char*>(p + off), name);
  off += name;
  t.tokens.resize(t.n_tokens);
  std::memcpy(t.tokens.data(), p + off, 4 * t.tokens.size());
  off += 4 * t.tokens.size();
  t.kv.resize(elems);
  std::memcpy(t.kv.data(), p + off, 2 * t.kv.size());
  return t;
}

Result<KvTrace> read_kv_trace(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) return Status::Error(path + ": cannot open");
  std::vector<uint8_t> b;
  uint8_t buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    b.insert(b.end(), buf, buf + got);
    if (b.size() > kMaxElems * 2 + (uint64_t{1} << 30)) return Status::Error(path + ": file too large");
  }
  if (std::ferror(f.get())) return Status::Error(path + ": read error");
  return parse_kv_trace(b.data(), b.size(), path);
}

}  // namespace ndp
