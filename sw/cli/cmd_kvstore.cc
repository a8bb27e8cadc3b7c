// ndp kvstore create|inspect|check|serve|bench|crash-test: the KV block store (docs/kvstore.md).
#ifdef HAVE_NDP_KVSTORE
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "command.h"
#include "ndp/kvstore/bench.h"
#include "ndp/kvstore/crash.h"
#include "ndp/kvstore/rpc.h"
#include "ndp/runtime/size.h"

namespace ndp::cli {
namespace {

using namespace ndp::kv;

// --tokens --layers --kv-heads --head-dim --elem, each defaulting to `g`.
bool geometry_args(const Args& a, Geometry& g) {
  const auto t = a.get_int("--tokens", g.tokens, 1, 1 << 20), l = a.get_int("--layers", g.layers, 1, 1 << 20);
  const auto h = a.get_int("--kv-heads", g.kv_heads, 1, 1 << 20), d = a.get_int("--head-dim", g.head_dim, 1, 1 << 20);
  const auto e = a.get_int("--elem", g.elem_bytes, 1, 1 << 20);
  if (!t || !l || !h || !d || !e) return false;
  for (int64_t v : {*t, *l, *h, *d, *e})
    if (v <= 0 || v > (1 << 20)) return fail(a, "block dimensions must be 1..1048576"), false;
  g = Geometry{uint32_t(*t), uint32_t(*l), uint32_t(*h), uint32_t(*d), uint32_t(*e)};
  if (auto st = g.validate(); !st.ok()) return fail(a, st.message()), false;
  return true;
}

bool coherence_arg(const Args& a, Coherence& c) {
  if (!a.has("--coherence")) return true;
  auto r = parse_coherence(a.get("--coherence"));
  if (!r.ok()) return fail(a, r.status().message()), false;
  c = r.value();
  return true;
}

bool size_arg(const Args& a, const char* k, uint64_t& v) {
  if (!a.has(k)) return true;
  auto r = rt::parse_size(a.get(k));
  if (!r.ok()) return fail(a, std::string(k) + ": " + r.status().message()), false;
  v = r.value();
  return true;
}

std::string pool_arg(const Args& a) { return a.has("--pool") ? a.get("--pool") : (a.pos.empty() ? "" : a.pos[0]); }

nlohmann::ordered_json pool_json(const KvStore& s) {
  const PoolStats p = s.stats();
  const Geometry& g = s.geometry();
  nlohmann::ordered_json j;
  j["pool"] = s.path(), j["pool_bytes"] = p.pool_bytes, j["coherence"] = coherence_name(s.coherence());
  j["geometry"] = {{"tokens", g.tokens}, {"layers", g.layers}, {"kv_heads", g.kv_heads},
                   {"head_dim", g.head_dim}, {"elem_bytes", g.elem_bytes}};
  j["block_bytes"] = p.block_bytes, j["slot_bytes"] = p.slot_bytes, j["blocks"] = p.blocks;
  j["free"] = p.free, j["writing"] = p.writing, j["sealed"] = p.sealed;
  j["index_slots"] = p.index_slots, j["index_used"] = p.index_used, j["index_tombstones"] = p.index_tombstones;
  j["rpc_channels"] = s.rpc_channels(), j["rpc_depth"] = s.rpc_depth();
  return j;
}

void print_pool(const KvStore& s) {
  const PoolStats p = s.stats();
  std::printf("pool %s: %s, %llu blocks of %s (%s), coherence %s\n", s.path().c_str(),
              rt::format_size(p.pool_bytes).c_str(), (unsigned long long)p.blocks,
              s.geometry().describe().c_str(), rt::format_size(p.slot_bytes).c_str(), coherence_name(s.coherence()));
  std::printf("blocks: %llu free, %llu being written, %llu sealed; index %llu/%llu slots used, %llu tombstones\n",
              (unsigned long long)p.free, (unsigned long long)p.writing, (unsigned long long)p.sealed,
              (unsigned long long)p.index_used, (unsigned long long)p.index_slots, (unsigned long long)p.index_tombstones);
}

int show_pool(const Args& a, const KvStore& s) {
  if (a.has("--json"))
    std::printf("%s\n", pool_json(s).dump().c_str());
  else
    print_pool(s);
  return 0;
}

int cmd_create(const Args& a) {
  const std::string path = pool_arg(a);
  if (path.empty()) return fail(a, "missing --pool FILE");
  CreateOptions o;
  o.geometry = Geometry{16, 32, 8, 128, 2};
  const auto blocks = a.get_int("--blocks", 0, 0, int64_t{1} << 40), node = a.get_int("--node", -1, -1, 65535);
  const auto ch = a.get_int("--channels", 16, 1, 65536), depth = a.get_int("--depth", 8, 1, 65536);
  if (!blocks || !node || !ch || !depth || !geometry_args(a, o.geometry) || !coherence_arg(a, o.coherence) ||
      !size_arg(a, "--size", o.pool_bytes))
    return 1;
  if (*blocks < 0 || *ch <= 0 || *depth <= 0) return fail(a, "--blocks, --channels and --depth must be positive");
  o.blocks = uint64_t(*blocks), o.numa_node = int(*node), o.overwrite = a.has("--force"), o.populate = a.has("--populate");
  o.rpc_channels = uint32_t(*ch), o.rpc_depth = uint32_t(*depth);
  auto s = KvStore::create(path, o);
  if (!s.ok()) return fail(a, s.status().message());
  return show_pool(a, *s.value());
}

int cmd_inspect(const Args& a) {
  const std::string path = pool_arg(a);
  if (path.empty()) return fail(a, "missing --pool FILE");
  auto s = KvStore::open(path);
  if (!s.ok()) return fail(a, s.status().message());
  return show_pool(a, *s.value());
}

nlohmann::ordered_json check_json(const CheckReport& c) {
  nlohmann::ordered_json j;
  j["blocks"] = c.blocks, j["free"] = c.free, j["sealed"] = c.sealed, j["writing"] = c.writing;
  j["writing_dead"] = c.writing_dead, j["unindexed"] = c.unindexed, j["dangling"] = c.dangling;
  j["duplicate"] = c.duplicate, j["bad_headers"] = c.bad_headers, j["bad_payloads"] = c.bad_payloads;
  j["leaked_blocks"] = c.leaked(), j["problems"] = c.problems, j["consistent"] = c.consistent();
  return j;
}

int cmd_check(const Args& a) {
  const std::string path = pool_arg(a);
  if (path.empty()) return fail(a, "missing --pool FILE");
  auto s = KvStore::open(path);
  if (!s.ok()) return fail(a, s.status().message());
  const bool deep = a.has("--deep");
  nlohmann::ordered_json j;
  j["before"] = check_json(s.value()->check(deep));
  if (a.has("--repair")) {
    auto r = s.value()->recover(RecoverMode::kExclusive, deep);
    if (!r.ok()) return fail(a, r.status().message());
    j["recovered"] = {{"freed_writing", r->freed_writing}, {"freed_corrupt", r->freed_corrupt},
                      {"freed_duplicate", r->freed_duplicate}, {"reindexed", r->reindexed},
                      {"dropped_entries", r->dropped_entries}};
    j["after"] = check_json(s.value()->check(deep));
  }
  const auto& final_state = j.contains("after") ? j["after"] : j["before"];
  const bool ok = final_state["consistent"].get<bool>();
  if (!a.has("--json")) {
    for (const auto& p : final_state["problems"]) std::printf("  %s\n", p.get<std::string>().c_str());
    std::printf("%s: %s\n", path.c_str(), ok ? "consistent" : "INCONSISTENT");
  }
  std::printf("%s\n", j.dump().c_str());
  if (!ok) return fail(a, path + " is inconsistent (" + std::to_string(final_state["leaked_blocks"].get<uint64_t>()) +
                              " leaked blocks; --repair recovers it when no process uses the pool)");
  return 0;
}

volatile std::sig_atomic_t g_stop = 0;

int cmd_serve(const Args& a) {
  const std::string path = pool_arg(a);
  if (path.empty()) return fail(a, "missing --pool FILE");
  const auto seconds = a.get_int("--seconds", 0, 0, 86400 * 365);
  if (!seconds) return 1;
  auto s = KvStore::open(path);
  if (!s.ok()) return fail(a, s.status().message());
  IndexService svc(*s.value());
  if (auto st = svc.start(); !st.ok()) return fail(a, st.message());
  std::unique_ptr<UnixRpcServer> unix_srv;
  if (a.has("--unix")) {
    auto u = UnixRpcServer::start(*s.value(), a.get("--unix"));
    if (!u.ok()) return fail(a, u.status().message());
    unix_srv = std::move(u.value());
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::fprintf(stderr, "index service on %s (pid %d); Ctrl-C stops it\n", path.c_str(), int(::getpid()));
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(*seconds);
  while (!g_stop && (*seconds == 0 || std::chrono::steady_clock::now() < end))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  svc.stop();
  const ServiceStats st = svc.stats();
  std::printf("{\"served\": %llu, \"reaped_channels\": %llu, \"reaped_blocks\": %llu}\n",
              (unsigned long long)st.served, (unsigned long long)st.reaped_channels, (unsigned long long)st.reaped_blocks);
  return 0;
}

int cmd_bench(const Args& a) {
  BenchOptions o;
  o.pool = pool_arg(a);
  if (o.pool.empty()) return fail(a, "missing --pool FILE");
  const auto procs = a.get_int("--procs", 1, 1, 4096), calls = a.get_int("--rpc-calls", 20000, 0, int64_t{1} << 40);
  if (!procs || !calls || !geometry_args(a, o.geometry) || !coherence_arg(a, o.coherence) ||
      !size_arg(a, "--size", o.pool_bytes))
    return 1;
  o.procs = uint32_t(std::max<int64_t>(0, *procs)), o.rpc_calls = uint64_t(std::max<int64_t>(1, *calls));
  if (a.has("--seconds")) o.seconds = std::atof(a.get("--seconds").c_str());
  if (!(o.seconds > 0)) return fail(a, "--seconds must be positive");
  auto r = run_bench(o);
  if (!r.ok()) return fail(a, r.status().message());
  const BenchReport& b = r.value();
  if (!a.has("--json")) {
    std::printf("%u process(es), %llu blocks of %s, coherence %s\n", b.procs, (unsigned long long)b.blocks,
                o.geometry.describe().c_str(), b.coherence.c_str());
    std::printf("put %.2f GB/s (%.1f us per block), get %.2f GB/s (%.1f us per block)\n", b.put_gbps, b.put_us,
                b.get_gbps, b.get_us);
    std::printf("RPC round trip: shared memory %.2f us (p99 %.2f), Unix socket %.2f us (p99 %.2f)\n", b.rpc_rtt_us,
                b.rpc_rtt_p99_us, b.unix_rtt_us, b.unix_rtt_p99_us);
    std::printf("RPC lookups/s: %.0f pipelined, %.0f one at a time, Unix socket %.0f\n", b.ops_per_s,
                b.ops_per_s_qd1, b.unix_ops_per_s);
  }
  std::printf("%s\n", bench_report_json(b).c_str());
  return 0;
}

int cmd_crash(const Args& a) {
  CrashOptions o;
  o.pool = pool_arg(a);
  if (o.pool.empty()) return fail(a, "missing --pool FILE");
  o.geometry = Geometry{16, 4, 2, 64, 2};
  const auto procs = a.get_int("--procs", 4, 1, 4096), kills = a.get_int("--kills", 20, 0, 1000000);
  const auto blocks = a.get_int("--blocks", 256, 0, int64_t{1} << 40), seed = a.get_int("--seed", 1, 0, int64_t{0x7FFFFFFFFFFFFFFF});
  const auto dmin = a.get_int("--min-delay-us", 2000, 0, 60000000), dmax = a.get_int("--max-delay-us", 30000, 0, 60000000);
  if (!procs || !kills || !blocks || !seed || !dmin || !dmax || !geometry_args(a, o.geometry) ||
      !coherence_arg(a, o.coherence))
    return 1;
  if (*procs <= 0 || *kills < 0 || *blocks <= 0 || *dmin < 0 || *dmax < *dmin)
    return fail(a, "--procs and --blocks must be positive, --kills >= 0, --min-delay-us <= --max-delay-us");
  o.procs = uint32_t(*procs), o.kills = uint32_t(*kills), o.blocks = uint64_t(*blocks), o.seed = uint64_t(*seed);
  o.min_delay_us = uint32_t(*dmin), o.max_delay_us = uint32_t(*dmax), o.rpc = a.has("--rpc");
  auto r = run_crash_campaign(o);
  if (!r.ok()) return fail(a, r.status().message());
  const CrashReport& c = r.value();
  if (!a.has("--json"))
    std::printf("%llu kills over %.2f s: %llu blocks written, %llu lost, %llu torn reads, %llu leaked after recovery\n",
                (unsigned long long)c.kills, c.seconds, (unsigned long long)c.blocks_written,
                (unsigned long long)c.blocks_lost, (unsigned long long)c.torn_reads, (unsigned long long)c.leaked_blocks);
  std::printf("%s\n", crash_report_json(c).c_str());
  if (c.status != "ok") return fail(a, "crash test failed on " + o.pool);
  return 0;
}

#define GEO "[--tokens T --layers L --kv-heads H --head-dim D --elem B]"
NDP_COMMAND("kvstore create", "kvstore create --pool FILE " GEO " [--blocks N | --size BYTES] [--coherence host|nt|flush] "
            "[--node N] [--channels C] [--depth D] [--populate] [--force] [--json]   new KV block pool (file, tmpfs, /dev/daxX.Y)",
            cmd_create, {"--json", "--force", "--populate"});
NDP_COMMAND("kvstore inspect", "kvstore inspect --pool FILE [--json]   geometry, block states, index use", cmd_inspect,
            {"--json"});
NDP_COMMAND("kvstore check", "kvstore check --pool FILE [--deep] [--repair] [--json]   consistency check and recovery",
            cmd_check, {"--json", "--deep", "--repair"});
NDP_COMMAND("kvstore serve", "kvstore serve --pool FILE [--unix SOCK] [--seconds N]   run the index service (shared-memory RPC)",
            cmd_serve, {});
NDP_COMMAND("kvstore bench", "kvstore bench --pool FILE --procs P " GEO " [--size BYTES] [--seconds S] [--coherence M] "
            "[--json]   put/get GB/s, RPC vs Unix-socket round trip", cmd_bench, {"--json"});
NDP_COMMAND("kvstore crash-test", "kvstore crash-test --pool FILE --procs P --kills K [--blocks N] [--seed S] [--rpc] "
            "[--json]   SIGKILL writers at random points, recover, check", cmd_crash, {"--json", "--rpc"});

}  // namespace
}  // namespace ndp::cli
#endif  // HAVE_NDP_KVSTORE
