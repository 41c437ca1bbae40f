// The measurement core: summary statistics on known samples (CPU), and time_on_stream on stream work of a known
// duration (GPU). The GPU "sleep" is a host function that spins on the stream: this file is compiled as C++,
// so it holds no kernel, and a host function's duration is exactly controllable.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include "core/cuda_check.hpp"
#include "gpu_test_util.hpp"
#include "measure/timer.hpp"

namespace kforge {
namespace {

TEST(Summarize, OddCountExactStatistics) {
  // Sorted: 1 2 3 4 10. Mean 4; squared deviations 9 4 1 0 36 -> sample variance 50/4.
  const Timing t = summarize({4, 1, 3, 2, 10}, "converged");
  EXPECT_DOUBLE_EQ(t.median_ms, 3.0);
  EXPECT_DOUBLE_EQ(t.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.max_ms, 10.0);
  EXPECT_DOUBLE_EQ(t.mean_ms, 4.0);
  EXPECT_DOUBLE_EQ(t.stdev_ms, std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(t.rel_err, std::sqrt(12.5) / std::sqrt(5.0) / 4.0);
  // p25 = 2, p75 = 4 (ranks 1 and 3 of 0..4): (4 - 2) / 3.
  EXPECT_DOUBLE_EQ(t.iqr_rel, 2.0 / 3.0);
  EXPECT_EQ(t.stop_reason, "converged");
  EXPECT_EQ(t.samples_ms, (std::vector<double>{4, 1, 3, 2, 10}));  // measurement order is kept
}

TEST(Summarize, EvenCountInterpolatesMedianAndQuartiles) {
  // Sorted 1 2 3 4: median between ranks 1 and 2; p25 at rank 0.75 -> 1.75; p75 at rank 2.25 -> 3.25.
  const Timing t = summarize({3, 1, 4, 2}, "time limit");
  EXPECT_DOUBLE_EQ(t.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(t.mean_ms, 2.5);
  EXPECT_DOUBLE_EQ(t.stdev_ms, std::sqrt(5.0 / 3.0));
  EXPECT_DOUBLE_EQ(t.iqr_rel, (3.25 - 1.75) / 2.5);
  EXPECT_EQ(t.stop_reason, "time limit");
}

TEST(Summarize, SingleSampleHasNoSpread) {
  const Timing t = summarize({0.5}, "sample limit");
  EXPECT_DOUBLE_EQ(t.median_ms, 0.5);
  EXPECT_DOUBLE_EQ(t.stdev_ms, 0.0);
  EXPECT_DOUBLE_EQ(t.rel_err, 0.0);
  EXPECT_DOUBLE_EQ(t.iqr_rel, 0.0);
}

TEST(Summarize, RefusesNoSamples) { EXPECT_THROW(summarize({}, "converged"), Error); }

TEST(TimeOnStream, RefusesInconsistentOptions) {
  TimerOptions opt;
  opt.min_samples = 10;
  opt.max_samples = 5;
  // Validation comes before any CUDA call, so this holds on a CPU-only machine too.
  EXPECT_THROW(time_on_stream([](cudaStream_t) {}, nullptr, opt), Error);
  opt.max_samples = 10;
  opt.samples_per_visit = 0;
  EXPECT_THROW(time_round_robin({[](cudaStream_t) {}}, nullptr, opt), Error);
  opt.samples_per_visit = 1;
  opt.settle_ms = -1;
  EXPECT_THROW(time_round_robin({[](cudaStream_t) {}}, nullptr, opt), Error);
}

// Exactly n samples after `warmup` untimed runs: the target error 0 is never "converged", so only the sample limit
// stops the sampling.
TimerOptions exactly(int n, int warmup) {
  TimerOptions opt;
  opt.warmup = warmup;
  opt.min_samples = opt.max_samples = n;
  opt.target_rel_err = 0.0;
  return opt;
}

// Busy-waits on the host for `arg` microseconds; run on the stream through cudaLaunchHostFunc.
void CUDART_CB spin_host(void* arg) {
  const auto duration = std::chrono::microseconds(*static_cast<const int*>(arg));
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
  }
}

TEST(TimeOnStream, MeasuresStreamWorkOfKnownDuration) {
  KF_REQUIRE_GPU();
  // 1 ms: long enough that host-function dispatch latency (a few microseconds) stays far inside 20%.
  static int spin_us = 1000;  // static: the host function reads it after this frame's enqueue
  cudaStream_t stream = nullptr;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  TimerOptions opt;
  opt.min_samples = 10;
  opt.max_samples = 50;
  const Timing t = time_on_stream(
      [](cudaStream_t s) { KF_CUDA_CHECK(cudaLaunchHostFunc(s, spin_host, &spin_us)); }, stream, opt);
  KF_CUDA_CHECK(cudaStreamDestroy(stream));

  const double expected_ms = spin_us / 1000.0;
  EXPECT_NEAR(t.median_ms, expected_ms, 0.2 * expected_ms);
  EXPECT_FALSE(t.stop_reason.empty());
  EXPECT_TRUE(t.stop_reason == "converged" || t.stop_reason == "time limit" || t.stop_reason == "sample limit")
      << t.stop_reason;
  EXPECT_GE(t.samples_ms.size(), 1u);
  EXPECT_LE(t.samples_ms.size(), 50u);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
}

TEST(TimeInterleaved, TimesEachSideInPairs) {
  KF_REQUIRE_GPU();
  // 1 and 2 ms, as MeasuresStreamWorkOfKnownDuration: the host function's dispatch latency (up to 0.11 ms on an
  // H200 machine, 2026-12-02) stays inside 20%. static: the host functions read them after this frame's enqueue.
  static int short_us = 1000, long_us = 2000;
  cudaStream_t stream = nullptr;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  TimerOptions opt;
  opt.min_samples = 10;
  opt.max_samples = 40;
  const PairedTiming t = time_interleaved(
      [](cudaStream_t s) { KF_CUDA_CHECK(cudaLaunchHostFunc(s, spin_host, &short_us)); },
      [](cudaStream_t s) { KF_CUDA_CHECK(cudaLaunchHostFunc(s, spin_host, &long_us)); }, stream, opt);
  KF_CUDA_CHECK(cudaStreamDestroy(stream));

  EXPECT_NEAR(t.a.median_ms, 1.0, 0.2);
  EXPECT_NEAR(t.b.median_ms, 2.0, 0.4);
  EXPECT_EQ(t.a.samples_ms.size(), t.b.samples_ms.size());  // pairs
  EXPECT_GE(t.a.samples_ms.size(), 10u);
  EXPECT_LE(t.a.samples_ms.size(), 40u);
  EXPECT_EQ(t.a.stop_reason, t.b.stop_reason);
}

TEST(TimeInterleaved, StopsAtTheSampleLimitOfEachSide) {
  KF_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const TimerOptions opt = exactly(3, 0);
  const PairedTiming t = time_interleaved([](cudaStream_t) {}, [](cudaStream_t) {}, stream, opt);
  KF_CUDA_CHECK(cudaStreamDestroy(stream));
  EXPECT_EQ(t.a.stop_reason, "sample limit");
  EXPECT_EQ(t.a.samples_ms.size(), 3u);
  EXPECT_EQ(t.b.samples_ms.size(), 3u);
}

// time_round_robin over host spins of us[k] microseconds each, on a fresh stream; `order` gets each kernel's index as
// it is enqueued. Every spin has run when time_round_robin returns (each sample synchronizes), so `us` may be local.
std::vector<Timing> round_robin_of_spins(std::vector<int> us, const TimerOptions& opt, std::vector<int>& order) {
  cudaStream_t stream = nullptr;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::function<void(cudaStream_t)>> fns;
  for (size_t k = 0; k < us.size(); ++k)
    fns.push_back([k, &us, &order](cudaStream_t s) {
      order.push_back(static_cast<int>(k));
      KF_CUDA_CHECK(cudaLaunchHostFunc(s, spin_host, &us[k]));
    });
  std::vector<Timing> t = time_round_robin(fns, stream, opt);
  KF_CUDA_CHECK(cudaStreamDestroy(stream));
  return t;
}

TEST(TimeRoundRobin, RunsTheBalancedOrderAndTimesEachKernel) {
  KF_REQUIRE_GPU();
  const std::vector<int> us = {1000, 2000, 3000};  // >= 1 ms, as above
  std::vector<int> order;  // the kernels in the order they were enqueued
  const std::vector<Timing> t = round_robin_of_spins(us, exactly(6, 1), order);

  ASSERT_EQ(t.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(t[k].median_ms, us[k] / 1000.0, 0.2 * us[k] / 1000.0) << k;
    EXPECT_EQ(t[k].samples_ms.size(), 6u) << k;
    EXPECT_EQ(t[k].stop_reason, "sample limit") << k;
  }
  // Warm-up 0 1 2, then the rounds of round_robin_order(3, r): 012, 120, 201, 210, 021, 102.
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 0, 1, 2, 1, 2, 0, 2, 0, 1, 2, 1, 0, 0, 2, 1, 1, 0, 2}));
  // Each sample's predecessor: the kernel enqueued just before it (the warm-up's last for the first sample).
  for (int k = 0; k < 3; ++k) {
    std::vector<int> expected;
    for (size_t i = 3; i < order.size(); ++i)
      if (order[i] == k) expected.push_back(order[i - 1]);
    EXPECT_EQ(t[k].preceded_by, expected) << k;
  }
}

// samples_per_visit: each turn samples its kernel that many times in a row; the later ones follow the kernel itself.
TEST(TimeRoundRobin, TakesTheSamplesOfAVisitInARow) {
  KF_REQUIRE_GPU();
  TimerOptions opt = exactly(4, 1);
  opt.samples_per_visit = 2;
  std::vector<int> order;
  const std::vector<Timing> t = round_robin_of_spins({1000, 1000}, opt, order);
  // Warm-up 0 1, then rounds 01 and 10 with two samples per turn.
  EXPECT_EQ(order, (std::vector<int>{0, 1, 0, 0, 1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(t[0].preceded_by, (std::vector<int>{1, 0, 1, 0}));
  EXPECT_EQ(t[1].preceded_by, (std::vector<int>{0, 1, 1, 1}));
}

// settle_ms: each turn runs its kernel untimed for that long first, so every sample follows the kernel itself.
TEST(TimeRoundRobin, SettlesEachTurnOnItsOwnKernel) {
  KF_REQUIRE_GPU();
  TimerOptions opt = exactly(2, 0);
  opt.settle_ms = 5;
  std::vector<int> order;
  const std::vector<Timing> t = round_robin_of_spins({1000, 1000}, opt, order);
  EXPECT_EQ(t[0].preceded_by, (std::vector<int>{0, 0}));
  EXPECT_EQ(t[1].preceded_by, (std::vector<int>{1, 1}));
  // Rounds 01 and 10: four turns, each >= 5 runs of 1 ms to settle plus its sample, in runs of one kernel.
  std::vector<int> turn_kernel, turn_runs;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || order[i] != order[i - 1]) {
      turn_kernel.push_back(order[i]);
      turn_runs.push_back(0);
    }
    ++turn_runs.back();
  }
  EXPECT_EQ(turn_kernel, (std::vector<int>{0, 1, 0}));  // 0 | 1 1 | 0: the middle turns are one run of kernel 1
  ASSERT_EQ(turn_runs.size(), 3u);
  EXPECT_GE(turn_runs[0], 6);
  EXPECT_GE(turn_runs[1], 12);
  EXPECT_GE(turn_runs[2], 6);
}

// max_seconds bounds the sampling, and the settling only past 4x it: 6 ms of settling per turn against a 10 ms limit
// (counted, the first round's 12 ms would stop it at one sample) leaves rounds of two 1-ms samples until the settling
// passes 40 ms, in the third or fourth round (a turn settles 6-7 ms): 3-4 samples each, where the sampling limit
// alone would take five or more.
TEST(TimeRoundRobin, LeavesTheSettlingOutOfTheTimeLimitUpToFourTimesIt) {
  KF_REQUIRE_GPU();
  TimerOptions opt = exactly(1000, 0);
  opt.min_samples = 1;
  opt.max_seconds = 0.010;
  opt.settle_ms = 6;
  std::vector<int> order;
  const std::vector<Timing> t = round_robin_of_spins({1000, 1000}, opt, order);
  EXPECT_EQ(t[0].stop_reason, "settle limit");
  EXPECT_GE(t[0].samples_ms.size(), 3u);
  EXPECT_LE(t[0].samples_ms.size(), 4u);
}

// On a power-capped board a sample's clock depends on the kernel before it: over a cycle of rounds each kernel must
// take every place, and follow every other kernel, equally often.
TEST(RoundRobinOrder, BalancesPlacesAndPredecessorsOverACycle) {
  for (size_t n = 1; n <= 9; ++n) {
    const size_t cycle = n % 2 == 0 ? n : 2 * n;
    std::vector<std::vector<int>> at_place(n, std::vector<int>(n, 0)), follows(n, std::vector<int>(n, 0));
    for (size_t r = 0; r < cycle; ++r) {
      const std::vector<size_t> order = round_robin_order(n, r);
      ASSERT_EQ(order.size(), n);
      EXPECT_TRUE(std::is_permutation(order.begin(), order.end(), round_robin_order(n, 0).begin())) << n;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_LT(order[i], n);
        ++at_place[order[i]][i];
        if (i > 0) ++follows[order[i]][order[i - 1]];
      }
      EXPECT_EQ(round_robin_order(n, r + cycle), order) << "a cycle repeats, n " << n;
    }
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n; ++j) {
        EXPECT_EQ(at_place[k][j], static_cast<int>(cycle / n)) << "n " << n << ", kernel " << k << ", place " << j;
        if (j != k) EXPECT_EQ(follows[k][j], static_cast<int>(cycle / n)) << "n " << n << ": " << k << " after " << j;
      }
  }
  EXPECT_EQ(round_robin_order(2, 0), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(round_robin_order(2, 1), (std::vector<size_t>{1, 0}));
  EXPECT_EQ(round_robin_order(4, 0), (std::vector<size_t>{0, 1, 3, 2}));
  EXPECT_TRUE(round_robin_order(0, 3).empty());
}

TEST(TimeRoundRobin, RefusesAnEmptySet) {
  EXPECT_THROW(time_round_robin({}, nullptr), Error);
}

TEST(TimeOnStream, StopsAtTheSampleLimit) {
  KF_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const TimerOptions opt = exactly(3, 0);
  const Timing t = time_on_stream([](cudaStream_t) {}, stream, opt);
  KF_CUDA_CHECK(cudaStreamDestroy(stream));
  EXPECT_EQ(t.stop_reason, "sample limit");
  EXPECT_EQ(t.samples_ms.size(), 3u);
}

}  // namespace
}  // namespace kforge
