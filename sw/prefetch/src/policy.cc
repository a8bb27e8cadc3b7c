// The tier model, 10Cache's prefetch table, the fixed window and TOCP's DAP window (prefetch.h).
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "ndp/prefetch/prefetch.h"

namespace ndp::pf {

double TierModel::transfer_s(uint64_t bytes, double t, double u) const {
  double bw = std::min(cxl.gbps, h2d.gbps) * 1e9;
  if (interference > 0 && period_s > 0 && std::fmod(t, period_s) < period_s / 2) bw *= 1.0 - interference;
  bw *= 1.0 + jitter * (2.0 * u - 1.0);
  return cxl.latency_s + h2d.latency_s + double(bytes) / bw;
}

std::vector<PrefetchRow> build_prefetch_table(const AccessTrace& t, uint32_t iterations) {
  std::vector<PrefetchRow> rows;
  rows.reserve(t.uses.size() * iterations);
  for (uint32_t it = 0; it < iterations; ++it)
    for (const Use& u : t.uses)
      rows.push_back(PrefetchRow{u.tensor, t.tensors[u.tensor].bytes, u.compute_s, t.tensors[u.tensor].role, ~0ull});
  std::map<uint32_t, uint64_t> seen;  // tensor -> the use after the current scan position
  for (uint64_t i = rows.size(); i-- > 0;) {
    auto it = seen.find(rows[i].tensor);
    if (it != seen.end()) rows[i].next_use = it->second;
    seen[rows[i].tensor] = i;
  }
  return rows;
}

namespace {

class Fixed final : public WindowPolicy {
 public:
  explicit Fixed(uint32_t n) : n_(n) {}
  std::string name() const override { return n_ ? "fixed_" + std::to_string(n_) : "none"; }
  uint32_t window(uint64_t) override { return n_; }

 private:
  uint32_t n_;
};

// Running statistics of the latest N values.
class Recent {
 public:
  explicit Recent(size_t n) : n_(n) {}
  void add(double v) {
    v_.push_back(v);
    if (v_.size() > n_) v_.pop_front();
  }
  // Coefficient of variation (std / mean); 0 with fewer than two values.
  double cv() const {
    if (v_.size() < 2) return 0;
    double m = 0, q = 0;
    for (double x : v_) m += x;
    m /= double(v_.size());
    for (double x : v_) q += (x - m) * (x - m);
    return m > 0 ? std::sqrt(q / double(v_.size())) / m : 0;
  }

 private:
  size_t n_;
  std::deque<double> v_;
};

class Dap final : public WindowPolicy {
 public:
  Dap(const std::vector<PrefetchRow>& t, const TierModel& tier, DapOptions o)
      : t_(t), tier_(tier), o_(o), transfer_err_(o.history), compute_err_(o.history) {}
  std::string name() const override { return "dap"; }

  uint32_t window(uint64_t use) override {
    const double margin = o_.margin_min + (1.0 - stability()) * (o_.margin_max - o_.margin_min);
    double compute = 0, transfer = 0;
    uint64_t bytes = 0;
    uint32_t best = 1;
    std::vector<uint32_t> counted;
    // The next decision comes when the current use ends, so tensor j must be issued now when the
    // compute between that moment and j's start (uses use+1 .. j-1) cannot hide the transfers.
    for (uint64_t j = use + 1; j < t_.size() && j - use <= o_.max_window; ++j) {
      if (j - 1 > use) compute += t_[j - 1].compute_s * compute_ratio_;
      const uint32_t tensor = t_[j].tensor;
      if (std::find(counted.begin(), counted.end(), tensor) == counted.end()) {
        counted.push_back(tensor);
        transfer += tier_.transfer_s(t_[j].bytes, 0, 0.5) * transfer_ratio_;
        bytes += t_[j].bytes;
        if (o_.budget_bytes && double(bytes) > o_.memory_share * double(o_.budget_bytes)) break;
      }
      if (transfer * (1.0 + margin) > compute) best = uint32_t(j - use);
    }
    return best;
  }
  void on_transfer(uint64_t, double predicted, double seconds) override {
    const double r = predicted > 0 ? seconds / predicted : 1.0;
    transfer_ratio_ = (1 - o_.ewma) * transfer_ratio_ + o_.ewma * r;
    transfer_err_.add(r);
  }
  void on_compute(uint64_t use, double seconds) override {
    const double r = t_[use].compute_s > 0 ? seconds / t_[use].compute_s : 1.0;
    compute_ratio_ = (1 - o_.ewma) * compute_ratio_ + o_.ewma * r;
    compute_err_.add(r);
    run_ = use > 0 && t_[use - 1].role == t_[use].role ? run_ + 1 : 1;
  }

 private:
  // TOCP eq. (1): alpha x (consecutive same-op count / N) + beta x (1 - variability). Variability
  // here is the coefficient of variation of measured / predicted time over the latest N transfers
  // and computations (unit-free, and zero when the predictions hold).
  double stability() const {
    const double same = std::min<double>(run_, o_.history) / double(o_.history);
    const double var = std::min(1.0, std::max(transfer_err_.cv(), compute_err_.cv()));
    return std::clamp(o_.alpha * same + o_.beta * (1.0 - var), 0.0, 1.0);
  }
  const std::vector<PrefetchRow>& t_;
  TierModel tier_;
  DapOptions o_;
  double transfer_ratio_ = 1.0, compute_ratio_ = 1.0;
  Recent transfer_err_, compute_err_;
  uint32_t run_ = 0;
};

}  // namespace

std::unique_ptr<WindowPolicy> fixed_window(uint32_t n) { return std::make_unique<Fixed>(n); }
std::unique_ptr<WindowPolicy> dap_window(const std::vector<PrefetchRow>& table, const TierModel& tier, DapOptions o) {
  return std::make_unique<Dap>(table, tier, o);
}

}  // namespace ndp::pf
