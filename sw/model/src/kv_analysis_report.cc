// analyze_kv reports: JSON (nlohmann), text table and the SVG figure.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "ndp/kv_analysis.h"

namespace ndp {
namespace {

using Json = nlohmann::ordered_json;

double round4(double v) { return std::round(v * 1e4) / 1e4; }

std::string plane_label(uint8_t id) {
  if (id == kPlaneExpByte) return "expbyte";
  if (id == kPlaneKvBase) return "kvbase";
  return "b" + std::to_string(id);
}

// Plane ids of a KvSizes in storage order: KVBASE, then descending significance (EXPBYTE sits
// between the sign bit-plane and the mantissa planes).
std::vector<uint8_t> planes_in_order(const KvSizes& s) {
  std::vector<uint8_t> ids;
  for (const auto& [id, p] : s.planes) ids.push_back(id);
  auto key = [](uint8_t id) { return id == kPlaneKvBase ? 1000.0 : id == kPlaneExpByte ? 14.5 : double(id); };
  std::sort(ids.begin(), ids.end(), [&](uint8_t x, uint8_t y) { return key(x) > key(y); });
  return ids;
}

Json sizes_json(const KvSizes& s) {
  const std::pair<const char*, uint64_t> cols[] = {
      {"lz4_token_major", s.lz4_token_major}, {"zstd_token_major", s.zstd_token_major},
      {"lz4_planes_token_major", s.lz4_planes}, {"zstd_planes_token_major", s.zstd_planes},
      {"lz4_window", s.lz4_window},           {"zstd_window", s.zstd_window},
      {"device", s.device}};
  Json j;
  j["raw_bytes"] = s.raw;
  Json stored = Json::object(), ratio = Json::object();
  for (const auto& [k, v] : cols) {
    stored[k] = v;
    ratio[k] = round4(kv_ratio(s.raw, v));
  }
  j["stored_bytes"] = stored;
  j["ratio"] = ratio;
  Json planes = Json::object();
  for (uint8_t id : planes_in_order(s)) {
    const KvPlaneBytes& p = s.planes.at(id);
    planes[plane_label(id)] = {{"raw_bytes", p.raw}, {"stored_bytes", p.stored}, {"ratio", round4(kv_ratio(p.raw, p.stored))}};
  }
  j["planes"] = planes;
  Json bases = Json::object();
  for (int b = 0; b < kKvBaseCount; ++b) {
    const KvBase kb = static_cast<KvBase>(b);
    bases[kv_base_name(kb)] = {{"exp_entropy_bits", round4(s.exp_entropy(kb))},
                               {"entropy_reference", round4(s.entropy_reference(kb))},
                               {"device_bytes", s.device_by_base[b]},
                               {"device_ratio", round4(kv_ratio(s.raw, s.device_by_base[b]))}};
  }
  j["bases"] = bases;
  return j;
}

}  // namespace

std::string kv_analysis_json(const KvAnalysis& a) {
  Json j;
  j["trace"] = {{"model", a.model_name}, {"layers", a.n_layers}, {"kv_heads", a.n_kv_heads},
                {"head_dim", a.head_dim}, {"tokens", a.n_tokens}};
  const KvAnalysisOptions& o = a.options;
  j["options"] = {{"window", o.window},
                  {"heads_per_window", o.heads},
                  {"channels", a.head_dim},
                  {"elements_per_window", uint64_t{o.window} * o.heads * a.head_dim},
                  {"default_geometry", a.default_geometry},
                  {"base", kv_base_name(o.base)},
                  {"token_major_block_bytes", o.block_bytes},
                  {"planes_chunk_elems", a.planes_chunk_elems},
                  {"layout", o.layout == Layout::kExpByte ? "expbyte" : "bitplane"},
                  {"verified", a.verified}};
  Json layers = Json::array();
  for (const auto& L : a.layers)
    layers.push_back({{"layer", L.layer}, {"k", sizes_json(L.k)}, {"v", sizes_json(L.v)}, {"total", sizes_json(L.both)}});
  j["layers"] = layers;
  j["total"] = sizes_json(a.total);
  return j.dump(1) + "\n";
}

namespace {

std::string ratio_table(const KvAnalysis& a) {
  std::string s = "              token-major      planes (no window)  window+delta     device\n";
  s += "  layer       LZ4     ZSTD     LZ4     ZSTD        LZ4     ZSTD     auto\n";
  auto row = [&](const std::string& label, const KvSizes& z) {
    char b[160];
    std::snprintf(b, sizeof b, "  %-9s %6.3f   %6.3f   %6.3f   %6.3f      %6.3f   %6.3f   %6.3f\n", label.c_str(),
                  kv_ratio(z.raw, z.lz4_token_major), kv_ratio(z.raw, z.zstd_token_major), kv_ratio(z.raw, z.lz4_planes),
                  kv_ratio(z.raw, z.zstd_planes), kv_ratio(z.raw, z.lz4_window), kv_ratio(z.raw, z.zstd_window),
                  kv_ratio(z.raw, z.device));
    s += b;
  };
  for (const auto& L : a.layers) {
    row(std::to_string(L.layer) + " K", L.k);
    row(std::to_string(L.layer) + " V", L.v);
  }
  row("total", a.total);
  return s;
}

std::string plane_and_base_tables(const KvAnalysis& a) {
  KvSizes k, v;
  for (const auto& L : a.layers) k.add(L.k), v.add(L.v);
  std::string s = "device image per plane (raw / stored):   ";
  for (uint8_t id : planes_in_order(a.total)) s += " " + plane_label(id);
  for (const auto* z : {&k, &v}) {
    s += z == &k ? "\n  K" : "\n  V";
    s += std::string(38, ' ');
    for (uint8_t id : planes_in_order(*z)) {
      char b[24];
      std::snprintf(b, sizeof b, " %.3f", kv_ratio(z->planes.at(id).raw, z->planes.at(id).stored));
      s += b;
    }
  }
  s += "\nbase choice      exponent entropy (bits/element, per window)   entropy ref.   device ratio\n";
  s += "                   K       V      total\n";
  for (int b = 0; b < kKvBaseCount; ++b) {
    const KvBase kb = static_cast<KvBase>(b);
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s%s  %6.3f  %6.3f  %6.3f                          %6.3f         %6.3f\n",
                  kv_base_name(kb), kb == a.options.base ? "*" : " ", k.exp_entropy(kb), v.exp_entropy(kb),
                  a.total.exp_entropy(kb), a.total.entropy_reference(kb),
                  kv_ratio(a.total.raw, a.total.device_by_base[b]));
    s += line;
  }
  return s;
}

}  // namespace

std::string kv_analysis_text(const KvAnalysis& a) {
  const KvAnalysisOptions& o = a.options;
  std::string s = a.model_name + ": " + std::to_string(a.n_layers) + " layers x K/V x " + std::to_string(a.n_kv_heads) +
                  " KV heads, " + std::to_string(a.n_tokens) + " tokens, C = " + std::to_string(a.head_dim) +
                  "; window W = " + std::to_string(o.window) + ", H = " + std::to_string(o.heads) + " head(s) per window (" +
                  std::to_string(uint64_t{o.window} * o.heads * a.head_dim) + " elements" +
                  (a.default_geometry ? ", default geometry" : "") + "), base " + kv_base_name(o.base) + "\n";
  s += "ratios (raw / stored, 12-byte block headers counted; token-major in " + std::to_string(o.block_bytes) +
       "-byte blocks)\n";
  s += ratio_table(a);
  s += plane_and_base_tables(a);
  s += std::string("device image read back bit-exact: ") + (a.verified ? "yes" : "not checked") + "\n";
  return s;
}

namespace {

// One grouped bar chart: groups of bars (one per series) on a linear axis from 0, at (x0, y0).
struct BarChart {
  std::string title;
  std::vector<std::string> series;
  std::vector<std::pair<std::string, std::vector<double>>> groups;
};

std::string xml_escape(const std::string& in) {
  std::string o;
  for (char ch : in) {
    if (ch == '<') o += "&lt;";
    else if (ch == '>') o += "&gt;";
    else if (ch == '&') o += "&amp;";
    else if (ch == '\'') o += "&apos;";
    else o += ch;
  }
  return o;
}

const char* kColors[] = {"#bab0ac", "#4e79a7", "#f28e2b", "#59a14f", "#e15759"};

int draw_chart(std::ostringstream& s, const BarChart& c, int x0, int y0) {
  const int plot_h = 220, bar = 9, gap = 10, left = 50;
  const int gw = std::max(static_cast<int>(c.series.size()) * bar + gap, 44);  // room for the label
  double ymax = 1.0;
  for (const auto& g : c.groups)
    for (double v : g.second) ymax = std::max(ymax, v);
  ymax = std::ceil(ymax * 2) / 2;
  auto ypos = [&](double v) { return y0 + 30 + plot_h - static_cast<int>(v / ymax * plot_h); };
  const int width = left + static_cast<int>(c.groups.size()) * gw + 20;
  s << "<text x='" << x0 + left << "' y='" << y0 + 16 << "' font-size='13'>" << c.title << "</text>\n";
  for (double t = 0; t <= ymax + 1e-9; t += 0.5)
    s << "<line x1='" << x0 + left << "' x2='" << x0 + width << "' y1='" << ypos(t) << "' y2='" << ypos(t)
      << "' stroke='" << (std::abs(t - 1.0) < 1e-9 ? "#888" : "#e4e4e4") << "'/><text x='" << x0 + left - 6
      << "' y='" << ypos(t) + 4 << "' text-anchor='end'>" << t << "</text>\n";
  int x = x0 + left + gap / 2;
  for (const auto& [label, vals] : c.groups) {
    for (size_t k = 0; k < vals.size(); ++k) {
      char v[16];
      std::snprintf(v, sizeof v, "%.3f", vals[k]);
      s << "<rect x='" << x + static_cast<int>(k) * bar << "' y='" << ypos(vals[k]) << "' width='" << bar - 1
        << "' height='" << ypos(0) - ypos(vals[k]) << "' fill='" << kColors[k % 5] << "'><title>" << label << " "
        << c.series[k] << ": " << v << "</title></rect>\n";
    }
    s << "<text x='" << x + (gw - gap) / 2 << "' y='" << ypos(0) + 14 << "' text-anchor='middle'>" << label
      << "</text>\n";
    x += gw;
  }
  for (size_t k = 0; k < c.series.size(); ++k)
    s << "<rect x='" << x0 + width + 10 << "' y='" << y0 + 30 + 18 * static_cast<int>(k) << "' width='12' height='12' fill='"
      << kColors[k % 5] << "'/><text x='" << x0 + width + 28 << "' y='" << y0 + 40 + 18 * static_cast<int>(k) << "'>"
      << c.series[k] << "</text>\n";
  return width + 200;
}

}  // namespace

Status write_kv_plot_svg(const KvAnalysis& a, const std::string& path) {
  BarChart layers{"Compression ratio per layer and K/V (" + xml_escape(a.model_name) + ", W = " + std::to_string(a.options.window) +
                      ", H = " + std::to_string(a.options.heads) + ", base " + kv_base_name(a.options.base) + ")",
                  {"ZSTD token-major", "ZSTD planes (no window)", "device (window)"}, {}};
  for (const auto& L : a.layers)
    for (const KvSizes* z : {&L.k, &L.v})
      layers.groups.push_back({std::to_string(L.layer) + (z == &L.k ? "K" : "V"),
                               {kv_ratio(z->raw, z->zstd_token_major), kv_ratio(z->raw, z->zstd_planes),
                                kv_ratio(z->raw, z->device)}});
  KvSizes k, v;
  for (const auto& L : a.layers) k.add(L.k), v.add(L.v);
  BarChart planes{"Device image ratio per plane (headers counted)", {"K", "V"}, {}};
  for (uint8_t id : planes_in_order(a.total))
    planes.groups.push_back({plane_label(id), {kv_ratio(k.planes[id].raw, k.planes[id].stored),
                                               kv_ratio(v.planes[id].raw, v.planes[id].stored)}});
  std::ostringstream body;
  const int w1 = draw_chart(body, layers, 0, 0);
  const int w2 = draw_chart(body, planes, 0, 300);
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << std::max(w1, w2) << "' height='600' font-family='sans-serif' "
    << "font-size='11'>\n<rect width='100%' height='100%' fill='white'/>\n" << body.str() << "</svg>\n";
  std::ofstream f(path, std::ios::binary);
  if (!f) return Status::Error("cannot write plot " + path);
  f << s.str();
  if (!f.good()) return Status::Error("error writing plot " + path);
  return Status::Ok();
}

}  // namespace ndp
