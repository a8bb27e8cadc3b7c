// SVG plot of a serving-model Report: decode tokens/s against context for the baseline and every
// NDP mode, each design's tier-full point marked (the layout of the paper's Fig. 10).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "ndp/serving.h"
#include "serving_internal.h"

namespace ndp::serve {
namespace {

constexpr const char* kColors[] = {"#444444", "#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                   "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7"};
constexpr int kPoints = 160;

struct Frame {
  int left = 70, top = 40, w = 640, h = 340;
  double xmax = 1, ymax = 1;
  double x(double ctx) const { return left + ctx / xmax * w; }
  double y(double tok) const { return top + h - tok / ymax * h; }
};

// "Nice" tick step for an axis spanning 0..v with about n ticks.
double tick_step(double v, int n) {
  const double raw = v / n, mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

void axes(std::ostringstream& s, const Frame& f, const Report& r) {
  const double xs = tick_step(f.xmax, 8), ys = tick_step(f.ymax, 6);
  for (double v = 0; v <= f.xmax + 1e-9; v += xs)
    s << "<line x1='" << f.x(v) << "' x2='" << f.x(v) << "' y1='" << f.top << "' y2='" << f.top + f.h
      << "' stroke='#eee'/><text x='" << f.x(v) << "' y='" << f.top + f.h + 16 << "' text-anchor='middle'>"
      << fmt_num(v / 1000) << "k</text>\n";
  for (double v = 0; v <= f.ymax + 1e-9; v += ys)
    s << "<line x1='" << f.left << "' x2='" << f.left + f.w << "' y1='" << f.y(v) << "' y2='" << f.y(v)
      << "' stroke='#eee'/><text x='" << f.left - 6 << "' y='" << f.y(v) + 4 << "' text-anchor='end'>" << fmt_num(v)
      << "</text>\n";
  s << "<rect x='" << f.left << "' y='" << f.top << "' width='" << f.w << "' height='" << f.h
    << "' fill='none' stroke='#888'/>\n<text x='" << f.left + f.w / 2 << "' y='" << f.top + f.h + 36
    << "' text-anchor='middle'>context (tokens)</text>\n<text x='16' y='" << f.top + f.h / 2
    << "' transform='rotate(-90 16 " << f.top + f.h / 2 << ")' text-anchor='middle'>decode tokens/s (batch "
    << fmt_num(r.config.batch) << ")</text>\n<text x='" << f.left << "' y='22' font-size='14'>" << r.model
    << " on one GPU + " << fmt_num(r.config.tier_bytes / 1e9) << " GB CXL tier: decode throughput, tier-full points"
    << "</text>\n";
}

void series(std::ostringstream& s, const Frame& f, const DesignResult& d, const std::vector<uint64_t>& xs,
            const std::vector<std::optional<double>>& ys, const char* color, int index) {
  std::string pts;
  for (size_t i = 0; i < xs.size(); ++i)
    if (ys[i]) pts += fmt_num(f.x(double(xs[i]))) + "," + fmt_num(f.y(*ys[i])) + " ";
  // The baseline wide and light underneath: modes that match it stay visible on top.
  s << "<polyline fill='none' stroke='" << color << "' stroke-width='" << (index == 0 ? 5 : 2) << "' stroke-opacity='"
    << (index == 0 ? 0.45 : 1) << "' points='" << pts << "'><title>" << d.name << "</title></polyline>\n";
  s << "<rect x='" << f.left + f.w + 16 << "' y='" << f.top + 18 * index << "' width='12' height='12' fill='" << color
    << "'/><text x='" << f.left + f.w + 34 << "' y='" << f.top + 10 + 18 * index << "'>" << d.name << "</text>\n";
}

// One dashed line per distinct tier-full point, labelled with the designs that reach it.
void tier_full_marks(std::ostringstream& s, const Frame& f, const Report& r) {
  std::map<uint64_t, std::string> marks;
  for (const auto& d : r.designs)
    if (d.max_context > 0) marks[d.max_context] += (marks[d.max_context].empty() ? "" : ", ") + d.name;
  int row = 0;
  for (const auto& [ctx, names] : marks) {
    const double x = f.x(double(ctx));
    const bool right = x > f.left + 0.6 * f.w;
    s << "<line x1='" << x << "' x2='" << x << "' y1='" << f.top << "' y2='" << f.top + f.h
      << "' stroke='#333' stroke-dasharray='5 3'/><text x='" << (right ? x - 4 : x + 4) << "' y='"
      << f.top + 14 + 14 * row++ << "' text-anchor='" << (right ? "end" : "start") << "'>tier full at " << ctx << ": "
      << names << "</text>\n";
  }
}

}  // namespace

Status write_plot_svg(const Report& r, const std::string& path) {
  Frame f;
  double last = r.contexts.empty() ? 0 : double(*std::max_element(r.contexts.begin(), r.contexts.end()));
  for (const auto& d : r.designs) last = std::max(last, double(d.max_context));
  f.xmax = std::max(last * 1.15, r.config.page_tokens);
  std::vector<uint64_t> xs;
  for (int i = 1; i <= kPoints; ++i) {
    const double pages = std::ceil(f.xmax * i / kPoints / r.config.page_tokens);
    xs.push_back(static_cast<uint64_t>(pages * r.config.page_tokens));
  }
  std::vector<std::vector<std::optional<double>>> ys;
  f.ymax = 0;
  for (const auto& d : r.config.designs) {
    ys.emplace_back();
    for (uint64_t x : xs) {
      const auto st = best_step(r, d, x);
      ys.back().push_back(st ? std::optional<double>(st->tok_s) : std::nullopt);
      if (ys.back().back()) f.ymax = std::max(f.ymax, *ys.back().back());
    }
  }
  f.ymax = f.ymax > 0 ? f.ymax * 1.1 : 1;
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << f.left + f.w + 150 << "' height='" << f.top + f.h + 50
    << "' font-family='sans-serif' font-size='11'>\n<rect width='100%' height='100%' fill='white'/>\n";
  axes(s, f, r);
  for (size_t i = 0; i < r.designs.size(); ++i)
    series(s, f, r.designs[i], xs, ys[i], kColors[i % std::size(kColors)], int(i));
  tier_full_marks(s, f, r);
  s << "</svg>\n";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::Error("cannot write plot " + path);
  out << s.str();
  if (!out.good()) return Status::Error("error writing plot " + path);
  return Status::Ok();
}

}  // namespace ndp::serve
