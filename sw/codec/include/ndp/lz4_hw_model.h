// Bit-exact model of the hardware LZ4 block encoder rtl/lz4/lz4_encoder.sv (docs/lz4.md), and the
// plane-block encoder of the hardware codec lane (rtl/lane/codec_lane.sv) built on it.
//
// The hardware compressor differs from LZ4_compress_default only in how it finds matches, so its
// output bytes differ from liblz4's while staying a valid LZ4 block (LZ4_decompress_safe restores
// the input). This file is its specification at transaction level: the RTL testbench compares the
// RTL's output byte for byte against lz4_hw_compress().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ndp/block.h"
#include "ndp/status.h"

namespace ndp {

// Parameters of the hardware match finder; defaults are lz4_encoder's (RTL parameters InBytes,
// HashBits, HashBanks, MatchBytes, Lazy, BackExt).
struct Lz4HwParams {
  int bytes_per_cycle = 16;  // P: input positions hashed and looked up per cycle (4, 8 or 16)
  int hash_bits = 13;        // hash table entries = 2^hash_bits (liblz4's 64 KiB-block table size)
  int hash_banks = 64;       // table banks; at most one read and one write per bank and cycle
  int match_bytes = 16;      // D: bytes stored per table entry (match length seen before extension)
  bool lazy = true;          // skip a match when the next position has a longer one (same window)
  bool back_ext = true;      // extend a match one byte backwards into pending literals
  // Bytes each position's hash covers (RTL parameter HashBytes): 4 (liblz4's choice; the LZ4
  // engine, and zstd_encoder's default) or 8 (zstd_encoder with HashBytes = 8: on low-entropy
  // planes a 4-byte key is overwritten by short matches, an 8-byte key finds the long repeats;
  // docs/zstd_encoder.md "Hash bytes" has the measurement).
  int hash_bytes = 4;
};

// Check that the parameters describe a buildable encoder (powers of two, D >= P, ...).
Status lz4_hw_check_params(const Lz4HwParams& p);

// One LZ4 sequence as the hardware emits it: `ll` literals starting at input position `lit_start`,
// then a match of `ml` bytes at distance `off` (ml == 0 for the final, literals-only sequence).
struct Lz4HwSeq {
  uint32_t lit_start = 0;
  uint32_t ll = 0;
  uint32_t off = 0;
  uint32_t ml = 0;
};

// Sequences the hardware selects for src[0..n-1], n in 1..65536.
Result<std::vector<Lz4HwSeq>> lz4_hw_sequences(const uint8_t* src, size_t n,
                                               const Lz4HwParams& p = {});

// The LZ4 block the hardware emits for src[0..n-1] (n in 1..65536), appended to out.
Status lz4_hw_compress(const uint8_t* src, size_t n, std::vector<uint8_t>& out,
                       const Lz4HwParams& p = {});

// Plane-block encoder of the hardware lane: docs/spec.md section 3 with the hardware LZ4 as the
// LZ4 candidate. Same rules as BlockEncoder::encode (CONST first; LZ4 used only when it saves a
// 64-byte burst; otherwise RAW). Policies kLz4 and kRaw only (the LZ4-only lane); others are an
// error. encode_block_lane() (zstd_hw_model.h) is the lane with both engines and every policy; for
// kLz4 and kRaw the two agree. Appends header + payload to out.
Result<BlockInfo> encode_block_hw(const uint8_t* plane, size_t n, uint8_t plane_id,
                                  uint64_t block_id, CodecPolicy policy, bool guard,
                                  std::vector<uint8_t>& out, const Lz4HwParams& p = {});

}  // namespace ndp
