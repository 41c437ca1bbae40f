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
  double max_seconds = 2.0;       // wall-clock limit for sampling (after warm-up)
  double target_rel_err = 0.005;  // stop when the relative standard error of the mean is below this
  bool flush_l2 = true;           // write a buffer of >= 2x the L2 size before every sample
};

struct Timing {
  std::vector<double> samples_ms;
  double median_ms = 0, min_ms = 0, max_ms = 0, mean_ms = 0, stdev_ms = 0;
  double rel_err = 0;        // stdev / sqrt(n) / mean: relative standard error of the mean
  std::string stop_reason;   // "converged" | "time limit" | "sample limit"
  // Relative spread (max-min over median, in the interquartile sense): (p75 - p25) / median.
  double iqr_rel = 0;
};

// Times fn(stream). fn must enqueue its work on the stream it is given and nothing else.
Timing time_on_stream(const std::function<void(cudaStream_t)>& fn, cudaStream_t stream,
                      const TimerOptions& opt = {});

// Two kernels timed against each other on one stream: samples alternate in the order A B B A A B B A ... (each
// pair flips, so a drift over the run weighs on both alike), every one timed as time_on_stream times one, after
// the L2 flush. Both are warmed up first; sampling stops when both means are stable or a limit is hit
// (max_samples counts the samples of each). samples_ms[i] of A and of B come from the same pair.
struct PairedTiming {
  Timing a, b;
};
PairedTiming time_interleaved(const std::function<void(cudaStream_t)>& a, const std::function<void(cudaStream_t)>& b,
                              cudaStream_t stream, const TimerOptions& opt = {});

// Summary statistics of arbitrary samples (exposed for tests and for A/B comparisons).
Timing summarize(std::vector<double> samples_ms, std::string stop_reason);

}  // namespace kforge
