// The one measurement core: CUDA events around each sample, warm-up, L2 flushed before every sample, samples
// until the estimate is stable or a time limit is hit. Every command that reports a time goes through here.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

namespace kforge {

struct TimerOptions {
  int warmup = 3;                 // untimed runs first (module load, lazy init, cuDNN autotuning)
  int min_samples = 10;
  int max_samples = 200;
  double max_seconds = 2.0;       // wall-clock limit for sampling (after warm-up; settle_ms not counted)
  double target_rel_err = 0.005;  // stop when the relative standard error of the mean is below this
  bool flush_l2 = true;           // write a buffer of >= 2x the L2 size before every sample
  int samples_per_visit = 1;      // time_round_robin: samples of a kernel in a row each time its turn comes
  double settle_ms = 0;           // time_round_robin: untimed runs of a kernel for this long before a turn's samples
                                  // (not in max_seconds; the run stops once settling passes 4x max_seconds)
};

struct Timing {
  std::vector<double> samples_ms;
  double median_ms = 0, min_ms = 0, max_ms = 0, mean_ms = 0, stdev_ms = 0;
  double rel_err = 0;        // stdev / sqrt(n) / mean: relative standard error of the mean
  std::string stop_reason;   // "converged" | "time limit" | "sample limit" | "settle limit"
  // Relative spread (max-min over median, in the interquartile sense): (p75 - p25) / median.
  double iqr_rel = 0;
  // time_round_robin: the kernel timed just before each sample (its index; -1 for none). Empty when timed alone.
  std::vector<int> preceded_by;
};

// Times fn(stream). fn must enqueue its work on the stream it is given and nothing else.
Timing time_on_stream(const std::function<void(cudaStream_t)>& fn, cudaStream_t stream,
                      const TimerOptions& opt = {});

// Kernels timed against each other on one stream, round-robin: each round runs every kernel once, in the order
// round_robin_order gives, so a drift over the run (a board heating up to its power cap) weighs on all alike, and
// each kernel follows every other one equally often (on a power-capped board a sample's clock depends on the kernel
// before it). Every sample is timed as time_on_stream times one, after the L2 flush. All are warmed up first;
// sampling stops when every mean is stable or a limit is hit (max_samples counts the samples of each, max_seconds the
// whole run). Each turn takes samples_per_visit samples in a row (the later ones follow the kernel itself), so
// samples_ms[i] of every kernel come from the same round i / samples_per_visit. With settle_ms, each turn first runs
// its kernel untimed (flush and all, as a sample) until that much wall time has passed: every sample then follows
// the kernel itself, at the clock its own power draw settles to, while the rounds still spread a slow drift evenly.
std::vector<Timing> time_round_robin(const std::vector<std::function<void(cudaStream_t)>>& fns, cudaStream_t stream,
                                     const TimerOptions& opt = {});

// The order of round `round` of n kernels: a Williams design (a Latin square balanced for carry-over). Over a cycle
// of n rounds (2n for odd n) each kernel takes each place equally often and, within the rounds, directly follows
// every other kernel equally often (once for even n, twice for odd). Two kernels: 0 1, 1 0, 0 1, ...
std::vector<size_t> round_robin_order(size_t n, size_t round);

// Two kernels round-robin (A B B A A B B A ...): `kforge compare`'s A/B.
struct PairedTiming {
  Timing a, b;
};
PairedTiming time_interleaved(const std::function<void(cudaStream_t)>& a, const std::function<void(cudaStream_t)>& b,
                              cudaStream_t stream, const TimerOptions& opt = {});

// Summary statistics of arbitrary samples (exposed for tests and for A/B comparisons).
Timing summarize(std::vector<double> samples_ms, std::string stop_reason);

}  // namespace kforge
