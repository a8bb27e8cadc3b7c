// Crash-injection campaign (`ndp kvstore crash-test`): P worker processes put, get and remove
// blocks on one pool while the parent kills them with SIGKILL at random moments (and starts a
// replacement each time); then a full recovery and a deep check. Every block a worker saw stored
// must still be there with its exact content, no read may ever have returned wrong bytes, and
// after recovery no block may be leaked (stuck in WRITING, or sealed but unreachable).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ndp/kvstore/kvstore.h"

namespace ndp::kv {

struct CrashOptions {
  std::string pool;                    // pool file (created, replacing an old one)
  uint32_t procs = 4;                  // workers alive at any time
  uint32_t kills = 20;                 // SIGKILLs to deliver
  Geometry geometry{16, 4, 2, 64, 2};  // 32 KiB blocks
  uint64_t blocks = 256;
  uint64_t seed = 1;
  uint32_t min_delay_us = 2000, max_delay_us = 30000;  // between kills
  bool rpc = false;                    // allocation/index through an index service process
  Coherence coherence = Coherence::kHost;
};

struct CrashReport {
  uint64_t kills = 0;
  uint64_t blocks_written = 0;  // puts that returned "stored" (as the workers logged them)
  uint64_t blocks_lost = 0;     // of those, not removed, but missing or different after recovery
  uint64_t torn_reads = 0;      // gets that returned success with bytes other than the block's
  uint64_t read_errors = 0;     // gets that reported a checksum error
  uint64_t resurrected = 0;     // blocks whose removal completed but that came back
  uint64_t leaked_blocks = 0;   // after recovery: WRITING or sealed-but-unindexed blocks
  uint64_t leaked_before = 0;   // the same before recovery (what the kills left)
  uint64_t reads_verified = 0;  // gets that found a block and matched its content
  uint64_t full_errors = 0;     // puts refused because the pool was full (expected under churn)
  uint64_t ops = 0;             // worker operations in all
  uint64_t freed_online = 0;    // WRITING blocks of killed workers freed while the others ran
  uint64_t reaped_channels = 0; // RPC channels of killed workers the index service took back
  RecoverReport recovery;       // the final exclusive recovery
  // What each killed worker was doing, as it last published before the signal: idle, alloc
  // (index lookup and block allocation), write (payload), seal (header + commit word), index,
  // log (stored, not yet logged), read, remove, start (not yet running its loop), pick (choosing
  // a logged key to remove), fill (generating the payload to put); pick and fill are the
  // campaign's own work and do not touch the pool.
  std::map<std::string, uint64_t> kill_phases;
  bool consistent = false;      // deep check after recovery
  std::string status;           // "ok" or "fail"
  double seconds = 0;
};

// Runs the campaign. Errors only for setup problems (pool cannot be created, fork fails).
Result<CrashReport> run_crash_campaign(const CrashOptions& o);
std::string crash_report_json(const CrashReport& r);

// Deterministic payload of a key (the workers write it, readers and the final check compare).
void fill_payload(const Key& k, uint8_t* dst, uint64_t n);

}  // namespace ndp::kv
