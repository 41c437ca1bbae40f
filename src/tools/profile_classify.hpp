// What one Nsight Compute profile of a kernel says: the numbers a kernel author reads first (speed-of-light
// throughputs, DRAM rate, occupancy, tensor pipes, where warps stall) picked out of ncu's raw metrics, and a
// classification as memory-, compute-, latency- or sync-bound with a one-paragraph reading.
// Limits: one kernel launch at a time; the thresholds are rules of thumb (below), not a model of the hardware.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tools/profile_csv.hpp"

namespace kforge {

// A warp stall reason and its share of all stalled warp cycles (0..1).
struct StallShare {
  std::string reason;  // ncu's name: long_scoreboard, barrier, math_pipe_throttle, ...
  double share = 0;
};

struct KernelProfile {
  std::string kernel, block, grid;           // as ncu names them
  std::optional<double> duration_s;          // gpu__time_duration.sum
  std::optional<double> sm_pct;              // compute speed of light: sm__throughput, % of peak
  std::optional<double> memory_pct;          // memory speed of light: gpu__compute_memory_throughput, % of peak
  std::optional<double> dram_pct;            // DRAM throughput, % of peak
  std::optional<double> dram_bytes_per_s;    // DRAM bytes moved per second
  std::optional<double> occupancy_pct;       // achieved: sm__warps_active, % of the SM's warp slots
  std::optional<double> theoretical_occupancy_pct;
  std::optional<double> tensor_pct;          // the busiest tensor pipe, % of its peak while the SM is active
  std::vector<StallShare> stalls;            // largest first; "selected" (a warp issuing) is not a stall
  std::string stall_metrics;                 // the ncu metric family the stalls were read from

  // Share of stall cycles spent at CTA barriers (ncu's "barrier") and memory fences ("membar").
  double sync_share() const;
  nlohmann::json to_json() const;
};

// Picks the profile's numbers out of one kernel's metrics, accepting the names ncu 2023-2026 use on sm_80/sm_90
// (gpu__dram_throughput or dram__throughput; stalls from smsp__average_warps_issue_stalled_*_per_issue_active,
// smsp__average_warp_latency_issue_stalled_* or the smsp__pcsamp_warps_issue_stalled_* samples).
KernelProfile read_profile(const NcuKernel& kernel);

enum class Bound { memory, compute, latency, sync, unknown };
const char* bound_name(Bound b);  // "memory-bound", ...

struct BoundThresholds {
  // A unit at or above this % of its peak throughput limits the kernel. Nsight Compute's own speed-of-light rule
  // reads throughputs below 60% on both sides as "typically latency issues".
  double busy_pct = 60.0;
  // Barrier + membar stalls at or above this share of all stall cycles make a kernel that no unit limits
  // sync-bound: its warps mostly wait for each other rather than for memory or a pipe.
  double sync_share = 0.40;
};

// memory / compute: the busier of memory and compute (max of SM and tensor pipe) is at or above busy_pct;
// else sync when barrier + membar stalls reach sync_share; else latency. unknown when ncu gave no throughputs.
Bound classify(const KernelProfile& p, const BoundThresholds& t = {});

// One paragraph: the class, the numbers behind it, the top stalls, and what kind of change can help.
std::string reading(const KernelProfile& p, Bound b, const BoundThresholds& t = {});

}  // namespace kforge
