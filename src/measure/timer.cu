// The measurement core: per-sample CUDA events, an L2 flush before every sample, adaptive sample count.
// Limits: one stream; each sample synchronizes (so launch gaps between samples are never measured, and
// back-to-back overlap between samples is impossible by design); the flush buffer is allocated once per
// device and kept for the life of the process.
#include "measure/timer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>

#include "core/cuda_check.hpp"

namespace kforge {
namespace {

// A device buffer larger than the L2 (max(2 x L2, 64 MiB)), per device, allocated on first use.
// Writing all of it before a sample evicts whatever the previous sample left in L2, so every sample
// starts cold, as a kernel inside a real network does.
struct FlushBuffer {
  void* data = nullptr;
  size_t bytes = 0;
};

FlushBuffer flush_buffer_for_current_device() {
  static std::mutex mu;
  static std::map<int, FlushBuffer> buffers;  // intentionally never freed: CUDA may be torn down before static dtors
  int device = 0;
  KF_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mu);
  FlushBuffer& b = buffers[device];
  if (!b.data) {
    int l2_bytes = 0;
    KF_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    b.bytes = std::max<size_t>(2 * static_cast<size_t>(l2_bytes), size_t{64} << 20);
    KF_CUDA_CHECK(cudaMalloc(&b.data, b.bytes));
  }
  return b;
}

// A start/stop event pair, destroyed even when fn throws.
class EventPair {
 public:
  EventPair() {
    KF_CUDA_CHECK(cudaEventCreate(&start_));
    KF_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Running mean and variance (Welford), so the stopping rule costs O(1) per sample.
struct RunningStats {
  int64_t n = 0;
  double mean = 0, m2 = 0;
  void add(double x) {
    ++n;
    const double delta = x - mean;
    mean += delta / static_cast<double>(n);
    m2 += delta * (x - mean);
  }
  double stdev() const { return n > 1 ? std::sqrt(m2 / static_cast<double>(n - 1)) : 0.0; }
  bool converged(double target_rel_err) const;
};

// Relative standard error of the mean; 0 for a single sample or an all-zero run (nothing left to estimate).
double relative_standard_error(double stdev, int64_t n, double mean) {
  if (n < 1 || mean == 0.0) return 0.0;
  return stdev / std::sqrt(static_cast<double>(n)) / mean;
}

bool RunningStats::converged(double target_rel_err) const {
  return relative_standard_error(stdev(), n, mean) < target_rel_err;
}

// Percentile of sorted data by linear interpolation between closest ranks (numpy's default, "type 7").
double percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

void validate(const TimerOptions& opt) {
  if (opt.warmup < 0) throw Error("time_on_stream: expected warmup >= 0, but got " + std::to_string(opt.warmup));
  if (opt.min_samples < 1)
    throw Error("time_on_stream: expected min_samples >= 1, but got " + std::to_string(opt.min_samples));
  if (!(opt.settle_ms >= 0))
    throw Error("time_on_stream: expected settle_ms >= 0, but got " + std::to_string(opt.settle_ms));
  if (opt.samples_per_visit < 1)
    throw Error("time_on_stream: expected samples_per_visit >= 1, but got " + std::to_string(opt.samples_per_visit));
  if (opt.max_samples < opt.min_samples) {
    throw Error("time_on_stream: expected max_samples >= min_samples (" + std::to_string(opt.min_samples) +
                "), but got " + std::to_string(opt.max_samples));
  }
}

// One timed sample: the L2 flush, then fn between two events. The flush is enqueued before the start event, so
// it is outside the timed region; it also keeps the GPU busy while the host enqueues fn, so fn's host-side launch
// cost (up to the flush's ~30 us) is not timed.
class Sampler {
 public:
  Sampler(cudaStream_t stream, bool flush_l2)
      : stream_(stream), flush_(flush_l2 ? flush_buffer_for_current_device() : FlushBuffer{}) {}
  double sample(const std::function<void(cudaStream_t)>& fn) const {
    if (flush_.data) KF_CUDA_CHECK(cudaMemsetAsync(flush_.data, 0, flush_.bytes, stream_));
    KF_CUDA_CHECK(cudaEventRecord(events_.start(), stream_));
    fn(stream_);
    KF_CUDA_CHECK(cudaEventRecord(events_.stop(), stream_));
    KF_CUDA_CHECK(cudaEventSynchronize(events_.stop()));
    float ms = 0;
    KF_CUDA_CHECK(cudaEventElapsedTime(&ms, events_.start(), events_.stop()));
    return ms;
  }

 private:
  cudaStream_t stream_;
  FlushBuffer flush_;
  EventPair events_;
};

// When sampling stops: converged after min_samples, or a sample or time limit (the clock starts after warm-up and
// leaves out the settling of time_round_robin's turns, so settle_ms does not eat the sampling budget).
class StopRule {
 public:
  using Clock = std::chrono::steady_clock;
  explicit StopRule(const TimerOptions& opt) : opt_(opt), began_(Clock::now()) {}
  // Settling is left out of the sampling time, up to kSettleShare times max_seconds in all: past that it stops the
  // run. Without the bound a short kernel paid a settle per sample (200 rounds x 8 kernels x 100 ms for a 0.3 ms
  // conv with a noisy cuDNN row that never converges: over 5 minutes for one case, 2026-12-03 22:40 UTC).
  static constexpr double kSettleShare = 4;
  void leave_out(Clock::duration settling) {
    began_ += settling;
    settled_ += settling;
  }
  // "" to go on, else the stop reason; `n` samples taken so far (of each kernel).
  std::string reason(int64_t n, bool converged) const {
    if (n >= opt_.min_samples && converged) return "converged";
    if (n >= opt_.max_samples) return "sample limit";
    if (std::chrono::duration<double>(Clock::now() - began_).count() > opt_.max_seconds) return "time limit";
    if (std::chrono::duration<double>(settled_).count() > kSettleShare * opt_.max_seconds) return "settle limit";
    return "";
  }

 private:
  const TimerOptions& opt_;
  Clock::time_point began_;
  Clock::duration settled_{0};
};

}  // namespace

Timing summarize(std::vector<double> samples_ms, std::string stop_reason) {
  if (samples_ms.empty()) throw Error("summarize: expected at least one sample, but got none");
  Timing t;
  RunningStats stats;
  for (double s : samples_ms) stats.add(s);
  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  t.median_ms = percentile(sorted, 0.5);
  t.min_ms = sorted.front();
  t.max_ms = sorted.back();
  t.mean_ms = stats.mean;
  t.stdev_ms = stats.stdev();
  t.rel_err = relative_standard_error(t.stdev_ms, stats.n, t.mean_ms);
  t.iqr_rel = t.median_ms > 0 ? (percentile(sorted, 0.75) - percentile(sorted, 0.25)) / t.median_ms : 0.0;
  t.samples_ms = std::move(samples_ms);
  t.stop_reason = std::move(stop_reason);
  return t;
}

Timing time_on_stream(const std::function<void(cudaStream_t)>& fn, cudaStream_t stream, const TimerOptions& opt) {
  validate(opt);
  const Sampler sampler(stream, opt.flush_l2);
  for (int i = 0; i < opt.warmup; ++i) fn(stream);
  KF_CUDA_CHECK(cudaStreamSynchronize(stream));

  const StopRule stop(opt);
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(std::min(opt.max_samples, 4096)));
  RunningStats stats;
  std::string stop_reason;
  while (stop_reason.empty()) {
    const double ms = sampler.sample(fn);
    samples.push_back(ms);
    stats.add(ms);
    stop_reason = stop.reason(stats.n, stats.converged(opt.target_rel_err));
  }
  return summarize(std::move(samples), std::move(stop_reason));
}

std::vector<size_t> round_robin_order(size_t n, size_t round) {
  if (n == 0) return {};
  // Williams' first row 0, 1, n-1, 2, n-2, ...: its neighbours' differences (1, -2, 3, -4, ...) are distinct mod n
  // for even n, so adding r mod n to it (row r) makes every ordered pair adjacent exactly once over n rows. For odd
  // n the differences repeat up to sign; the n rows read backwards add the missing pairs.
  std::vector<size_t> order(n);
  for (size_t i = 0, lo = 1, hi = n - 1; i < n; ++i)
    order[i] = i == 0 ? 0 : i % 2 == 1 ? lo++ : hi--;
  const size_t shift = round % n;
  for (size_t& k : order) k = (k + shift) % n;
  if (n % 2 == 1 && (round / n) % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

std::vector<Timing> time_round_robin(const std::vector<std::function<void(cudaStream_t)>>& fns, cudaStream_t stream,
                                     const TimerOptions& opt) {
  validate(opt);
  if (fns.empty()) throw Error("time_round_robin: expected at least one kernel, but got none");
  const size_t n = fns.size();
  const Sampler sampler(stream, opt.flush_l2);
  for (int i = 0; i < opt.warmup; ++i)
    for (const auto& fn : fns) fn(stream);
  KF_CUDA_CHECK(cudaStreamSynchronize(stream));

  StopRule stop(opt);
  std::vector<std::vector<double>> samples(n);
  std::vector<RunningStats> stats(n);
  std::vector<std::vector<int>> preceded_by(n);
  int previous = opt.warmup > 0 ? static_cast<int>(n) - 1 : -1;  // the warm-up ends with the last kernel
  std::string stop_reason;
  for (size_t round = 0; stop_reason.empty(); ++round) {
    for (const size_t k : round_robin_order(n, round)) {
      if (opt.settle_ms > 0) {  // by wall time: a kernel too short to add up to settle_ms still stops
        const auto began = StopRule::Clock::now();
        do sampler.sample(fns[k]);
        while (std::chrono::duration<double, std::milli>(StopRule::Clock::now() - began).count() < opt.settle_ms);
        stop.leave_out(StopRule::Clock::now() - began);
        previous = static_cast<int>(k);
      }
      for (int visit = 0; visit < opt.samples_per_visit; ++visit) {
        const double ms = sampler.sample(fns[k]);
        samples[k].push_back(ms);
        stats[k].add(ms);
        preceded_by[k].push_back(previous);
        previous = static_cast<int>(k);
      }
    }
    const bool converged = std::all_of(stats.begin(), stats.end(),
                                       [&](const RunningStats& st) { return st.converged(opt.target_rel_err); });
    stop_reason = stop.reason(stats[0].n, converged);
  }
  std::vector<Timing> out;
  for (size_t k = 0; k < n; ++k) {
    out.push_back(summarize(std::move(samples[k]), stop_reason));
    out.back().preceded_by = std::move(preceded_by[k]);
  }
  return out;
}

PairedTiming time_interleaved(const std::function<void(cudaStream_t)>& a, const std::function<void(cudaStream_t)>& b,
                              cudaStream_t stream, const TimerOptions& opt) {
  std::vector<Timing> t = time_round_robin({a, b}, stream, opt);
  return {std::move(t[0]), std::move(t[1])};
}

}  // namespace kforge
