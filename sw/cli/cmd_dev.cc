// ndp dev read|tensors|daemon: the host driver (libndp, docs/driver.md) from the command line.
//   ndp dev read IMAGE --backend emu|rtl|dax:PATH --region FORMAT [--guard G] [--tensor NAME] -o OUT
//   ndp dev tensors IMAGE [--backend B]
//   ndp dev daemon [--socket S] [--dram BYTES] [--idle-exit SECONDS] [--stop]
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "cli_util.h"
#include "dev_common.h"
#include "ndp/driver_backend.h"
#include "ndp/emu_node.h"

namespace ndp::cli {

Result<std::unique_ptr<drv::Device>> open_backend(const Args& a) {
  drv::OpenOptions o;
  auto dram = a.get_int("--dram", static_cast<int64_t>(o.dram_bytes), 1, int64_t{1} << 40);
  if (!dram || *dram <= 0) return Status::Error("bad --dram");
  o.dram_bytes = static_cast<uint64_t>(*dram);
  return drv::Device::open(a.get("--backend", "emu"), o);
}

Result<std::vector<size_t>> select_tensors(const Args& a, drv::Device& dev, uint32_t image) {
  std::vector<size_t> which;
  if (a.has("--tensor")) {
    auto f = dev.find(image, a.get("--tensor"));
    if (!f.ok()) return f.status();
    which.push_back(f.value());
  } else {
    for (size_t i = 0; i < dev.tensors(image)->size(); ++i) which.push_back(i);
  }
  return which;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

std::string json_obj(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string o = "{";
  for (size_t i = 0; i < kv.size(); ++i) o += (i ? ", " : "") + json_str(kv[i].first) + ": " + kv[i].second;
  return o + "}";
}

std::string json_num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}
std::string json_num(uint64_t v) { return std::to_string(v); }

namespace {

// The summary line of `dev read` (also on failure, with the message).
void print_read_json(const Args& a, const std::string& backend, const drv::CallStats& st, uint64_t stored,
                     size_t tensors, const Status& s) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"backend", json_str(backend)},
      {"image", json_str(a.pos.empty() ? "" : a.pos[0])},
      {"region", json_str(a.get("--region"))},
      {"guard", json_num(static_cast<uint64_t>(a.get_int("--guard", 0, 0, 2).value_or(0)))},
      {"tensors", json_num(static_cast<uint64_t>(tensors))},
      {"host_bytes", json_num(st.host_bytes)},
      {"link_bytes", json_num(st.link_bytes)},
      {"device_bytes", json_num(st.device_bytes)},
      {"stored_bytes", json_num(stored)},
      {"blocks", json_num(st.blocks)},
      {"errors", json_num(st.errors)},
      {"seconds", json_num(st.seconds)},
      {"gbps", json_num(st.seconds > 0 ? double(st.host_bytes) / st.seconds / 1e9 : 0.0)},
      {"status", json_str(s.ok() ? "ok" : "error")}};
  if (!s.ok()) kv.push_back({"message", json_str(s.message())});
  std::printf("%s\n", json_obj(kv).c_str());
}

int cmd_dev_read(const Args& a) {
  if (a.pos.empty()) return fail(a, "missing IMAGE");
  if (!a.has("-o")) return fail(a, "missing -o OUT");
  if (!a.has("--region")) return fail(a, "missing --region FORMAT");
  auto guard = a.get_int("--guard", 0, 0, 2);
  if (!guard) return 1;
  if (*guard < 0 || *guard > 2) return fail(a, "--guard must be 0, 1 or 2");
  auto dev = open_backend(a);
  if (!dev.ok()) return fail(a, dev.status().message());
  drv::Device& d = *dev.value();
  const std::string backend = d.backend_name();
  drv::CallStats total;
  uint64_t stored = 0;
  std::vector<size_t> which;
  auto run = [&]() -> Status {
    auto img = d.load_file(a.pos[0]);
    if (!img.ok()) return img.status();
    auto w = select_tensors(a, d, img.value());
    if (!w.ok()) return w.status();
    which = w.value();
    std::vector<uint8_t> out, part;
    for (size_t i : which) {
      const TensorInfo& ti = (*d.tensors(img.value()))[i];
      auto reg = parse_region(a.get("--region"), ti.dtype, static_cast<int>(*guard));
      if (!reg.ok()) return Status::Error("tensor '" + ti.name + "': " + reg.status().message());
      drv::CallStats st;
      Status s = d.read_region(img.value(), i, reg.value(), part, &st);
      total.add(st);
      if (!s.ok()) return s;
      out.insert(out.end(), part.begin(), part.end());
      stored += ti.stored_bytes;
    }
    return write_file(a.get("-o"), out);
  };
  Status s = run();
  print_read_json(a, backend, total, stored, which.size(), s);
  if (!s.ok()) return fail(a, s.message());
  return 0;
}

int cmd_dev_tensors(const Args& a) {
  if (a.pos.empty()) return fail(a, "missing IMAGE");
  auto dev = open_backend(a);
  if (!dev.ok()) return fail(a, dev.status().message());
  auto img = dev.value()->load_file(a.pos[0]);
  if (!img.ok()) return fail(a, img.status().message());
  std::printf("%s on %s:\n%-40s %-9s %-8s %-7s %12s %12s %7s\n", a.pos[0].c_str(), dev.value()->backend_name().c_str(),
              "tensor", "dtype", "layout", "kind", "elements", "stored B", "chunks");
  for (const TensorInfo& t : *dev.value()->tensors(img.value()))
    std::printf("%-40s %-9s %-8s %-7s %12" PRIu64 " %12" PRIu64 " %7" PRIu64 "\n", t.name.c_str(), dtype_info(t.dtype).name,
                t.layout == Layout::kExpByte ? "expbyte" : "bitplane", t.kind == TensorKind::kWeight ? "weight" : "kv",
                t.elems, t.stored_bytes, t.chunks);
  return 0;
}

int cmd_dev_daemon(const Args& a) {
  if (a.has("--stop")) {
    Status s = drv::stop_emu_node(a.get("--socket"));
    return s.ok() ? 0 : fail(a, s.message());
  }
  drv::EmuNodeOptions o;
  o.socket = a.get("--socket");
  auto dram = a.get_int("--dram", static_cast<int64_t>(o.device.dram_bytes), 1, int64_t{1} << 40);
  if (!dram || *dram <= 0) return fail(a, "bad --dram");
  o.device.dram_bytes = static_cast<uint64_t>(*dram);
  if (a.has("--idle-exit")) {
    auto idle = a.get_int("--idle-exit", 0, 0, 86400 * 365);
    if (!idle || *idle < 0) return fail(a, "bad --idle-exit");
    o.exit_when_idle = true;
    o.idle_seconds = static_cast<double>(*idle);
  }
  o.log = true;
  Status s = drv::run_emu_node(o, [&] {
    std::printf("ndp emu node listening on %s (device DRAM %" PRIu64 " bytes)\n",
                o.socket.empty() ? "the default socket" : o.socket.c_str(), o.device.dram_bytes);
    std::fflush(stdout);
  });
  return s.ok() ? 0 : fail(a, s.message());
}

}  // namespace

NDP_COMMAND("dev read", "dev read IMAGE --backend emu|rtl|dax:PATH --region FORMAT [--guard G] [--tensor NAME] -o OUT",
            cmd_dev_read);
NDP_COMMAND("dev tensors", "dev tensors IMAGE [--backend B]   (load IMAGE and list its tensors)", cmd_dev_tensors);
NDP_COMMAND("dev daemon", "dev daemon [--socket S|@NAME] [--dram BYTES] [--idle-exit SECONDS] [--stop]", cmd_dev_daemon,
            {"--stop"});

}  // namespace ndp::cli
