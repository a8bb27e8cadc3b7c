// ndp_mutate: mutation campaign over real inputs (docs/results/reliability.md). Each mutated input is
// parsed and exercised in a forked child, so a crash or a hang cannot stop the campaign; the parent
// classifies the outcome and records the child's peak RSS (wait4).
//   ndp_mutate FORMAT PATH [--n N] [--seed S] [--timeout SEC] [--save DIR]
// FORMAT: image (an .ndpi file), kvtrace (an .nkvt file), llama2c, rwkv (model files), safetensors and
// gguf (the tensors of the model at PATH rewritten in that container, F32), gpt2raw (a GPT-2 raw
// directory: its model.properties and the .dat files of at most 64 KiB, i.e. biases and norms).
// Outcomes: accepted (parsed and every tensor read), clean error (a one-line error value), crash
// (a signal), hang (over --timeout), alloc failure (std::bad_alloc with the address space capped at
// 4 GiB above the child's start),
// bad message (an empty error message or an unexpected exception). Exit status 1 when any of the
// last four occurred.
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ndp/file.h"
#include "ndp/image.h"
#include "ndp/kvtrace.h"
#include "ndp/model_reader.h"
#include "synth.h"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

enum Outcome { kAccepted = 0, kCleanError = 1, kBadMessage = 2, kAllocFailure = 3, kCrash, kHang, kOutcomes };
const char* kOutcomeName[kOutcomes] = {"accepted", "clean error", "bad message", "alloc failure", "crash", "hang"};

// ---- what the child runs ------------------------------------------------------------------------

// A clean error is a non-empty message; the CLI prints it on one line through ndp::one_line, which
// escapes the control bytes that a name read from the file may hold.
int verdict(const ndp::Status& s) {
  if (s.ok()) return kAccepted;
  return s.message().empty() ? kBadMessage : kCleanError;
}

int exercise_model(ndp::Result<ndp::Model> r) {
  if (!r.ok()) return verdict(r.status());
  ndp::convert_model_to_bf16(r.value());
  return kAccepted;
}

int exercise_image(const Bytes& b) {
  auto r = ndp::ImageReader::open_view(b.data(), b.size());
  if (!r.ok()) return verdict(r.status());
  ndp::ImageReader& img = *r.value();
  const bool intact = img.verify().empty();
  std::vector<uint8_t> out;
  for (size_t i = 0; i < img.tensors().size(); ++i) {
    const ndp::DType t = img.tensors()[i].dtype;
    ndp::Status s = img.read_tensor(i, out);
    for (const ndp::Region& reg : ndp::all_regions(t, 1))
      if (s.ok()) s = img.read_region(i, reg, out);
    if (!s.ok()) return verdict(s);
  }
  return intact ? kAccepted : kCleanError;  // verify() named a bad block that the reads did not need
}

int exercise_kvtrace(const Bytes& b) {
  auto t = ndp::parse_kv_trace(b.data(), b.size(), "trace");
  if (!t.ok()) return verdict(t.status());
  uint64_t sum = 0;  // touch the last element of every stream through the accessor a library caller uses
  for (uint32_t l = 0; l < t->n_layers; ++l)
    for (uint32_t k = 0; k < 2; ++k)
      for (uint32_t h = 0; h < t->n_kv_heads; ++h) sum += t->stream(l, k, h)[t->stream_elems() - 1];
  volatile uint64_t sink = sum;
  (void)sink;
  return kAccepted;
}

// ---- inputs -------------------------------------------------------------------------------------

struct Campaign {
  std::string format;
  Bytes original;                        // single-file formats
  std::string props;                     // gpt2raw
  std::map<std::string, Bytes> files;    // gpt2raw: relative path -> content
  std::function<int(const Bytes&)> run;  // single-file formats
  bool fixup = false;                    // image / kvtrace: repair size and checksum fields half the time
};

ndp::Result<ndp::Model> load_model(const std::string& path) { return ndp::read_model(path); }

ndp::Result<Bytes> as_safetensors(const ndp::Model& m) {
  std::vector<ndp::synth::StTensor> ts;
  for (const ndp::Tensor& t : m.tensors) ts.push_back({t.name, "F32", t.shape, t.data});
  return ndp::synth::safetensors_file(ts, {{"source", m.path}});
}

ndp::Result<Bytes> as_gguf(const ndp::Model& m) {
  ndp::synth::GgufWriter w(3);
  w.kv_string("general.architecture", "llama");
  for (const auto& [k, v] : m.meta) w.kv_u32("llama." + k, static_cast<uint32_t>(v));
  for (const ndp::Tensor& t : m.tensors) w.tensor(t.name, 0, {t.shape.rbegin(), t.shape.rend()}, t.data);
  return w.build();
}

ndp::Status load_gpt2raw(const std::string& dir, Campaign& c) {
  auto p = ndp::read_text_file(dir + "/model.properties");
  if (!p.ok()) return p.status();
  c.props = p.value();
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".dat" && e.file_size() <= 65536) {
      Bytes b;
      NDP_RETURN_IF_ERROR(ndp::read_whole_file(e.path().string(), &b));
      c.files[fs::relative(e.path(), dir).string()] = std::move(b);
    }
  return ndp::Status::Ok();
}

ndp::Status setup(const std::string& format, const std::string& path, Campaign& c) {
  c.format = format;
  if (format == "gpt2raw") return load_gpt2raw(path, c);
  if (format == "safetensors" || format == "gguf") {
    auto m = load_model(path);
    if (!m.ok()) return m.status();
    auto b = format == "gguf" ? as_gguf(m.value()) : as_safetensors(m.value());
    if (!b.ok()) return b.status();
    c.original = std::move(b.value());
  } else {
    NDP_RETURN_IF_ERROR(ndp::read_whole_file(path, &c.original));
  }
  const std::string what = "input";
  if (format == "image")
    c.run = exercise_image, c.fixup = true;
  else if (format == "kvtrace")
    c.run = exercise_kvtrace, c.fixup = true;
  else if (format == "safetensors")
    c.run = [what](const Bytes& b) { return exercise_model(ndp::parse_safetensors(b.data(), b.size(), what)); };
  else if (format == "gguf")
    c.run = [what](const Bytes& b) { return exercise_model(ndp::parse_gguf(b.data(), b.size(), what)); };
  else if (format == "llama2c")
    c.run = [what](const Bytes& b) { return exercise_model(ndp::parse_llama2c(b.data(), b.size(), what)); };
  else if (format == "rwkv")
    c.run = [what](const Bytes& b) { return exercise_model(ndp::parse_rwkv(b.data(), b.size(), what)); };
  else
    return ndp::Status::Error("unknown format '" + format + "'");
  return c.run(c.original) == kAccepted ? ndp::Status::Ok()
                                        : ndp::Status::Error(path + ": the unmutated input is not accepted");
}

// ---- mutations ----------------------------------------------------------------------------------

const uint64_t kInteresting[] = {0,
                                 1,
                                 0x7F,
                                 0x80,
                                 0xFF,
                                 0x100,
                                 0xFFFF,
                                 0x10000,
                                 0x7FFFFFFF,
                                 0x80000000,
                                 0xFFFFFFFF,
                                 0x100000000ull,
                                 0x7FFFFFFFFFFFFFFFull,
                                 0xFFFFFFFFFFFFFFFFull};

// A position biased to the structure of a file: its first and last 4 KiB (headers, tables).
size_t hot_pos(std::mt19937_64& rng, size_t n) {
  const size_t hot = std::min<size_t>(n, 4096), r = rng() % 4;
  if (r == 0 || n <= 2 * hot) return rng() % n;
  return r == 1 ? n - 1 - rng() % hot : rng() % hot;
}

void mutate_once(std::mt19937_64& rng, Bytes& b) {
  const int op = static_cast<int>(rng() % 8);
  if (b.empty() && op != 5) return;
  const size_t n = b.size(), at = b.empty() ? 0 : hot_pos(rng, n);
  switch (op) {
    case 0:
      b[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
      break;
    case 1:
      b[at] = static_cast<uint8_t>(rng());
      break;
    case 2:
    case 3: {  // an interesting 1/2/4/8-byte little-endian integer
      const uint64_t v = kInteresting[rng() % (sizeof kInteresting / 8)] + (rng() % 4 == 0 ? rng() % 3 : 0);
      const size_t w = size_t{1} << (rng() % 4), p = (rng() % 2 ? at & ~size_t{3} : at);
      for (size_t i = 0; i < w && p + i < n; ++i) b[p + i] = static_cast<uint8_t>(v >> (8 * i));
      break;
    }
    case 4:
      b.resize(rng() % (n + 1));
      break;
    case 5: {
      const size_t k = 1 + rng() % 4096;
      for (size_t i = 0; i < k; ++i) b.push_back(static_cast<uint8_t>(rng()));
      break;
    }
    case 6:
      b.erase(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(std::min(n, at + 1 + rng() % 64)));
      break;
    default: {  // copy a span over another
      const size_t from = hot_pos(rng, n), len = std::min({n - from, n - at, size_t{1} + rng() % 256});
      std::memmove(b.data() + at, b.data() + from, len);
    }
  }
}

void put_le(Bytes& b, size_t off, uint64_t v, int w) {
  for (int i = 0; i < w; ++i) b[off + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

// Repair what a checksum or size field would reject first, so mutations reach the deeper checks.
void fixup(const std::string& format, Bytes& b) {
  if (format == "image" && b.size() >= 64) {
    put_le(b, 24, b.size(), 8);
    uint64_t toff = 0;
    for (int i = 0; i < 8; ++i) toff |= uint64_t{b[16 + static_cast<size_t>(i)]} << (8 * i);
    if (toff <= b.size()) put_le(b, 32, XXH32(b.data() + toff, b.size() - toff, 0), 4);
  } else if (format == "kvtrace" && b.size() >= 64) {
    put_le(b, 40, 0, 4);
    put_le(b, 40, XXH32(b.data(), b.size(), 0), 4);
  }
}

// ---- the GPT-2 directory ------------------------------------------------------------------------

void mutate_gpt2(std::mt19937_64& rng, Campaign& c, std::string& props, std::map<std::string, Bytes>& files) {
  props = c.props;
  files = c.files;
  const int op = static_cast<int>(rng() % 6);
  if (op <= 1) {  // properties text: bytes, or a number replaced by an interesting one
    Bytes p(props.begin(), props.end());
    if (op == 0) mutate_once(rng, p);
    props.assign(p.begin(), p.end());
    if (op == 1) {
      static const char* kNums[] = {"0", "-1", "16777216", "16777217", "4294967296", "99999999999999999999", "x", ""};
      const size_t eq = props.find('=', rng() % (props.size() + 1));
      if (eq != std::string::npos)
        props.replace(eq + 1, props.find('\n', eq) - eq - 1, std::string(" ") + kNums[rng() % 8]);
    }
    return;
  }
  auto it = files.begin();
  std::advance(it, static_cast<long>(rng() % files.size()));
  if (op <= 3)
    mutate_once(rng, it->second);  // one .dat file's bytes or size
  else if (op == 4)
    files["decoder" + std::to_string(rng() % 9) + "/extra.dat"] = Bytes(4 * (rng() % 1025));
  else
    files.erase(it);  // a tensor file missing
}

void write_dir(const fs::path& dir, const std::string& props, const std::map<std::string, Bytes>& files) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  std::ofstream(dir / "model.properties", std::ios::binary) << props;
  for (const auto& [rel, b] : files) {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<long>(b.size()));
  }
}

// ---- the campaign -------------------------------------------------------------------------------

struct Result {
  uint64_t count[kOutcomes] = {};
  long peak_kb = 0;  // largest child peak RSS above its start RSS
  uint64_t max_input = 0;
};

// Address space (vm) or resident set of this process now, KiB (/proc/self/statm).
long statm_kb(bool resident) {
  long pages = 0, res = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &res) != 2) pages = res = 0;
    std::fclose(f);
  }
  return (resident ? res : pages) * (sysconf(_SC_PAGESIZE) / 1024);
}

// Cap the child's address space at its current size + 4 GiB, so an allocation a hostile input asks
// for fails (std::bad_alloc, counted) instead of succeeding lazily. Not under a sanitizer, whose
// shadow memory already spans terabytes.
void cap_address_space() {
  const uint64_t vm = static_cast<uint64_t>(statm_kb(false)) * 1024;
  if (vm == 0 || vm > (uint64_t{64} << 30)) return;
  const rlimit cap{vm + (uint64_t{4} << 30), vm + (uint64_t{4} << 30)};
  setrlimit(RLIMIT_AS, &cap);
}

// Fork, run `child` under an address-space cap, classify. *peak_kb gets what the child's peak RSS
// (wait4) exceeds its RSS at the start (reported through a shared page): the memory the work itself
// used, whatever the parent holds.
Outcome run_child(const std::function<int()>& child, double timeout_s, long* peak_kb) {
  static long* start_kb =
      static_cast<long*>(mmap(nullptr, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  *start_kb = 0;
  malloc_trim(0);  // the child must not reuse the parent's free-but-resident heap: its growth is the measure
  const pid_t pid = fork();
  if (pid == 0) {
    *start_kb = statm_kb(true);
    cap_address_space();
    int rc = kBadMessage;
    try {
      rc = child();
    } catch (const std::bad_alloc&) {
      rc = kAllocFailure;
    } catch (...) {
      rc = kBadMessage;
    }
    _exit(rc);
  }
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  rusage ru{};
  for (;;) {
    const pid_t w = wait4(pid, &status, WNOHANG, &ru);
    if (w == pid) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &ru);
      *peak_kb = ru.ru_maxrss - *start_kb;
      return kHang;
    }
    usleep(200);
  }
  *peak_kb = ru.ru_maxrss - *start_kb;
  if (WIFSIGNALED(status)) return kCrash;
  const int rc = WEXITSTATUS(status);
  return rc >= kAccepted && rc <= kAllocFailure ? static_cast<Outcome>(rc) : kCrash;
}

void save(const std::string& dir, const std::string& format, uint64_t i, const Bytes& b) {
  if (dir.empty()) return;
  fs::create_directories(dir);
  std::ofstream(fs::path(dir) / (format + "-" + std::to_string(i)), std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<long>(b.size()));
}

Result campaign(Campaign& c, uint64_t n, uint64_t seed, double timeout_s, const std::string& save_dir) {
  Result res;
  std::mt19937_64 rng(seed);
  const fs::path dir =
      fs::path(fs::is_directory("/dev/shm") ? "/dev/shm" : "/tmp") / ("ndp_mutate_" + std::to_string(getpid()));
  const bool gpt2 = c.format == "gpt2raw";
  Bytes b;
  std::string props;
  std::map<std::string, Bytes> files;
  for (uint64_t i = 0; i < n; ++i) {
    std::function<int()> child;
    uint64_t size = 0;
    if (gpt2) {
      mutate_gpt2(rng, c, props, files);
      write_dir(dir, props, files);
      child = [&] { return exercise_model(ndp::read_gpt2_raw(dir.string())); };
      size = props.size();
      for (const auto& f : files) size += f.second.size();
    } else {
      b = c.original;
      const int k = 1 + static_cast<int>(rng() % 4);
      for (int j = 0; j < k; ++j) mutate_once(rng, b);
      if (c.fixup && rng() % 2) fixup(c.format, b);
      child = [&] { return c.run(b); };
      size = b.size();
    }
    long kb = 0;
    const Outcome o = run_child(child, timeout_s, &kb);
    res.count[o]++;
    res.max_input = std::max(res.max_input, size);
    res.peak_kb = std::max(res.peak_kb, kb);
    if (o >= kBadMessage) save(save_dir, c.format, i, b);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FORMAT PATH [--n N] [--seed S] [--timeout SEC] [--save DIR]\n", argv[0]);
    return 2;
  }
  uint64_t n = 10000, seed = 1;
  double timeout_s = 10;
  std::string save_dir;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--n")
      n = std::stoull(v);
    else if (k == "--seed")
      seed = std::stoull(v);
    else if (k == "--timeout")
      timeout_s = std::stod(v);
    else if (k == "--save")
      save_dir = v;
  }
  Campaign c;
  ndp::Status st = setup(argv[1], argv[2], c);
  if (!st.ok()) {
    std::fprintf(stderr, "ndp_mutate: %s\n", st.message().c_str());
    return 2;
  }
  uint64_t input = c.original.size();
  for (const auto& f : c.files) input += f.second.size();
  input += c.props.size();
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = campaign(c, n, seed, timeout_s, save_dir);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s %s: %llu inputs (seed %llu), %.0f s;", argv[1], argv[2], static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(seed), secs);
  for (int o = 0; o < kOutcomes; ++o)
    std::printf(" %s %llu%s", kOutcomeName[o], static_cast<unsigned long long>(r.count[o]),
                o + 1 < kOutcomes ? "," : ";");
  std::printf(
      " input %llu B (largest mutant %llu B); peak RSS above the child's start at most %ld KiB = %.2f x the "
      "input\n",
      static_cast<unsigned long long>(input), static_cast<unsigned long long>(r.max_input), r.peak_kb,
      1024.0 * static_cast<double>(r.peak_kb) / static_cast<double>(std::max<uint64_t>(input, 1)));
  return r.count[kBadMessage] + r.count[kAllocFailure] + r.count[kCrash] + r.count[kHang] ? 1 : 0;
}
