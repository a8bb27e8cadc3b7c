// Text, JSON and SVG renderings of an analysis Report.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "ndp/analysis.h"

namespace ndp {
namespace {

std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += char(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += char(c);
    }
  }
  return o + "\"";
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string plane_name(int id) {
  if (id == kPlaneExpByte) return "expbyte";
  if (id == kPlaneKvBase) return "kvbase";
  return "b" + std::to_string(id);
}

std::string ratios_json(const Figures& f) {
  std::ostringstream o;
  o << "{\"lz4_raw\":" << num(Figures::ratio(f.bytes, f.lz4_raw))
    << ",\"zstd_raw\":" << num(Figures::ratio(f.bytes, f.zstd_raw))
    << ",\"lz4_bitplane\":" << num(Figures::ratio(f.bytes, f.lz4_bitplane))
    << ",\"zstd_bitplane\":" << num(Figures::ratio(f.bytes, f.zstd_bitplane))
    << ",\"device\":" << num(Figures::ratio(f.bytes, f.device)) << "}";
  return o.str();
}

std::string figures_json(const Figures& f) {
  std::ostringstream o;
  o << "\"elements\":" << f.elements << ",\"bytes\":" << f.bytes << ",\"stored_bytes\":" << f.device
    << ",\"ratio\":" << ratios_json(f) << ",\"exponent_entropy_bits\":" << num(f.exponent_entropy_bits())
    << ",\"entropy_reference_ratio\":" << num(f.entropy_reference_ratio());
  if (f.device && f.entropy_reference_ratio() > 0)
    o << ",\"device_vs_entropy_reference\":"
      << num(Figures::ratio(f.bytes, f.device) / f.entropy_reference_ratio());
  return o.str();
}

std::string planes_json(const Report& r) {
  std::ostringstream o;
  o << "{";
  bool first_t = true;
  for (const auto& [dt, planes] : r.planes) {
    o << (first_t ? "" : ",") << jstr(dt) << ":{";
    first_t = false;
    bool first = true;
    for (const auto& [id, p] : planes) {
      o << (first ? "" : ",") << jstr(plane_name(id)) << ":{\"raw_bytes\":" << p.raw;
      if (p.lz4) o << ",\"lz4_bitplane\":" << num(Figures::ratio(p.raw, p.lz4));
      if (p.zstd) o << ",\"zstd_bitplane\":" << num(Figures::ratio(p.raw, p.zstd));
      if (p.device) o << ",\"device_bytes\":" << p.device << ",\"device\":" << num(Figures::ratio(p.raw, p.device));
      o << "}";
      first = false;
    }
    o << "}";
  }
  return o.str() + "}";
}

std::string regions_json(const Report& r) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < r.regions.size(); ++i) {
    const auto& g = r.regions[i];
    o << (i ? "," : "") << "{\"region\":" << jstr(g.name) << ",\"guard\":" << g.guard
      << ",\"elements\":" << g.elements << ",\"output_bytes\":" << g.output_bytes
      << ",\"dram_bytes\":" << g.dram_bytes << "}";
  }
  return o.str() + "]";
}

}  // namespace

std::string report_json(const Report& r) {
  std::ostringstream o;
  o << "{\"path\":" << jstr(r.path) << ",\"format\":" << jstr(r.format) << ",\"block_bytes\":" << r.opt.block_bytes
    << ",\"layout\":" << jstr(r.opt.layout == Layout::kExpByte ? "expbyte" : "bitplane")
    << ",\"codec\":" << jstr(r.opt.codec) << ",\"zstd_level\":" << r.opt.zstd_level << ",\"tensors\":[";
  for (size_t i = 0; i < r.tensors.size(); ++i) {
    const auto& t = r.tensors[i];
    o << (i ? "," : "") << "{\"name\":" << jstr(t.name) << ",\"dtype\":" << jstr(dtype_info(t.dtype).name)
      << ",\"shape\":[";
    for (size_t d = 0; d < t.shape.size(); ++d) o << (d ? "," : "") << t.shape[d];
    o << "]," << figures_json(t.fig) << "}";
  }
  o << "],\"by_dtype\":{";
  bool first = true;
  for (const auto& [dt, f] : r.by_dtype) {
    o << (first ? "" : ",") << jstr(dt) << ":{" << figures_json(f) << "}";
    first = false;
  }
  o << "},\"total\":{" << figures_json(r.total) << ",\"planes\":" << planes_json(r)
    << ",\"regions\":" << regions_json(r) << "},\"seconds\":" << num(r.seconds) << "}";
  return o.str();
}

std::string report_text(const Report& r) {
  std::ostringstream o;
  char b[512];
  o << "model " << r.path << " (" << r.format << "), " << r.tensors.size() << " tensors, block "
    << r.opt.block_bytes << " B, device layout "
    << (r.opt.layout == Layout::kExpByte ? "expbyte" : "bitplane") << ", codec " << r.opt.codec << "\n";
  std::snprintf(b, sizeof b, "%-40s %-8s %12s %8s %8s %8s %8s %8s\n", "tensor", "dtype", "elements", "lz4raw",
                "zstdraw", "lz4bp", "zstdbp", "device");
  o << b;
  auto row = [&](const std::string& name, const char* dt, const Figures& f) {
    std::snprintf(b, sizeof b, "%-40.40s %-8s %12llu %8.3f %8.3f %8.3f %8.3f %8.3f\n", name.c_str(), dt,
                  (unsigned long long)f.elements, Figures::ratio(f.bytes, f.lz4_raw),
                  Figures::ratio(f.bytes, f.zstd_raw), Figures::ratio(f.bytes, f.lz4_bitplane),
                  Figures::ratio(f.bytes, f.zstd_bitplane), Figures::ratio(f.bytes, f.device));
    o << b;
  };
  for (const auto& t : r.tensors) row(t.name, dtype_info(t.dtype).name, t.fig);
  if (r.by_dtype.size() > 1)
    for (const auto& [dt, f] : r.by_dtype) {
      row("all " + dt + " tensors", dt.c_str(), f);
      if (f.float_elements) {
        std::snprintf(b, sizeof b, "  %s: exponent entropy %.4f bits, entropy reference %.4f, device %.2f%% of it\n",
                      dt.c_str(), f.exponent_entropy_bits(), f.entropy_reference_ratio(),
                      100.0 * Figures::ratio(f.bytes, f.device) / f.entropy_reference_ratio());
        o << b;
      }
    }
  row("TOTAL", "", r.total);
  std::snprintf(b, sizeof b,
                "exponent entropy %.4f bits, entropy reference ratio %.4f, device %.4f (%.2f%% of reference)\n",
                r.total.exponent_entropy_bits(), r.total.entropy_reference_ratio(),
                Figures::ratio(r.total.bytes, r.total.device),
                r.total.entropy_reference_ratio() > 0
                    ? 100.0 * Figures::ratio(r.total.bytes, r.total.device) / r.total.entropy_reference_ratio()
                    : 0.0);
  o << b;
  o << "raw " << r.total.bytes << " B, device image " << r.total.device << " B\n";
  if (!r.regions.empty()) {
    o << "precision regions (DRAM bytes fetched per region, guard planes g):\n";
    std::snprintf(b, sizeof b, "  %-10s %3s %14s %14s %8s\n", "region", "g", "dram_bytes", "output_bytes", "dram/raw");
    o << b;
    for (const auto& g : r.regions) {
      std::snprintf(b, sizeof b, "  %-10s %3d %14llu %14llu %8.3f\n", g.name.c_str(), g.guard,
                    (unsigned long long)g.dram_bytes, (unsigned long long)g.output_bytes,
                    r.total.bytes ? double(g.dram_bytes) / double(r.total.bytes) : 0.0);
      o << b;
    }
  }
  std::snprintf(b, sizeof b, "analysed in %.2f s\n", r.seconds);
  o << b;
  return o.str();
}

Status write_plane_plot_svg(const Report& r, const std::string& path) {
  // One bar group per plane, in storage order (sign, exponent, mantissa): bit-plane LZ4, bit-plane
  // ZSTD and device-image ratios on a log2 axis (exponent planes compress 50-200x, mantissas ~1x).
  std::ostringstream s;
  struct Group { std::string dt; std::vector<std::pair<int, PlaneFigures>> planes; };
  std::vector<Group> groups;
  size_t bars = 0;
  double ymax = 2.0;
  for (const auto& [dt, planes] : r.planes) {
    Group g{dt, {planes.begin(), planes.end()}};
    auto dtype = dtype_from_name(dt);
    int bits = dtype ? dtype_info(*dtype).bits : 32;
    auto key = [&](int id) { return id == kPlaneExpByte ? bits - 1.5 : id == kPlaneKvBase ? bits : double(id); };
    std::sort(g.planes.begin(), g.planes.end(), [&](const auto& a, const auto& b) { return key(a.first) > key(b.first); });
    for (const auto& [id, p] : g.planes)
      for (uint64_t c : {p.lz4, p.zstd, p.device})
        if (c) ymax = std::max(ymax, Figures::ratio(p.raw, c));
    bars += g.planes.size() + 1;
    groups.push_back(std::move(g));
  }
  const double lo = -0.5, hi = std::ceil(std::log2(ymax));  // log2 axis from ratio 0.71 up
  const int gw = 42, h = 330, top = 40, left = 60, plot_h = 230;
  int w = left + int(bars) * gw + 180;
  auto ypos = [&](double ratio) {
    double v = std::clamp(std::log2(std::max(ratio, 1e-9)), lo, hi);
    return top + plot_h - int((v - lo) / (hi - lo) * plot_h);
  };
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
    << "' font-family='sans-serif' font-size='11'>\n<rect width='100%' height='100%' fill='white'/>\n";
  s << "<text x='" << left << "' y='20' font-size='14'>Per-plane compression ratio (log scale): " << r.path
    << "</text>\n";
  for (int e = 0; e <= int(hi); ++e) {
    int py = ypos(std::ldexp(1.0, e));
    s << "<line x1='" << left << "' x2='" << w - 170 << "' y1='" << py << "' y2='" << py << "' stroke='"
      << (e == 0 ? "#888" : "#ddd") << "'/><text x='" << left - 8 << "' y='" << py + 4
      << "' text-anchor='end'>" << num(std::ldexp(1.0, e)) << "</text>\n";
  }
  const char* colors[3] = {"#4e79a7", "#f28e2b", "#59a14f"};
  int x = left;
  const int base = ypos(1.0);
  for (const auto& g : groups) {
    s << "<text x='" << x << "' y='" << top + plot_h + 34 << "'>" << g.dt << "</text>\n";
    for (const auto& [id, p] : g.planes) {
      uint64_t v[3] = {p.lz4, p.zstd, p.device};
      for (int k = 0; k < 3; ++k) {
        if (!v[k]) continue;
        double rt = Figures::ratio(p.raw, v[k]);
        int y = ypos(rt), y0 = std::min(y, base), bh = std::max(1, std::abs(base - y));
        s << "<rect x='" << x + 4 + k * 11 << "' y='" << y0 << "' width='10' height='" << bh << "' fill='"
          << colors[k] << "'><title>" << plane_name(id) << ": " << num(rt) << "</title></rect>\n";
      }
      s << "<text x='" << x + 18 << "' y='" << top + plot_h + 14 << "' text-anchor='middle'>" << plane_name(id)
        << "</text>\n";
      x += gw;
    }
    x += gw;
  }
  const char* labels[3] = {"bit-plane LZ4", "bit-plane ZSTD", "device image"};
  for (int k = 0; k < 3; ++k)
    s << "<rect x='" << w - 160 << "' y='" << top + 18 * k << "' width='12' height='12' fill='" << colors[k]
      << "'/><text x='" << w - 142 << "' y='" << top + 10 + 18 * k << "'>" << labels[k] << "</text>\n";
  s << "</svg>\n";
  std::ofstream f(path, std::ios::binary);
  if (!f) return Status::Error("cannot write plot " + path);
  f << s.str();
  if (!f.good()) return Status::Error("error writing plot " + path);
  return Status::Ok();
}

}  // namespace ndp
