// Multi-process benchmark of a pool (`ndp kvstore bench`): P processes put and get blocks
// (gather-write / scatter-read with checksums), then the index RPC round trip over shared memory
// against the same request over a Unix-domain socket, then RPC throughput with P clients.
#pragma once

#include <cstdint>
#include <string>

#include "ndp/kvstore/kvstore.h"

namespace ndp::kv {

struct BenchOptions {
  std::string pool;        // created (replaced) for the run and removed after it (not a devdax)
  uint32_t procs = 1;
  Geometry geometry{16, 32, 8, 128, 2};  // Llama-3.1-8B K/V, vLLM's 16-token page: 2 MiB
  uint64_t pool_bytes = 512ull << 20;
  double seconds = 1.0;    // per measured phase
  uint64_t rpc_calls = 20000;  // round trips timed one by one
  Coherence coherence = Coherence::kHost;
};

struct BenchReport {
  uint32_t procs = 0;
  uint64_t block_bytes = 0, blocks = 0;
  double put_gbps = 0, get_gbps = 0;       // aggregate over the processes (1e9 B/s)
  double put_us = 0, get_us = 0;           // mean time of one put / get in one process
  uint64_t puts = 0, gets = 0;
  double rpc_rtt_us = 0, rpc_rtt_p99_us = 0;    // shared-memory ping, QD 1, median / p99
  double unix_rtt_us = 0, unix_rtt_p99_us = 0;  // the same request over a Unix socket
  double lookup_rtt_us = 0;                     // index lookup over shared-memory RPC, median
  double ops_per_s = 0;       // RPC lookups per second, P clients, each `depth` requests in flight
  double ops_per_s_qd1 = 0;   // the same, one request in flight per client
  double unix_ops_per_s = 0;  // lookups per second over Unix sockets, P clients
  std::string coherence;
};

Result<BenchReport> run_bench(const BenchOptions& o);
std::string bench_report_json(const BenchReport& r);

}  // namespace ndp::kv
