// The C API of libndp (include/ndp/ndp_driver.h) over ndp::drv::Device.
#include "ndp/ndp_driver.h"

#include <string>

#include "ndp/driver.h"

using ndp::Status;
using ndp::drv::Device;

struct ndp_dev {
  std::unique_ptr<Device> dev;
  std::string backend;
};
struct ndp_dev_mapping {
  std::unique_ptr<ndp::drv::Mapping> m;
};

namespace {

thread_local std::string g_error;

int fail(const Status& s) {
  g_error = s.message();
  return -1;
}
int fail(const std::string& msg) { return fail(Status::Error(msg)); }

void copy_stats(const ndp::drv::CallStats& s, ndp_dev_call_stats* o) {
  o->host_bytes = s.host_bytes;
  o->link_bytes = s.link_bytes;
  o->device_bytes = s.device_bytes;
  o->blocks = s.blocks;
  o->errors = s.errors;
  o->seconds = s.seconds;
}

// The region called `name` with `guard` for the tensor's dtype.
ndp::Result<ndp::Region> region_of(ndp_dev* d, uint32_t image, size_t tensor, const char* name, int guard) {
  const auto* ts = d->dev->tensors(image);
  if (!ts) return Status::Error("no image " + std::to_string(image) + " loaded");
  if (tensor >= ts->size()) return Status::Error("tensor " + std::to_string(tensor) + " out of range");
  if (!name) return Status::Error("no region name");
  return ndp::parse_region(name, (*ts)[tensor].dtype, guard);
}

}  // namespace

extern "C" {

ndp_dev* ndp_dev_open(const char* uri) {
  auto d = Device::open(uri ? uri : "");
  if (!d.ok()) {
    fail(d.status());
    return nullptr;
  }
  auto* h = new ndp_dev;
  h->dev = std::move(d.value());
  h->backend = h->dev->backend_name();
  return h;
}

void ndp_dev_close(ndp_dev* d) { delete d; }
const char* ndp_dev_backend(ndp_dev* d) { return d ? d->backend.c_str() : ""; }

int ndp_dev_load(ndp_dev* d, const void* image, size_t bytes, uint32_t* image_out) {
  if (!d || !image || !image_out) return fail("ndp_dev_load: null argument");
  auto id = d->dev->load(static_cast<const uint8_t*>(image), bytes);
  if (!id.ok()) return fail(id.status());
  *image_out = id.value();
  return 0;
}

int ndp_dev_load_file(ndp_dev* d, const char* path, uint32_t* image_out) {
  if (!d || !path || !image_out) return fail("ndp_dev_load_file: null argument");
  auto id = d->dev->load_file(path);
  if (!id.ok()) return fail(id.status());
  *image_out = id.value();
  return 0;
}

int ndp_dev_unload(ndp_dev* d, uint32_t image) {
  if (!d) return fail("ndp_dev_unload: null device");
  Status s = d->dev->unload(image);
  return s.ok() ? 0 : fail(s);
}

int ndp_dev_tensor_count(ndp_dev* d, uint32_t image, size_t* count) {
  if (!d || !count) return fail("ndp_dev_tensor_count: null argument");
  const auto* ts = d->dev->tensors(image);
  if (!ts) return fail("no image " + std::to_string(image) + " loaded");
  *count = ts->size();
  return 0;
}

int ndp_dev_tensor_info(ndp_dev* d, uint32_t image, size_t tensor, ndp_dev_tensor* out) {
  if (!d || !out) return fail("ndp_dev_tensor_info: null argument");
  const auto* ts = d->dev->tensors(image);
  if (!ts || tensor >= ts->size()) return fail("no tensor " + std::to_string(tensor) + " in image " + std::to_string(image));
  const ndp::TensorInfo& t = (*ts)[tensor];
  out->name = t.name.c_str();
  out->dtype = static_cast<int>(t.dtype);
  out->layout = static_cast<int>(t.layout);
  out->kv = t.kind == ndp::TensorKind::kKvStream;
  out->elems = t.elems;
  out->stored_bytes = t.stored_bytes;
  return 0;
}

int ndp_dev_find(ndp_dev* d, uint32_t image, const char* name, size_t* tensor) {
  if (!d || !name || !tensor) return fail("ndp_dev_find: null argument");
  auto f = d->dev->find(image, name);
  if (!f.ok()) return fail(f.status());
  *tensor = f.value();
  return 0;
}

int ndp_dev_region_bytes(ndp_dev* d, uint32_t image, size_t tensor, const char* region, int guard, uint64_t* bytes) {
  if (!d || !bytes) return fail("ndp_dev_region_bytes: null argument");
  auto r = region_of(d, image, tensor, region, guard);
  if (!r.ok()) return fail(r.status());
  auto n = d->dev->region_bytes(image, tensor, r.value());
  if (!n.ok()) return fail(n.status());
  *bytes = n.value();
  return 0;
}

int ndp_dev_read(ndp_dev* d, uint32_t image, size_t tensor, const char* region, int guard, uint64_t offset,
                 uint64_t bytes, void* out, ndp_dev_call_stats* st) {
  if (!d) return fail("ndp_dev_read: null device");
  auto r = region_of(d, image, tensor, region, guard);
  if (!r.ok()) return fail(r.status());
  ndp::drv::CallStats cs;
  Status s = d->dev->read(image, tensor, r.value(), offset, bytes, static_cast<uint8_t*>(out), &cs);
  if (st) copy_stats(cs, st);
  return s.ok() ? 0 : fail(s);
}

int ndp_dev_map(ndp_dev* d, uint32_t image, size_t tensor, const char* region, int guard, uint64_t offset,
                uint64_t length, uint64_t fault_bytes, ndp_dev_mapping** map, const void** addr) {
  if (!d || !map || !addr) return fail("ndp_dev_map: null argument");
  auto r = region_of(d, image, tensor, region, guard);
  if (!r.ok()) return fail(r.status());
  auto m = d->dev->map(image, tensor, r.value(), offset, length, fault_bytes);
  if (!m.ok()) return fail(m.status());
  *map = new ndp_dev_mapping{std::move(m.value())};
  *addr = (*map)->m->data();
  return 0;
}

int ndp_dev_map_status(ndp_dev_mapping* m) {
  if (!m) return fail("ndp_dev_map_status: null mapping");
  Status s = m->m->status();
  return s.ok() ? 0 : fail(s);
}

void ndp_dev_unmap(ndp_dev_mapping* m) { delete m; }

int ndp_dev_kv_create(ndp_dev* d, int dtype, uint32_t window, uint32_t channels, uint32_t heads, uint32_t* stream) {
  if (!d || !stream) return fail("ndp_dev_kv_create: null argument");
  auto t = dtype >= 0 && dtype <= 255 ? ndp::dtype_from_code(static_cast<uint8_t>(dtype)) : std::nullopt;
  if (!t) return fail("ndp_dev_kv_create: unknown dtype " + std::to_string(dtype));
  auto id = d->dev->kv_create(*t, ndp::KvGeometry{window, channels, heads});
  if (!id.ok()) return fail(id.status());
  *stream = id.value();
  return 0;
}

int ndp_dev_kv_append(ndp_dev* d, uint32_t stream, const uint16_t* token_major, uint64_t tokens) {
  if (!d) return fail("ndp_dev_kv_append: null device");
  Status s = d->dev->kv_append(stream, token_major, tokens);
  return s.ok() ? 0 : fail(s);
}

int ndp_dev_kv_read(ndp_dev* d, uint32_t stream, uint64_t first_token, uint64_t tokens, uint16_t* out) {
  if (!d) return fail("ndp_dev_kv_read: null device");
  Status s = d->dev->kv_read(stream, first_token, tokens, out);
  return s.ok() ? 0 : fail(s);
}

int ndp_dev_kv_free(ndp_dev* d, uint32_t stream) {
  if (!d) return fail("ndp_dev_kv_free: null device");
  Status s = d->dev->kv_free(stream);
  return s.ok() ? 0 : fail(s);
}

int ndp_dev_get_stats(ndp_dev* d, ndp_dev_stats* out) {
  if (!d || !out) return fail("ndp_dev_get_stats: null argument");
  const ndp::drv::DeviceStats s = d->dev->stats();
  copy_stats(s.total, &out->total);
  out->calls = s.calls;
  out->failed_calls = s.failed_calls;
  out->page_faults = s.page_faults;
  out->images = s.images;
  out->device_memory = s.device_memory;
  out->device_free = s.device_free;
  out->dram_energy_nj = s.dram_energy_nj;
  return 0;
}

const char* ndp_dev_last_error(void) { return g_error.c_str(); }

}  // extern "C"
