// C API over the C++ runtime.
#include "ndp/runtime/ndp_runtime.h"

#include <new>
#include <string>

#include "ndp/runtime/gpu.h"
#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/runtime.h"
#include "ndp/runtime/slab.h"

struct ndp_rt {
  ndp::rt::Runtime rt;
};
struct ndp_rt_alloc {
  ndp::rt::Allocation a;
};
struct ndp_rt_objalloc {
  ndp::rt::ObjectAllocator o;
};

namespace {

thread_local std::string g_err;

int fail(const ndp::Status& s) {
  g_err = s.message();
  return -1;
}
int fail(const std::string& s) {
  g_err = s;
  return -1;
}

}  // namespace

extern "C" {

const char* ndp_rt_last_error(void) { return g_err.c_str(); }

int ndp_rt_open(const char* topology_override, ndp_rt** out) {
  if (!out) return fail("ndp_rt_open: out is NULL");
  *out = nullptr;
  auto t = ndp::rt::discover_topology(topology_override ? topology_override : "");
  if (!t.ok()) return fail(t.status());
  *out = new (std::nothrow) ndp_rt{ndp::rt::Runtime(std::move(t.value()))};
  return *out ? 0 : fail("ndp_rt_open: out of memory");
}

void ndp_rt_close(ndp_rt* rt) { delete rt; }

int ndp_rt_node_count(const ndp_rt* rt) { return rt ? static_cast<int>(rt->rt.topology().nodes.size()) : -1; }

int ndp_rt_node_info(const ndp_rt* rt, int index, ndp_rt_node* out) {
  if (!rt || !out) return fail("ndp_rt_node_info: NULL argument");
  const auto& nodes = rt->rt.topology().nodes;
  if (index < 0 || static_cast<size_t>(index) >= nodes.size())
    return fail("ndp_rt_node_info: index " + std::to_string(index) + " out of range");
  const auto& n = nodes[static_cast<size_t>(index)];
  *out = ndp_rt_node{n.id, n.kind == ndp::rt::NodeKind::kCpuless ? 1 : 0, n.total_bytes, n.free_bytes,
                     n.read_bw_mbps, n.read_lat_ns};
  return 0;
}

int ndp_rt_weighted_interleave_supported(void) { return ndp::rt::kernel_caps().weighted_interleave ? 1 : 0; }

static int alloc_with(ndp_rt* rt, size_t bytes, const ndp::rt::Placement& p, ndp_rt_alloc** out) {
  if (!rt || !out) return fail("ndp_rt_alloc: NULL argument");
  *out = nullptr;
  auto a = rt->rt.allocate(bytes, p);
  if (!a.ok()) return fail(a.status());
  *out = new (std::nothrow) ndp_rt_alloc{std::move(a.value())};
  return *out ? 0 : fail("ndp_rt_alloc: out of memory");
}

int ndp_rt_alloc_onnode(ndp_rt* rt, size_t bytes, int node, ndp_rt_alloc** out) {
  return alloc_with(rt, bytes, ndp::rt::Placement::on_node(node), out);
}

int ndp_rt_alloc_interleave(ndp_rt* rt, size_t bytes, const int* nodes, const uint32_t* weights, int n,
                            ndp_rt_alloc** out) {
  if (!nodes || n <= 0) return fail("ndp_rt_alloc_interleave: no nodes");
  std::vector<int> ns(nodes, nodes + n);
  std::vector<uint32_t> ws;
  if (weights) ws.assign(weights, weights + n);
  return alloc_with(rt, bytes, ndp::rt::Placement::interleave(ns, ws), out);
}

void* ndp_rt_data(const ndp_rt_alloc* a) { return a ? a->a.data() : nullptr; }
size_t ndp_rt_size(const ndp_rt_alloc* a) { return a ? a->a.size() : 0; }

int ndp_rt_pages_on_node(ndp_rt* rt, const ndp_rt_alloc* a, int node, uint64_t* pages) {
  if (!rt || !a || !pages) return fail("ndp_rt_pages_on_node: NULL argument");
  auto w = rt->rt.where(a->a);
  if (!w.ok()) return fail(w.status());
  auto it = w.value().per_node.find(node);
  *pages = it == w.value().per_node.end() ? 0 : it->second;
  return 0;
}

int ndp_rt_migrate(ndp_rt* rt, ndp_rt_alloc* a, int node) {
  if (!rt || !a) return fail("ndp_rt_migrate: NULL argument");
  ndp::Status s = rt->rt.migrate(a->a, ndp::rt::Placement::on_node(node));
  return s.ok() ? 0 : fail(s);
}

int ndp_rt_register_gpu(ndp_rt_alloc* a) {
  if (!a) return fail("ndp_rt_register_gpu: NULL argument");
  ndp::Status s = ndp::rt::register_for_gpu(a->a);
  return s.ok() ? 0 : fail(s);
}

void ndp_rt_free(ndp_rt_alloc* a) { delete a; }

uint64_t ndp_rt_bytes_on_node(const ndp_rt* rt, int node) {
  if (!rt) return 0;
  auto acc = rt->rt.accounting();
  auto it = acc.bytes_per_node.find(node);
  return it == acc.bytes_per_node.end() ? 0 : it->second;
}

int ndp_rt_objalloc_create(ndp_rt* rt, int node, ndp_rt_objalloc** out) {
  if (!rt || !out) return fail("ndp_rt_objalloc_create: NULL argument");
  if (!rt->rt.topology().find(node)) return fail("ndp_rt_objalloc_create: node " + std::to_string(node) + " is not in the topology");
  ndp::rt::SlabOptions o;
  o.placement = ndp::rt::Placement::on_node(node);
  *out = new (std::nothrow) ndp_rt_objalloc{ndp::rt::ObjectAllocator(rt->rt, o)};
  return *out ? 0 : fail("ndp_rt_objalloc_create: out of memory");
}

void* ndp_rt_obj_alloc(ndp_rt_objalloc* o, size_t bytes) {
  if (!o) {
    fail("ndp_rt_obj_alloc: NULL allocator");
    return nullptr;
  }
  auto p = o->o.allocate(bytes);
  if (!p.ok()) {
    fail(p.status());
    return nullptr;
  }
  return p.value();
}

int ndp_rt_obj_free(ndp_rt_objalloc* o, void* p) {
  if (!o) return fail("ndp_rt_obj_free: NULL allocator");
  ndp::Status s = o->o.free(p);
  return s.ok() ? 0 : fail(s);
}

void ndp_rt_objalloc_destroy(ndp_rt_objalloc* o) { delete o; }

}  // extern "C"
