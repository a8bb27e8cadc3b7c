// KvStore: pool create/open, gather-write and scatter-read, prefix keys, dedup, remove, full pool,
// corrupt superblock and block headers, coherence modes, concurrent threads.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <thread>

#include "kv_test_util.h"
#include "ndp/kvstore/prefix.h"
#include "ndp/runtime/mempolicy.h"

namespace ndp::kv::test {
namespace {

std::unique_ptr<KvStore> make_pool(const ScratchPath& p, uint64_t blocks, Geometry g = small_geometry(),
                                   Coherence c = Coherence::kHost) {
  CreateOptions o;
  o.geometry = g, o.blocks = blocks, o.coherence = c;
  auto s = KvStore::create(p.str(), o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s.value()) : nullptr;
}

TEST(KvGeometry, SizesAndValidation) {
  const Geometry g{16, 32, 8, 128, 2};  // Llama-3.1-8B, vLLM's 16-token page
  EXPECT_EQ(g.slice_bytes(), 16u * 8 * 128 * 2);
  EXPECT_EQ(g.block_bytes(), 2u * 32 * 32768);
  EXPECT_EQ(g.slice_offset(3, 1), 7u * 32768);
  EXPECT_TRUE(g.validate().ok());
  EXPECT_NE(Geometry({16, 0, 8, 128, 2}).validate().message().find("must be > 0"), std::string::npos);
  EXPECT_NE(Geometry({16, 1, 1, 1, 3}).validate().message().find("elem_bytes"), std::string::npos);
  EXPECT_NE(Geometry({1u << 20, 64, 8, 128, 4}).validate().message().find("over 1 GiB"), std::string::npos);
}

// Layer slices come from separate buffers (a vLLM page per layer) and go back to separate ones.
TEST(KvStore, GatherWriteScatterReadAcrossReopen) {
  ScratchPath p("rt");
  std::mt19937_64 rng(seed());
  const Geometry g = small_geometry();
  std::vector<std::vector<std::vector<uint8_t>>> pages(10);
  {
    auto s = make_pool(p, 64);
    ASSERT_TRUE(s);
    for (int i = 0; i < 10; ++i) {
      std::vector<ConstSlice> gather;
      for (uint32_t l = 0; l < 2 * g.layers; ++l) {
        pages[i].push_back(random_bytes(rng, g.slice_bytes()));
        gather.push_back({pages[i].back().data(), g.slice_bytes()});
      }
      auto r = s->put(key_n(i), gather);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(r.value(), PutResult::kStored);
    }
    EXPECT_EQ(s->stats().sealed, 10u);
  }
  auto s = KvStore::open(p.str());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s.value()->geometry().block_bytes(), g.block_bytes());
  EXPECT_EQ(s.value()->blocks(), 64u);
  for (int i = 0; i < 10; ++i) {
    std::vector<std::vector<uint8_t>> out(2 * g.layers, std::vector<uint8_t>(g.slice_bytes()));
    std::vector<Slice> scatter;
    for (auto& o : out) scatter.push_back({o.data(), o.size()});
    auto r = s.value()->get(key_n(i), scatter);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_TRUE(r.value());
    EXPECT_EQ(out, pages[i]) << "block " << i;
  }
  std::vector<uint8_t> buf(g.block_bytes());
  auto miss = s.value()->get(key_n(99), scatter_of(g, buf));
  ASSERT_TRUE(miss.ok());
  EXPECT_FALSE(miss.value());
  EXPECT_TRUE(s.value()->check(true).consistent());
}

TEST(KvStore, DuplicatePutRemoveAndBadArguments) {
  ScratchPath p("dup");
  auto s = make_pool(p, 16);
  ASSERT_TRUE(s);
  std::mt19937_64 rng(seed());
  const auto a = random_bytes(rng, s->geometry().block_bytes());
  const auto b = random_bytes(rng, s->geometry().block_bytes());
  ASSERT_EQ(s->put(key_n(1), gather_of(s->geometry(), a)).value(), PutResult::kStored);
  EXPECT_EQ(s->put(key_n(1), gather_of(s->geometry(), b)).value(), PutResult::kAlreadyPresent);
  std::vector<uint8_t> out(a.size());
  ASSERT_TRUE(s->get(key_n(1), scatter_of(s->geometry(), out)).value());
  EXPECT_EQ(out, a);  // the first content stays
  EXPECT_TRUE(s->remove(key_n(1)).value());
  EXPECT_FALSE(s->contains(key_n(1)).value());
  EXPECT_FALSE(s->remove(key_n(1)).value());
  EXPECT_EQ(s->stats().sealed, 0u);
  const ConstSlice short_slice{a.data(), a.size() - 1};
  EXPECT_NE(s->put(key_n(2), {&short_slice, 1}).status().message().find("slices hold"), std::string::npos);
  EXPECT_NE(s->put(Key{}, gather_of(s->geometry(), a)).status().message().find("reserved"), std::string::npos);
}

TEST(KvStore, FullPoolIsAClearErrorAndEvictionMakesRoom) {
  ScratchPath p("full");
  auto s = make_pool(p, 8);
  ASSERT_TRUE(s);
  std::mt19937_64 rng(seed());
  const auto d = random_bytes(rng, s->geometry().block_bytes());
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(s->put(key_n(i), gather_of(s->geometry(), d)).ok());
  auto full = s->put(key_n(8), gather_of(s->geometry(), d));
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.status().message().find("pool full: all 8 blocks of 16384 B are in use"), std::string::npos)
      << full.status().message();
  EXPECT_NE(full.status().message().find(p.str()), std::string::npos);
  auto ev = s->put(key_n(8), gather_of(s->geometry(), d), PutOptions{true});
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  EXPECT_TRUE(s->contains(key_n(8)).value());
  int present = 0;
  for (int i = 0; i < 8; ++i) present += s->contains(key_n(i)).value();
  EXPECT_EQ(present, 7);
  EXPECT_TRUE(s->check(true).consistent());
}

void poke(const std::string& path, uint64_t off, const void* bytes, size_t n) {
  const int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, bytes, n, off_t(off)), ssize_t(n));
  ::close(fd);
}

TEST(KvStore, CorruptSuperblockIsDetected) {
  struct Case {
    uint64_t off;
    uint8_t byte;
    const char* expect;
  };
  // magic at 0, version at 8, a geometry byte at 24 (the checksum catches it), the checksum at 136.
  const Case cases[] = {{0, 'X', "magic at offset 0"}, {8, 7, "version at offset 8"},
                        {24, 9, "checksum at offset"}, {137, 1, "checksum at offset 136"}};
  for (const Case& c : cases) {
    ScratchPath p("sb");
    ASSERT_TRUE(make_pool(p, 8));
    poke(p.str(), c.off, &c.byte, 1);
    auto s = KvStore::open(p.str());
    ASSERT_FALSE(s.ok()) << "offset " << c.off;
    EXPECT_NE(s.status().message().find("corrupt pool header"), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find(c.expect), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find(p.str()), std::string::npos);
  }
  ScratchPath p("trunc");
  ASSERT_TRUE(make_pool(p, 8));
  ASSERT_EQ(::truncate(p.str().c_str(), 8192), 0);
  auto s = KvStore::open(p.str());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("pool_bytes"), std::string::npos) << s.status().message();
  EXPECT_FALSE(KvStore::open(p.str() + ".absent").ok());
}

TEST(KvStore, CorruptBlockHeaderAndPayloadAreDetected) {
  ScratchPath p("blk");
  auto s = make_pool(p, 8);
  ASSERT_TRUE(s);
  std::mt19937_64 rng(seed());
  const auto d = random_bytes(rng, s->geometry().block_bytes());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s->put(key_n(i), gather_of(s->geometry(), d)).ok());
  BlockRef r0, r1;
  ASSERT_TRUE(s->find(key_n(0), r0).value());
  ASSERT_TRUE(s->find(key_n(1), r1).value());
  s->base()[s->block_offset(r0.block) + 40] ^= 0x5a;  // the header's checksum field
  s->payload(r1.block)[777] ^= 0x01;                  // one payload bit
  std::vector<uint8_t> out(d.size());
  auto g0 = s->get(key_n(0), scatter_of(s->geometry(), out));
  ASSERT_FALSE(g0.ok());
  EXPECT_NE(g0.status().message().find("block " + std::to_string(r0.block) + " (pool offset 0x"), std::string::npos);
  EXPECT_NE(g0.status().message().find("corrupt block header"), std::string::npos) << g0.status().message();
  auto g1 = s->get(key_n(1), scatter_of(s->geometry(), out));
  ASSERT_FALSE(g1.ok());
  EXPECT_NE(g1.status().message().find("payload checksum mismatch"), std::string::npos) << g1.status().message();
  EXPECT_TRUE(s->get(key_n(2), scatter_of(s->geometry(), out)).value());
  EXPECT_EQ(s->check(false).bad_headers, 1u);
  EXPECT_EQ(s->check(false).bad_payloads, 0u);
  EXPECT_EQ(s->check(true).bad_payloads, 1u);
  EXPECT_FALSE(s->check(true).consistent());
  auto rec = s->recover(RecoverMode::kExclusive, true);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec.value().freed_corrupt, 2u);
  EXPECT_FALSE(s->contains(key_n(0)).value());
  EXPECT_TRUE(s->check(true).consistent());
  EXPECT_EQ(s->stats().sealed, 1u);
}

TEST(KvCoherence, StoreAndLoadEveryModeAnyAlignment) {
  std::mt19937_64 rng(seed());
  std::vector<uint8_t> src = random_bytes(rng, 4096 + 200), dst(src.size() + 128);
  for (Coherence c : {Coherence::kHost, Coherence::kNonTemporal, Coherence::kFlush}) {
    for (int t = 0; t < 200; ++t) {
      const size_t off = rng() % 100, soff = rng() % 100, n = rng() % 4096;
      std::fill(dst.begin(), dst.end(), 0xee);
      store_bytes(dst.data() + off, src.data() + soff, n, c);
      ASSERT_EQ(std::memcmp(dst.data() + off, src.data() + soff, n), 0) << coherence_name(c) << " n=" << n;
      ASSERT_EQ(dst[off + n], 0xee);
      if (off) {
        ASSERT_EQ(dst[off - 1], 0xee);
      }
      std::vector<uint8_t> back(n);
      load_bytes(back.data(), dst.data() + off, n, c);
      ASSERT_EQ(std::memcmp(back.data(), src.data() + soff, n), 0);
    }
  }
  EXPECT_EQ(parse_coherence("nt").value(), Coherence::kNonTemporal);
  EXPECT_NE(parse_coherence("wb").status().message().find("host, nt, flush"), std::string::npos);
}

// Odd slice sizes (48 B) so the non-temporal path meets unaligned heads and tails; the bytes must
// be in the file (read back through the file descriptor, not the mapping).
TEST(KvCoherence, PoolRoundTripInEveryMode) {
  const Geometry g{16, 3, 1, 3, 1};
  for (Coherence c : {Coherence::kHost, Coherence::kNonTemporal, Coherence::kFlush}) {
    ScratchPath p(coherence_name(c));
    auto s = make_pool(p, 16, g, c);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->coherence(), c);
    std::mt19937_64 rng(seed());
    const auto d = random_bytes(rng, g.block_bytes());
    ASSERT_EQ(s->put(key_n(5), gather_of(g, d)).value(), PutResult::kStored);
    BlockRef r;
    ASSERT_TRUE(s->find(key_n(5), r).value());
    std::vector<uint8_t> file(d.size());
    ASSERT_EQ(::pread(s->fd(), file.data(), file.size(), off_t(s->block_offset(r.block) + 64)), ssize_t(d.size()));
    EXPECT_EQ(file, d) << coherence_name(c);
    auto re = KvStore::open(p.str());
    ASSERT_TRUE(re.ok());
    EXPECT_EQ(re.value()->coherence(), c);
    std::vector<uint8_t> out(d.size());
    ASSERT_TRUE(re.value()->get(key_n(5), scatter_of(g, out)).value());
    EXPECT_EQ(out, d);
  }
}

TEST(KvStore, ZeroCopyWriteThenCommitOrAbort) {
  ScratchPath p("zc");
  auto s = make_pool(p, 4);
  ASSERT_TRUE(s);
  const Geometry& g = s->geometry();
  std::mt19937_64 rng(seed());
  const auto d = random_bytes(rng, g.block_bytes());
  auto b = s->allocate();
  ASSERT_TRUE(b.ok());
  for (int l = int(g.layers) - 1; l >= 0; --l)  // layers arrive in any order
    for (uint32_t kind = 0; kind < 2; ++kind)
      s->write(b.value(), g.slice_offset(l, kind), d.data() + g.slice_offset(l, kind), g.slice_bytes());
  EXPECT_FALSE(s->contains(key_n(3)).value());  // not visible before the commit
  ASSERT_EQ(s->commit(b.value(), key_n(3)).value(), PutResult::kStored);
  std::vector<uint8_t> out(d.size());
  ASSERT_TRUE(s->get(key_n(3), scatter_of(g, out)).value());
  EXPECT_EQ(out, d);
  auto b2 = s->allocate();
  ASSERT_TRUE(b2.ok());
  EXPECT_EQ(s->stats().writing, 1u);
  EXPECT_TRUE(s->abort(b2.value()).ok());
  EXPECT_FALSE(s->abort(b2.value()).ok());
  EXPECT_EQ(s->stats().free, 3u);
  EXPECT_TRUE(s->check(true).consistent());
}

TEST(KvStore, ConcurrentThreadsNeverReadWrongBytes) {
  ScratchPath p("mt");
  auto s = make_pool(p, 48);
  ASSERT_TRUE(s);
  const Geometry& g = s->geometry();
  std::atomic<uint64_t> torn{0}, hits{0}, errors{0};
  std::mutex mu;
  std::string first_error;
  auto count_error = [&](const Status& st) {
    if (st.ok()) return;
    ++errors;
    std::lock_guard<std::mutex> l(mu);
    if (first_error.empty()) first_error = st.message();
  };
  auto body = [&](int t) {
    std::mt19937_64 rng(seed() + t);
    std::vector<uint8_t> d(g.block_bytes()), out(d.size());
    for (int i = 0; i < 1500; ++i) {
      const uint64_t k = rng() % 64;  // shared key space: puts, gets and removes collide
      const auto op = rng() % 10;
      std::fill(d.begin(), d.end(), uint8_t(k * 7 + 1));
      if (op < 4) {
        count_error(s->put(key_n(k), gather_of(g, d), PutOptions{true}).status());
      } else if (op < 8) {
        auto r = s->get(key_n(k), scatter_of(g, out));
        count_error(r.status());
        if (r.ok() && r.value()) {
          ++hits;
          torn += out != d;
        }
      } else {
        count_error(s->remove(key_n(k)).status());
      }
    }
  };
  std::vector<std::thread> th;
  for (int t = 0; t < 4; ++t) th.emplace_back(body, t);
  for (auto& t : th) t.join();
  EXPECT_EQ(torn.load(), 0u);
  EXPECT_EQ(errors.load(), 0u) << first_error;
  EXPECT_GT(hits.load(), 100u);
  const CheckReport c = s->check(true);
  EXPECT_TRUE(c.consistent()) << (c.problems.empty() ? "" : c.problems[0]);
}

TEST(KvPrefix, ChainedKeysShareExactlyTheCommonBlocks) {
  std::vector<int32_t> a(70), b(70);
  for (int i = 0; i < 70; ++i) a[i] = b[i] = 100 + i;
  b[40] = 7;  // diverges inside the third 16-token block
  const auto ka = prefix_keys(a, 16, model_salt("stories260K"));
  const auto kb = prefix_keys(b, 16, model_salt("stories260K"));
  ASSERT_EQ(ka.size(), 4u);  // 70 tokens: four full blocks, the partial fifth has no key
  EXPECT_EQ(ka[0], kb[0]);
  EXPECT_EQ(ka[1], kb[1]);
  EXPECT_NE(ka[2], kb[2]);
  EXPECT_NE(ka[3], kb[3]);  // chained: everything after a divergence differs
  const auto kc = prefix_keys(a, 16, model_salt("other-model"));
  EXPECT_NE(ka[0], kc[0]);
  for (const Key& k : ka) EXPECT_TRUE(k.valid());
  EXPECT_TRUE(prefix_keys(std::span<const int32_t>(a.data(), 15), 16, 1).empty());
}

TEST(KvStore, NumaBindingOfThePool) {
  const auto nodes = rt::allowed_memory_nodes();
  if (nodes.empty()) GTEST_SKIP() << "no NUMA memory node";
  CreateOptions o;
  o.geometry = small_geometry(), o.blocks = 8, o.numa_node = 999;
  ScratchPath p("numa");
  auto bad = KvStore::create(p.str(), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("node 999 is not an online memory node"), std::string::npos);
  o.numa_node = nodes.back();
  o.overwrite = true;
  auto s = KvStore::create(p.str(), o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::vector<int> where;
  ASSERT_TRUE(rt::detail::query_page_nodes(s.value()->base(), s.value()->pool_bytes(), where).ok());
  for (int n : where) ASSERT_EQ(n, nodes.back());
}

TEST(KvStore, CreateRefusesToReplaceWithoutOverwrite) {
  ScratchPath p("exist");
  ASSERT_TRUE(make_pool(p, 4));
  CreateOptions o;
  o.geometry = small_geometry(), o.blocks = 4;
  auto again = KvStore::create(p.str(), o);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("exists"), std::string::npos);
  o.blocks = 0, o.pool_bytes = 1 << 20;
  o.overwrite = true;
  auto sized = KvStore::create(p.str(), o);
  ASSERT_TRUE(sized.ok()) << sized.status().message();
  EXPECT_EQ(sized.value()->pool_bytes(), 1u << 20);
  EXPECT_GE(sized.value()->blocks(), 50u);  // 16 KiB blocks in 1 MiB, after the metadata
}

}  // namespace
}  // namespace ndp::kv::test
