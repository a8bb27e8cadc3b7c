// Plan and plan-request JSON.
#include <map>

#include "json_util.h"
#include "ndp/runtime/planner.h"
#include "ndp/runtime/size.h"

namespace ndp::rt {

using detail::Json;

std::string plan_to_json(const Plan& p) {
  Json j;
  j["version"] = 1;
  j["align"] = p.input.align;
  j["dram"] = {{"node", p.input.dram_node}, {"capacity", p.input.dram_capacity}};
  j["cxl"] = Json::array();
  for (const auto& c : p.input.cxl) j["cxl"].push_back({{"node", c.node}, {"capacity", c.capacity}, {"weight", c.weight}});
  j["weight_source"] = p.weight_source;
  j["items"] = Json::array();
  for (const auto& it : p.items) {
    Json parts = Json::array();
    for (const auto& nb : it.parts) parts.push_back({{"node", nb.node}, {"bytes", nb.bytes}});
    j["items"].push_back(
        {{"name", it.name}, {"level", it.level}, {"bytes", it.bytes}, {"policy", plan_policy_name(it.policy)}, {"parts", parts}});
  }
  j["totals"] = Json::array();
  for (const auto& nb : p.node_totals) j["totals"].push_back({{"node", nb.node}, {"bytes", nb.bytes}});
  j["dram_left"] = p.dram_left;
  return j.dump(1) + "\n";
}

namespace {

Result<int> req_int(const Json& o, const char* key, const std::string& where) {
  auto v = detail::get_int(o, key, where, -1, 1 << 20);
  if (!v.ok()) return v.status();
  if (!v.value()) return Status::Error(where + ": missing \"" + key + "\"");
  return static_cast<int>(*v.value());
}

Result<uint64_t> req_size(const Json& o, const char* key, const std::string& where) {
  auto v = detail::get_size(o, key, where);
  if (!v.ok()) return v.status();
  if (!v.value()) return Status::Error(where + ": missing \"" + key + "\"");
  return *v.value();
}

Result<PlanPolicy> policy_from(const std::string& s, const std::string& where) {
  if (s == "pure_local") return PlanPolicy::kPureLocal;
  if (s == "local_cxl") return PlanPolicy::kLocalCxl;
  if (s == "pure_cxl") return PlanPolicy::kPureCxl;
  return Status::Error(where + ".policy: unknown '" + s + "'");
}

Result<PlanItem> item_from(const Json& o, const std::string& where, uint64_t align) {
  if (!o.is_object()) return Status::Error(where + ": expected an object");
  PlanItem it;
  auto name = detail::get_string(o, "name", where);
  if (!name.ok()) return name.status();
  it.name = name.value().value_or("");
  auto lvl = req_int(o, "level", where);
  if (!lvl.ok()) return lvl.status();
  it.level = lvl.value();
  auto b = req_size(o, "bytes", where);
  if (!b.ok()) return b.status();
  it.bytes = b.value();
  auto pol = detail::get_string(o, "policy", where);
  if (!pol.ok()) return pol.status();
  auto pp = policy_from(pol.value().value_or(""), where);
  if (!pp.ok()) return pp.status();
  it.policy = pp.value();
  auto parts = o.find("parts");
  if (parts == o.end() || !parts->is_array() || parts->empty())
    return Status::Error(where + ": \"parts\" must be a non-empty array");
  uint64_t sum = 0;
  for (size_t k = 0; k < parts->size(); ++k) {
    std::string w = where + ".parts[" + std::to_string(k) + "]";
    if (!(*parts)[k].is_object()) return Status::Error(w + ": expected an object");
    auto n = req_int((*parts)[k], "node", w);
    if (!n.ok()) return n.status();
    auto pb = req_size((*parts)[k], "bytes", w);
    if (!pb.ok()) return pb.status();
    if (pb.value() == 0 || pb.value() % align) return Status::Error(w + ": bytes must be a non-zero multiple of align");
    it.parts.push_back({n.value(), pb.value()});
    sum += pb.value();
  }
  if (it.level < 1 || it.level > 4) return Status::Error(where + ": level must be 1..4");
  if (it.bytes == 0 || sum != align_up(it.bytes, align))
    return Status::Error(where + ": parts sum to " + std::to_string(sum) + ", expected " +
                         std::to_string(align_up(it.bytes, align)));
  return it;
}

}  // namespace

Result<Plan> plan_from_json(const std::string& text, const std::string& origin) {
  auto jr = detail::parse_json(text, origin);
  if (!jr.ok()) return jr.status();
  const Json& j = jr.value();
  Plan p;
  auto ver = req_int(j, "version", origin);
  if (!ver.ok()) return ver.status();
  if (ver.value() != 1) return Status::Error(origin + ": plan version " + std::to_string(ver.value()) + " unsupported");
  auto al = req_size(j, "align", origin);
  if (!al.ok()) return al.status();
  p.input.align = al.value();
  if (p.input.align == 0 || (p.input.align & (p.input.align - 1)))
    return Status::Error(origin + ": align must be a power of two");
  auto dram = j.find("dram");
  if (dram == j.end() || !dram->is_object()) return Status::Error(origin + ": missing \"dram\" object");
  auto dn = req_int(*dram, "node", origin + ".dram");
  if (!dn.ok()) return dn.status();
  p.input.dram_node = dn.value();
  auto dc = req_size(*dram, "capacity", origin + ".dram");
  if (!dc.ok()) return dc.status();
  p.input.dram_capacity = dc.value();
  if (auto cx = j.find("cxl"); cx != j.end()) {
    if (!cx->is_array()) return Status::Error(origin + ": \"cxl\" must be an array");
    for (size_t k = 0; k < cx->size(); ++k) {
      std::string w = origin + ".cxl[" + std::to_string(k) + "]";
      if (!(*cx)[k].is_object()) return Status::Error(w + ": expected an object");
      auto n = req_int((*cx)[k], "node", w);
      if (!n.ok()) return n.status();
      auto c = req_size((*cx)[k], "capacity", w);
      if (!c.ok()) return c.status();
      auto wt = req_int((*cx)[k], "weight", w);
      if (!wt.ok()) return wt.status();
      if (wt.value() < 1 || wt.value() > 255) return Status::Error(w + ".weight: must be 1..255");
      p.input.cxl.push_back({n.value(), c.value(), static_cast<uint32_t>(wt.value())});
    }
  }
  auto ws = detail::get_string(j, "weight_source", origin);
  if (!ws.ok()) return ws.status();
  p.weight_source = ws.value().value_or("");
  auto items = j.find("items");
  if (items == j.end() || !items->is_array()) return Status::Error(origin + ": \"items\" must be an array");
  std::map<int, uint64_t> totals;
  for (size_t k = 0; k < items->size(); ++k) {
    auto it = item_from((*items)[k], origin + ".items[" + std::to_string(k) + "]", p.input.align);
    if (!it.ok()) return it.status();
    for (const auto& nb : it.value().parts) totals[nb.node] += nb.bytes;
    p.items.push_back(it.value());
  }
  p.node_totals.push_back({p.input.dram_node, totals[p.input.dram_node]});
  for (const auto& c : p.input.cxl) p.node_totals.push_back({c.node, totals[c.node]});
  for (const auto& [n, b] : totals) {
    bool known = n == p.input.dram_node;
    for (const auto& c : p.input.cxl) known = known || c.node == n;
    if (!known) return Status::Error(origin + ": an item uses node " + std::to_string(n) + ", which the plan does not list");
  }
  auto dl = detail::get_size(j, "dram_left", origin);
  if (!dl.ok()) return dl.status();
  p.dram_left = dl.value().value_or(0);
  return p;
}

namespace {

Status parse_planner_opts(const Json& o, const std::string& where, PlannerOptions& opt) {
  if (!o.is_object()) return Status::Error(where + ": expected an object");
  auto dn = detail::get_int(o, "dram_node", where, -1, 1 << 20);
  if (!dn.ok()) return dn.status();
  if (dn.value()) opt.dram_node = static_cast<int>(*dn.value());
  auto lim = detail::get_size(o, "dram_limit", where);
  if (!lim.ok()) return lim.status();
  opt.dram_limit = lim.value().value_or(0);
  auto res = detail::get_size(o, "reserve", where);
  if (!res.ok()) return res.status();
  opt.reserve = res.value().value_or(0);
  for (const char* key : {"use_free", "even_cxl"}) {
    auto it = o.find(key);
    if (it == o.end()) continue;
    if (!it->is_boolean()) return Status::Error(where + "." + key + ": expected true or false");
    (std::string(key) == "use_free" ? opt.use_free : opt.even_cxl) = it->get<bool>();
  }
  if (auto it = o.find("cxl_nodes"); it != o.end()) {
    if (!it->is_array()) return Status::Error(where + ".cxl_nodes: expected an array of node ids");
    for (const auto& v : *it) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1023)
        return Status::Error(where + ".cxl_nodes: node ids must be integers 0..1023");
      opt.cxl_nodes.push_back(v.get<int>());
    }
  }
  return Status::Ok();
}

Status parse_config(const Json& j, const std::string& origin, TrainConfig& c) {
  auto m = j.find("model");
  auto t = j.find("train");
  if (m == j.end() || !m->is_object() || t == j.end() || !t->is_object())
    return Status::Error(origin + ": need \"tensors\", or both \"model\" and \"train\" objects");
  auto name = detail::get_string(*m, "name", origin + ".model");
  if (!name.ok()) return name.status();
  c.model = name.value().value_or("");
  struct F {
    const Json* obj;
    const char* key;
    uint64_t* dst;
    bool required;
  } fields[] = {{&*m, "params", &c.params, true},   {&*m, "layers", &c.layers, true}, {&*m, "hidden", &c.hidden, true},
                {&*t, "context", &c.context, true}, {&*t, "batch", &c.batch, false},  {&*t, "gpus", &c.gpus, false}};
  for (auto& f : fields) {
    std::string where = origin + (f.obj == &*m ? ".model" : ".train");
    auto v = detail::get_size(*f.obj, f.key, where);
    if (!v.ok()) return v.status();
    if (!v.value() && f.required) return Status::Error(where + ": missing \"" + f.key + "\"");
    if (v.value()) *f.dst = *v.value();
  }
  if (auto it = t->find("per_layer"); it != t->end()) {
    if (!it->is_boolean()) return Status::Error(origin + ".train.per_layer: expected true or false");
    c.per_layer = it->get<bool>();
  }
  return Status::Ok();
}

}  // namespace

Result<PlanRequest> parse_plan_request(const std::string& text, const std::string& origin) {
  auto jr = detail::parse_json(text, origin);
  if (!jr.ok()) return jr.status();
  const Json& j = jr.value();
  PlanRequest r;
  if (auto ts = j.find("tensors"); ts != j.end()) {
    if (!ts->is_array() || ts->empty()) return Status::Error(origin + ": \"tensors\" must be a non-empty array");
    for (size_t k = 0; k < ts->size(); ++k) {
      std::string w = origin + ".tensors[" + std::to_string(k) + "]";
      const Json& o = (*ts)[k];
      if (!o.is_object()) return Status::Error(w + ": expected an object");
      auto name = detail::get_string(o, "name", w);
      if (!name.ok()) return name.status();
      auto lvl = req_int(o, "level", w);
      if (!lvl.ok()) return lvl.status();
      auto b = req_size(o, "bytes", w);
      if (!b.ok()) return b.status();
      r.tensors.push_back({name.value().value_or("tensor" + std::to_string(k)), lvl.value(), b.value()});
    }
  } else {
    NDP_RETURN_IF_ERROR(parse_config(j, origin, r.config));
    r.from_config = true;
  }
  if (auto tp = j.find("topology"); tp != j.end()) {
    if (tp->is_string())
      r.topology_path = tp->get<std::string>();
    else if (tp->is_object())
      r.topology_inline = tp->dump();
    else
      return Status::Error(origin + ".topology: expected a file path or an inline override object");
  }
  if (auto po = j.find("planner"); po != j.end()) NDP_RETURN_IF_ERROR(parse_planner_opts(*po, origin + ".planner", r.options));
  return r;
}

}  // namespace ndp::rt
