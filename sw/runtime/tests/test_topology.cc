// Topology: override files (good and bad), sysfs discovery on this machine and on a synthetic
// tree that publishes HMAT attributes the way Linux does for a CPU-less node.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <unistd.h>

#include "ndp/runtime/topology.h"

using namespace ndp::rt;
namespace fs = std::filesystem;

TEST(RtTopologyOverride, PaperDualAic) {
  auto t = load_topology_override(std::string(NDP_RUNTIME_TESTDATA) + "/paper_dual_aic.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const auto& topo = t.value();
  ASSERT_EQ(topo.nodes.size(), 3u);
  EXPECT_EQ(topo.dram_nodes(), std::vector<int>{0});
  EXPECT_EQ(topo.cpuless_nodes(), (std::vector<int>{1, 2}));
  EXPECT_EQ(topo.find(0)->cpus.size(), 16u);
  EXPECT_EQ(topo.find(1)->total_bytes, 256ull << 30);
  EXPECT_EQ(topo.find(1)->free_bytes, 256ull << 30);  // free defaults to total
  EXPECT_EQ(topo.find(2)->read_bw_mbps, 24000u);
  EXPECT_EQ(topo.find(2)->perf_source, "override");
  EXPECT_EQ(topo.node_distance(1, 2), 20);
  EXPECT_EQ(topo.node_distance(0, 7), -1);
  EXPECT_EQ(topo.source.rfind("override:", 0), 0u);
}

TEST(RtTopologyOverride, RejectsBadInput) {
  struct Case {
    const char* json;
    const char* needle;
  } cases[] = {
      {"[1,2]", "top level"},
      {"{", "not valid JSON"},
      {R"({"nodes": []})", "non-empty"},
      {R"({"nodes": [{"cpus": [0], "total": "1G"}]})", "missing \"id\""},
      {R"({"nodes": [{"id": 0, "cpus": [0]}]})", "total"},
      {R"({"nodes": [{"id": 0, "cpus": [0], "total": "1Q"}]})", "unknown suffix"},
      {R"({"nodes": [{"id": 0, "cpus": [0], "total": "1G", "free": "2G"}]})", "free > total"},
      {R"({"nodes": [{"id": 0, "cpus": [], "kind": "dram", "total": "1G"}]})", "contradicts"},
      {R"({"nodes": [{"id": 0, "cpus": [0], "kind": "hbm", "total": "1G"}]})", "not dram"},
      {R"({"nodes": [{"id": 1, "cpus": [0], "total": "1G"}, {"id": 0, "total": "1G"}]})", "ascending"},
      {R"({"nodes": [{"id": 0, "cpus": "3-1", "total": "1G"}]})", "bad range"},
      {R"({"nodes": [{"id": 0, "cpus": [0], "total": "1G", "read_bw_mbps": -5}]})", "out of range (0.."},
      // Issue 15: a double outside int64 was cast (undefined behaviour; x86 gives INT64_MIN, which
      // narrowed to node 0), and integers beyond int / int64 were narrowed or wrapped silently.
      {R"({"nodes": [{"id": 1e19, "cpus": [0], "total": "1G"}]})", "id: out of range"},
      {R"({"nodes": [{"id": -1e300, "cpus": [0], "total": "1G"}]})", "id: out of range"},
      {R"({"nodes": [{"id": 4294967296, "cpus": [0], "total": "1G"}]})", "id: out of range"},
      {R"({"nodes": [{"id": 18446744073709551615, "cpus": [0], "total": "1G"}]})", "id: out of range"},
      {R"({"nodes": [{"id": 0.5, "cpus": [0], "total": "1G"}]})", "expected an integer"},
      // Issue 15 (found by fuzz_topology_override's memory bound): each range of a cpu list could
      // name 2^20 CPUs, so "0-1048576,0-1048576,..." built 4 MiB of ids per 10 bytes of text. Lists
      // are ascending now, ids at most 65535, and 65536 CPUs in all.
      {R"({"nodes": [{"id": 0, "cpus": "0-65535,0-65535", "total": "1G"}]})", "not ascending"},
      {R"({"nodes": [{"id": 0, "cpus": "0-1048576", "total": "1G"}]})", "cpu id above 65535"},
      {R"({"nodes": [{"id": 0, "cpus": [2, 1], "total": "1G"}]})", "ascending"},
      {R"({"nodes": [{"id": 0, "cpus": [70000], "total": "1G"}]})", "0..65535"},
      {R"({"nodes": [{"id": 0, "cpus": "0-65535", "total": "1G"}, {"id": 1, "cpus": "0-65535", "total": "1G"}]})",
       "more than 65536 CPUs in all"},
      {R"({"nodes": [{"id": 0, "cpus": [0], "total": 1.8446744073709552e19}]})", "size out of range"},
      {R"({"nodes": [{"id": 0, "cpus": [0], "total": "1G", "read_lat_ns": 9.3e18}]})", "out of range"},
      {R"({"nodes": [{"id": 0, "cpus": [0], "total": "1G"}], "distance": [[10, 20]]})", "not square"},
      {R"({"nodes": [{"id": 0, "cpus": [0], "total": "1G"}], "distance": [[10], [10]]})", "rows"},
  };
  for (const auto& c : cases) {
    auto t = parse_topology_override(c.json, "t.json");
    ASSERT_FALSE(t.ok()) << c.json;
    EXPECT_NE(t.status().message().find(c.needle), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find("t.json"), std::string::npos) << "error must name the file: " << t.status().message();
  }
  std::string many = R"({"nodes": [)";
  for (int i = 0; i < 1025; ++i) many += (i ? "," : "") + std::string(R"({"id": )") + std::to_string(i) + R"(, "total": 1})";
  auto t = parse_topology_override(many + "]}", "t.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("more than 1024 nodes"), std::string::npos) << t.status().message();
  auto missing = load_topology_override("/nonexistent/topo.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/topo.json"), std::string::npos);
}

TEST(RtTopologySysfs, ThisMachine) {
  auto t = discover_sysfs("/sys");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_FALSE(t.value().nodes.empty());
  EXPECT_FALSE(t.value().dram_nodes().empty());
  for (const auto& n : t.value().nodes) {
    EXPECT_GT(n.total_bytes, 0u);
    EXPECT_LE(n.free_bytes, n.total_bytes);
  }
  if (!t.value().distance.empty()) {
    EXPECT_EQ(t.value().node_distance(t.value().nodes[0].id, t.value().nodes[0].id), 10);
  }
}

TEST(RtTopologySysfs, DiscoverHonoursEnvironmentOverride) {
  setenv(kTopologyEnv, (std::string(NDP_RUNTIME_TESTDATA) + "/paper_dual_aic.json").c_str(), 1);
  auto t = discover_topology();
  unsetenv(kTopologyEnv);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t.value().nodes.size(), 3u);
  auto real = discover_topology();
  ASSERT_TRUE(real.ok()) << real.status().message();
  EXPECT_EQ(real.value().source.rfind("sysfs:", 0), 0u);
}

namespace {

void write(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << s;
}

// A sysfs tree shaped like Linux's for DRAM node 0 and CXL node 2 (node 1 memoryless).
fs::path fake_sysfs() {
  fs::path root = fs::temp_directory_path() / ("ndp_rt_sysfs_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::path n = root / "devices/system/node";
  write(n / "node0/meminfo", "Node 0 MemTotal:  1048576 kB\nNode 0 MemFree:   524288 kB\n");
  write(n / "node0/cpulist", "0-3\n");
  write(n / "node0/distance", "10 12 20\n");
  write(n / "node0/access0/initiators/read_bandwidth", "20480\n");
  write(n / "node0/access0/initiators/read_latency", "100\n");
  write(n / "node1/meminfo", "Node 1 MemTotal:  0 kB\nNode 1 MemFree:   0 kB\n");
  write(n / "node1/cpulist", "4-5\n");
  write(n / "node1/distance", "12 10 20\n");
  write(n / "node2/meminfo", "Node 2 MemTotal:  2097152 kB\nNode 2 MemFree:   2097000 kB\n");
  write(n / "node2/cpulist", "\n");
  write(n / "node2/distance", "20 20 10\n");
  write(n / "node2/access0/initiators/read_bandwidth", "10240\n");
  write(n / "node2/access0/initiators/write_bandwidth", "8192\n");
  write(n / "node2/access0/initiators/read_latency", "250\n");
  return root;
}

}  // namespace

TEST(RtTopologySysfs, HmatAndCpulessFromTree) {
  fs::path root = fake_sysfs();
  auto t = discover_sysfs(root.string());
  fs::remove_all(root);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const auto& topo = t.value();
  ASSERT_EQ(topo.nodes.size(), 2u) << "memoryless node 1 must be dropped";
  EXPECT_EQ(topo.find(0)->kind, NodeKind::kDram);
  EXPECT_EQ(topo.find(0)->cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(topo.find(0)->free_bytes, 512ull << 20);
  const MemNode* cxl = topo.find(2);
  ASSERT_NE(cxl, nullptr);
  EXPECT_EQ(cxl->kind, NodeKind::kCpuless);
  EXPECT_EQ(cxl->read_bw_mbps, 10240u);
  EXPECT_EQ(cxl->write_bw_mbps, 8192u);
  EXPECT_EQ(cxl->read_lat_ns, 250u);
  EXPECT_EQ(cxl->write_lat_ns, 0u);
  EXPECT_EQ(cxl->perf_source, "hmat-sysfs");
  EXPECT_EQ(topo.node_distance(0, 2), 20);  // column of node 2, not of node 1
  EXPECT_EQ(topo.node_distance(2, 2), 10);
}

TEST(RtTopologySysfs, BrokenTreeIsAnError) {
  auto t = discover_sysfs("/nonexistent-sysfs");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("no node directories"), std::string::npos);
  fs::path root = fake_sysfs();
  write(root / "devices/system/node/node0/cpulist", "0-x\n");
  auto bad = discover_sysfs(root.string());
  fs::remove_all(root);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cpulist"), std::string::npos);
}

// hwloc memory attributes: the XML was written by hwloc 2.9's lstopo inside the QEMU two-node
// guest with ACPI HMAT (scripts/qemu-lstopo.sh); hwloc loads it through HWLOC_XMLFILE.
TEST(RtTopologyHwloc, MemoryAttributesFromHmat) {
  const std::string xml = std::string(NDP_RUNTIME_TESTDATA) + "/qemu_hmat_guest.xml";
  Topology t;
  t.source = "test";
  t.nodes = {MemNode{0, NodeKind::kDram, {0, 1}, 512ull << 20, 256ull << 20, 0, 0, 0, 0, ""},
             MemNode{1, NodeKind::kCpuless, {}, 512ull << 20, 512ull << 20, 0, 0, 0, 0, ""}};
  setenv("HWLOC_XMLFILE", xml.c_str(), 1);
  setenv("HWLOC_THISSYSTEM", "0", 1);
  auto filled = enrich_with_hwloc(t);
  unsetenv("HWLOC_XMLFILE");
  unsetenv("HWLOC_THISSYSTEM");
  ASSERT_TRUE(filled.ok()) << filled.status().message();
  EXPECT_EQ(filled.value(), 2);
  EXPECT_EQ(t.nodes[0].read_bw_mbps, 20480u);
  EXPECT_EQ(t.nodes[0].read_lat_ns, 100u);
  EXPECT_EQ(t.nodes[1].read_bw_mbps, 10240u);
  EXPECT_EQ(t.nodes[1].write_bw_mbps, 10240u);
  EXPECT_EQ(t.nodes[1].read_lat_ns, 250u);
  EXPECT_EQ(t.nodes[1].perf_source, "hwloc");
  // Values an override already set are kept.
  Topology o = t;
  o.nodes[1].read_bw_mbps = 7;
  o.nodes[1].perf_source = "override";
  setenv("HWLOC_XMLFILE", xml.c_str(), 1);
  auto again = enrich_with_hwloc(o);
  unsetenv("HWLOC_XMLFILE");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(o.nodes[1].read_bw_mbps, 7u);
}
