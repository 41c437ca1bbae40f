// Reading a kernel's ncu metrics: the first name of each quantity that the report holds wins, stall reasons come
// from one metric family (never mixed), and the classification is a pure function of the numbers.
#include "tools/profile_classify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>

namespace kforge {
namespace {

std::optional<double> first_of(const NcuKernel& k, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const auto v = k.value(n)) return v;
  return std::nullopt;
}

// The busiest tensor pipe: ncu names them by instruction family (hmma for mma.sync, gmma for wgmma on sm_90).
std::optional<double> tensor_pipe_pct(const NcuKernel& k) {
  static const std::regex kTensor(R"(sm__pipe_tensor\w*_cycles_active\.avg\.pct_of_peak_sustained_active)");
  std::optional<double> best;
  for (const auto& [name, m] : k.metrics)
    if (m.value && std::regex_match(name, kTensor)) best = std::max(best.value_or(0.0), *m.value);
  return best;
}

// Stall reasons from the first metric family present (each family has one unit), as shares of their sum.
void read_stalls(const NcuKernel& k, KernelProfile& p) {
  static const std::pair<const char*, std::regex> kFamilies[] = {
      {"smsp__average_warps_issue_stalled_*_per_issue_active.ratio",
       std::regex(R"(smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio)")},
      {"smsp__average_warp_latency_issue_stalled_*.ratio",
       std::regex(R"(smsp__average_warp_latency_issue_stalled_(\w+)\.ratio)")},
      {"smsp__average_warp_latency_issue_stalled_*.pct",
       std::regex(R"(smsp__average_warp_latency_issue_stalled_(\w+)\.pct)")},
      {"smsp__average_warp_latency_issue_stalled_*", std::regex(R"(smsp__average_warp_latency_issue_stalled_(\w+))")},
      {"smsp__pcsamp_warps_issue_stalled_*", std::regex(R"(smsp__pcsamp_warps_issue_stalled_(\w+))")},
  };
  for (const auto& [family, pattern] : kFamilies) {
    std::vector<StallShare> stalls;
    double total = 0;
    for (const auto& [name, m] : k.metrics) {
      std::smatch match;
      if (!m.value || !std::regex_match(name, match, pattern)) continue;
      const std::string reason = match[1];
      // "selected" is a warp issuing, not stalled; pc sampling also counts "<reason>_not_issued" separately.
      if (reason == "selected" || reason.ends_with("_not_issued")) continue;
      stalls.push_back({reason, *m.value});
      total += *m.value;
    }
    if (stalls.empty() || total <= 0) continue;
    for (StallShare& s : stalls) s.share /= total;
    std::sort(stalls.begin(), stalls.end(), [](const StallShare& a, const StallShare& b) {
      return a.share != b.share ? a.share > b.share : a.reason < b.reason;
    });
    p.stalls = std::move(stalls);
    p.stall_metrics = family;
    return;
  }
}

std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:.0f}%", *v) : "n/a"; }

std::string top_stalls(const KernelProfile& p, size_t n) {
  if (p.stalls.empty()) return "no stall breakdown";
  std::string s = "top stalls ";
  for (size_t i = 0; i < std::min(n, p.stalls.size()); ++i)
    s += fmt::format("{}{} {:.0f}%", i ? ", " : "", p.stalls[i].reason, p.stalls[i].share * 100);
  return s;
}

double compute_pct(const KernelProfile& p) { return std::max(p.sm_pct.value_or(0.0), p.tensor_pct.value_or(0.0)); }

}  // namespace

double KernelProfile::sync_share() const {
  double s = 0;
  for (const StallShare& st : stalls)
    if (st.reason == "barrier" || st.reason == "membar") s += st.share;
  return s;
}

nlohmann::json KernelProfile::to_json() const {
  const auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json stall_list = nlohmann::json::array();
  for (const StallShare& s : stalls) stall_list.push_back({{"reason", s.reason}, {"share", s.share}});
  return {{"kernel", kernel},
          {"block", block},
          {"grid", grid},
          {"duration_s", opt(duration_s)},
          {"sm_throughput_pct", opt(sm_pct)},
          {"memory_throughput_pct", opt(memory_pct)},
          {"dram_throughput_pct", opt(dram_pct)},
          {"dram_bytes_per_s", opt(dram_bytes_per_s)},
          {"achieved_occupancy_pct", opt(occupancy_pct)},
          {"theoretical_occupancy_pct", opt(theoretical_occupancy_pct)},
          {"tensor_pipe_pct", opt(tensor_pct)},
          {"stalls", stall_list},
          {"stall_metrics", stall_metrics},
          {"sync_share", sync_share()}};
}

KernelProfile read_profile(const NcuKernel& k) {
  KernelProfile p;
  p.kernel = k.name();
  const auto fact = [&](const char* name) {
    const auto it = k.launch.find(name);
    return it == k.launch.end() ? std::string() : it->second;
  };
  p.block = fact("Block Size");
  p.grid = fact("Grid Size");
  p.duration_s = first_of(k, {"gpu__time_duration.sum"});
  p.sm_pct = first_of(k, {"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  p.memory_pct = first_of(k, {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"});
  p.dram_pct = first_of(k, {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                            "dram__throughput.avg.pct_of_peak_sustained_elapsed"});
  p.dram_bytes_per_s = first_of(k, {"dram__bytes.sum.per_second"});
  if (!p.dram_bytes_per_s && p.duration_s && *p.duration_s > 0) {
    const auto read = k.value("dram__bytes_read.sum"), written = k.value("dram__bytes_write.sum");
    if (const auto total = first_of(k, {"dram__bytes.sum"})) p.dram_bytes_per_s = *total / *p.duration_s;
    else if (read && written) p.dram_bytes_per_s = (*read + *written) / *p.duration_s;
  }
  p.occupancy_pct = first_of(k, {"sm__warps_active.avg.pct_of_peak_sustained_active"});
  p.theoretical_occupancy_pct = first_of(k, {"sm__maximum_warps_per_active_cycle_pct"});
  p.tensor_pct = tensor_pipe_pct(k);
  read_stalls(k, p);
  return p;
}

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::memory: return "memory-bound";
    case Bound::compute: return "compute-bound";
    case Bound::latency: return "latency-bound";
    case Bound::sync: return "sync-bound";
    case Bound::unknown: break;
  }
  return "unclassified";
}

Bound classify(const KernelProfile& p, const BoundThresholds& t) {
  if (!p.sm_pct || !p.memory_pct) return Bound::unknown;
  const double compute = compute_pct(p);
  if (std::max(*p.memory_pct, compute) >= t.busy_pct) return *p.memory_pct >= compute ? Bound::memory : Bound::compute;
  if (p.sync_share() >= t.sync_share) return Bound::sync;
  return Bound::latency;
}

std::string reading(const KernelProfile& p, Bound b, const BoundThresholds& t) {
  const std::string dram =
      p.dram_bytes_per_s ? fmt::format("DRAM {} = {:.2f} TB/s", pct(p.dram_pct), *p.dram_bytes_per_s / 1e12)
                         : fmt::format("DRAM {}", pct(p.dram_pct));
  const std::string facts = fmt::format(
      "memory throughput {} of peak ({}), SM {}, tensor pipes {}; achieved occupancy {} (theoretical {}); {}; "
      "duration {}.",
      pct(p.memory_pct), dram, pct(p.sm_pct), pct(p.tensor_pct), pct(p.occupancy_pct),
      pct(p.theoretical_occupancy_pct), top_stalls(p, 3),
      p.duration_s ? fmt::format("{:.3f} ms", *p.duration_s * 1e3) : "n/a");
  switch (b) {
    case Bound::memory:
      return fmt::format("{}: {} The memory system is the limiter (at or above {:.0f}% of its peak, ahead of "
                         "compute): only moving fewer bytes helps (reuse through shared memory or L2, fusion, "
                         "narrower types, no redundant re-reads).",
                         bound_name(b), facts, t.busy_pct);
    case Bound::compute:
      return fmt::format("{}: {} The SM's pipes are the limiter (at or above {:.0f}% of peak, ahead of memory): "
                         "only fewer or cheaper instructions help (tensor cores for the math, less index and "
                         "address arithmetic per output, hoisting loop-invariant work).",
                         bound_name(b), facts, t.busy_pct);
    case Bound::sync:
      return fmt::format("{}: {} Neither memory nor the pipes reach {:.0f}% of peak, and {:.0f}% of stall cycles "
                         "are at barriers or fences: warps wait for each other. Fewer barriers per unit of work "
                         "(larger steps between __syncthreads, producer/consumer warps with mbarriers, "
                         "warp-level exchange instead of CTA-wide) help.",
                         bound_name(b), facts, t.busy_pct, p.sync_share() * 100);
    case Bound::latency:
      return fmt::format("{}: {} Neither memory nor the pipes reach {:.0f}% of peak and barriers do not dominate "
                         "the stalls: warps wait on the latency of single operations (see the top stall). More "
                         "work in flight helps: occupancy, independent instructions per thread, deeper "
                         "asynchronous copy pipelines.",
                         bound_name(b), facts, t.busy_pct);
    case Bound::unknown: break;
  }
  return fmt::format("{}: {} ncu returned no speed-of-light throughputs (sm__throughput, "
                     "gpu__compute_memory_throughput), so the kernel cannot be classified.",
                     bound_name(b), facts);
}

}  // namespace kforge
