// kforge profile on the CPU: ncu's raw CSV read back (a report written by hand in ncu's format), the metrics picked
// out of it, the classifier on canned metric sets, where ncu is looked for and the message when it is missing,
// and the whole ncu round trip against fake ncu scripts (a report, a counter-permission error, a refused metric).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "kforge/types.hpp"
#include "tools/profile_classify.hpp"
#include "tools/profile_csv.hpp"
#include "tools/profile_ncu.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

using testing::error_of;

using testing::TempDir;

// What `ncu --csv --page raw --print-units base --log-file F` writes: its own ==PROF== lines, the header row, the
// units row (empty under the launch columns), one row per kernel; every field quoted, numbers grouped by commas.
// Kernel names hold commas and quotes. The first line stands for output that precedes the report.
constexpr const char* kNcuCsv =
    "kforge: a line of the profiled program's own output\n"
    "==PROF== Connected to process 4242 (/work/build/bin/kforge)\n"
    "==PROF== Profiling \"copy_kernel\" - 0: 0%....50%....100% - 41 passes\n"
    "==PROF== Disconnected from process 4242\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"dram__bytes.sum.per_second\",\"gpu__compute_memory_throughput.avg.pct_of_peak_"
    "sustained_elapsed\",\"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\",\"gpu__time_duration.sum\","
    "\"sm__maximum_warps_per_active_cycle_pct\",\"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_"
    "active\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"sm__warps_active.avg.pct_of_peak_sustained_"
    "active\",\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\",\"smsp__average_warps_issue_"
    "stalled_long_scoreboard_per_issue_active.ratio\",\"smsp__average_warps_issue_stalled_selected_per_issue_active."
    "ratio\",\"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio\"\r\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Gbyte/second\",\"%\",\"%\",\"nsecond\",\"%\",\"%\",\"%\","
    "\"%\",\"\",\"\",\"\",\"\"\r\n"
    "\"0\",\"4242\",\"kforge\",\"127.0.0.1\",\"void kforge::copy_kernel<int, 4>(const uint4 *, \"\"dst\"\")\",\"1\","
    "\"13\",\"(256, 1, 1)\",\"(1056, 1, 1)\",\"0\",\"9.0\",\"3,912.44\",\"92.31\",\"91.07\",\"548,864\",\"100\",\"0\","
    "\"14.2\",\"87.5\",\"0.02\",\"14.1\",\"1\",\"1.9\"\r\n"
    "\"1\",\"4242\",\"kforge\",\"127.0.0.1\",\"tail_kernel\",\"1\",\"13\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\","
    "\"n/a\",\"1.5\",\"0.9\",\"2,048\",\"50\",\"0\",\"0.4\",\"3.1\",\"\",\"\",\"\",\"\"\r\n";

NcuKernel kernel_with(std::initializer_list<std::pair<const char*, double>> metrics) {
  NcuKernel k;
  k.launch["Kernel Name"] = "k";
  for (const auto& [name, v] : metrics) k.metrics[name] = NcuMetric{std::to_string(v), "", v};
  return k;
}

std::string stall(const char* reason) {
  return std::string("smsp__average_warps_issue_stalled_") + reason + "_per_issue_active.ratio";
}

// Throughputs and stalls of the four shapes a kernel can take.
NcuKernel profile_of(double sm, double memory, double tensor, double barrier, double long_scoreboard, double wait) {
  NcuKernel k = kernel_with({{"sm__throughput.avg.pct_of_peak_sustained_elapsed", sm},
                             {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", memory},
                             {"sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active", tensor}});
  for (const auto& [reason, v] : {std::pair{"barrier", barrier}, {"long_scoreboard", long_scoreboard}, {"wait", wait}})
    k.metrics[stall(reason)] = NcuMetric{"", "", v};
  return k;
}

void write_executable(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  ASSERT_EQ(chmod(path.c_str(), 0755), 0);
}

// A stand-in for ncu: writes `csv_file` to the --log-file it is given, or fails the way `mode` says.
std::string fake_ncu(const TempDir& dir, const std::string& mode) {
  std::ofstream(dir.path() + "/report.csv") << kNcuCsv;
  const std::string path = dir.path() + "/ncu";
  write_executable(path, "#!/bin/sh\n"
                         "log=''; metrics=0\n"
                         "while [ $# -gt 0 ]; do\n"
                         "  case \"$1\" in --log-file) log=\"$2\"; shift ;; --metrics) metrics=1 ;; esac\n"
                         "  shift\n"
                         "done\n"
                         "mode='" + mode + "'\n"
                         "if [ \"$mode\" = noperm ]; then\n"
                         "  echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                         "Performance Counters on the target device 0.' > \"$log\"; exit 1\n"
                         "fi\n"
                         "if [ \"$mode\" = nometric ] && [ $metrics = 1 ]; then\n"
                         "  echo '==ERROR== Failed to find metric smsp__average_warps_issue_stalled_wait_per_issue_"
                         "active.ratio' > \"$log\"; exit 1\n"
                         "fi\n"
                         "cat '" + dir.path() + "/report.csv' > \"$log\"\n");
  return path;
}

TEST(ProfileCsv, SplitsQuotedFields) {
  EXPECT_EQ(split_csv_line(R"("a","b, c","say ""hi""",,"")"),
            (std::vector<std::string>{"a", "b, c", "say \"hi\"", "", ""}));
  EXPECT_EQ(split_csv_line("x,\"1,234\"\r"), (std::vector<std::string>{"x", "1,234"}));
}

TEST(ProfileCsv, NumbersLoseThousandsSeparators) {
  EXPECT_EQ(parse_ncu_number("10,240,000"), 10240000.0);
  EXPECT_EQ(parse_ncu_number("3,912.44"), 3912.44);
  EXPECT_EQ(parse_ncu_number("4.0e-05"), 4.0e-05);
  EXPECT_EQ(parse_ncu_number("-3"), -3.0);
  EXPECT_FALSE(parse_ncu_number("n/a"));
  EXPECT_FALSE(parse_ncu_number(""));
  EXPECT_FALSE(parse_ncu_number("(256, 1, 1)"));
}

TEST(ProfileCsv, UnitsScaleToBaseUnits) {
  EXPECT_EQ(unit_scale("nsecond"), (std::pair<double, std::string>{1e-9, "second"}));
  EXPECT_EQ(unit_scale("msecond"), (std::pair<double, std::string>{1e-3, "second"}));
  EXPECT_EQ(unit_scale("Gbyte/second"), (std::pair<double, std::string>{1e9, "byte/second"}));
  EXPECT_EQ(unit_scale("byte/usecond"), (std::pair<double, std::string>{1e6, "byte/second"}));
  EXPECT_EQ(unit_scale("Mbyte"), (std::pair<double, std::string>{1e6, "byte"}));
  // What ncu on the H200 printed for a copy kernel's duration and DRAM rate (2026-11-29): abbreviated seconds.
  EXPECT_EQ(unit_scale("ns"), (std::pair<double, std::string>{1e-9, "second"}));
  EXPECT_EQ(unit_scale("byte/s"), (std::pair<double, std::string>{1.0, "byte/second"}));
  EXPECT_EQ(unit_scale("us"), (std::pair<double, std::string>{1e-6, "second"}));
  EXPECT_EQ(unit_scale("%"), (std::pair<double, std::string>{1.0, "%"}));
  EXPECT_EQ(unit_scale("warp"), (std::pair<double, std::string>{1.0, "warp"}));
}

TEST(ProfileCsv, ReadsNcusRawPage) {
  const std::vector<NcuKernel> kernels = parse_ncu_csv(kNcuCsv);
  ASSERT_EQ(kernels.size(), 2u);
  const NcuKernel& k = kernels[0];
  EXPECT_EQ(k.id, "0");
  EXPECT_EQ(k.name(), "void kforge::copy_kernel<int, 4>(const uint4 *, \"dst\")");
  EXPECT_EQ(k.launch.at("Grid Size"), "(1056, 1, 1)");
  EXPECT_EQ(k.launch.count("gpu__time_duration.sum"), 0u);  // metrics are not launch facts
  EXPECT_DOUBLE_EQ(*k.value("gpu__time_duration.sum"), 548864e-9);
  EXPECT_EQ(k.metrics.at("gpu__time_duration.sum").unit, "second");
  EXPECT_EQ(k.metrics.at("gpu__time_duration.sum").text, "548,864");
  EXPECT_DOUBLE_EQ(*k.value("dram__bytes.sum.per_second"), 3912.44e9);
  EXPECT_DOUBLE_EQ(*k.value("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 14.2);
  EXPECT_FALSE(kernels[1].value("dram__bytes.sum.per_second"));  // "n/a"
  EXPECT_FALSE(kernels[1].value(stall("barrier")));               // empty
  EXPECT_FALSE(k.value("no_such__metric"));
}

TEST(ProfileCsv, RefusesWhatIsNotAReport) {
  EXPECT_NE(error_of([] { parse_ncu_csv("==PROF== No kernels were profiled.\n"); }).find("no report header"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_ncu_csv("\"ID\",\"Kernel Name\",\"a__b\"\n\"0\",\"k\"\n"); }).find("2 fields"),
            std::string::npos);
}

TEST(ProfileRead, PicksTheNumbersOutOfTheReport) {
  const KernelProfile p = read_profile(parse_ncu_csv(kNcuCsv)[0]);
  EXPECT_EQ(p.grid, "(1056, 1, 1)");
  EXPECT_EQ(p.block, "(256, 1, 1)");
  EXPECT_DOUBLE_EQ(*p.duration_s, 548864e-9);
  EXPECT_DOUBLE_EQ(*p.sm_pct, 14.2);
  EXPECT_DOUBLE_EQ(*p.memory_pct, 92.31);
  EXPECT_DOUBLE_EQ(*p.dram_pct, 91.07);
  EXPECT_DOUBLE_EQ(*p.dram_bytes_per_s, 3912.44e9);
  EXPECT_DOUBLE_EQ(*p.occupancy_pct, 87.5);
  EXPECT_DOUBLE_EQ(*p.theoretical_occupancy_pct, 100);
  EXPECT_DOUBLE_EQ(*p.tensor_pct, 0);
  // "selected" is issuing, not a stall: shares are over barrier + long_scoreboard + wait = 16.02.
  ASSERT_EQ(p.stalls.size(), 3u);
  EXPECT_EQ(p.stalls[0].reason, "long_scoreboard");
  EXPECT_NEAR(p.stalls[0].share, 14.1 / 16.02, 1e-12);
  EXPECT_EQ(p.stalls[1].reason, "wait");
  EXPECT_EQ(p.stalls[2].reason, "barrier");
  EXPECT_EQ(classify(p), Bound::memory);
}

TEST(ProfileRead, FallsBackToOtherMetricNames) {
  NcuKernel k = kernel_with({{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 40},
                             {"dram__bytes_read.sum", 3e9},
                             {"dram__bytes_write.sum", 1e9},
                             {"gpu__time_duration.sum", 2e-3},
                             {"smsp__pcsamp_warps_issue_stalled_barrier", 30},
                             {"smsp__pcsamp_warps_issue_stalled_barrier_not_issued", 500},
                             {"smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", 10},
                             {"smsp__pcsamp_warps_issue_stalled_selected", 900}});
  const KernelProfile p = read_profile(k);
  EXPECT_DOUBLE_EQ(*p.dram_pct, 40);
  EXPECT_DOUBLE_EQ(*p.dram_bytes_per_s, 2e12);  // (read + written) / duration
  EXPECT_EQ(p.stall_metrics, "smsp__pcsamp_warps_issue_stalled_*");
  ASSERT_EQ(p.stalls.size(), 2u);
  EXPECT_DOUBLE_EQ(p.stalls[0].share, 0.75);
  EXPECT_DOUBLE_EQ(p.sync_share(), 0.75);
  EXPECT_FALSE(p.tensor_pct);
  EXPECT_EQ(classify(p), Bound::unknown);  // no speed-of-light throughputs
  EXPECT_NE(reading(p, Bound::unknown).find("cannot be classified"), std::string::npos);
}

TEST(ProfileClassify, CannedShapes) {
  // A copy: memory at its peak, SM idle, warps waiting on loads.
  const KernelProfile copy = read_profile(profile_of(12, 93, 0, 0.0, 20, 1));
  EXPECT_EQ(classify(copy), Bound::memory);
  // A GEMM: tensor pipes busy (SM throughput counts them less), memory moderate.
  const KernelProfile gemm = read_profile(profile_of(55, 48, 88, 1, 1, 3));
  EXPECT_EQ(classify(gemm), Bound::compute);
  // Nothing busy, no barrier: latency.
  const KernelProfile idle = read_profile(profile_of(20, 25, 0, 0.5, 8, 4));
  EXPECT_EQ(classify(idle), Bound::latency);
  // Nothing busy, warps waiting at __syncthreads.
  const KernelProfile sync = read_profile(profile_of(30, 35, 10, 9, 3, 2));
  EXPECT_EQ(classify(sync), Bound::sync);
  // Busy memory wins over barrier stalls: the barrier is where warps wait for the loads.
  EXPECT_EQ(classify(read_profile(profile_of(30, 75, 0, 9, 3, 2))), Bound::memory);
}

TEST(ProfileClassify, ThresholdsAreTheDocumentedOnes) {
  EXPECT_EQ(classify(read_profile(profile_of(59.9, 10, 0, 0, 1, 1))), Bound::latency);
  EXPECT_EQ(classify(read_profile(profile_of(60, 10, 0, 0, 1, 1))), Bound::compute);
  EXPECT_EQ(classify(read_profile(profile_of(10, 10, 0, 3.99, 3, 3.01))), Bound::latency);  // 39.9% barrier
  EXPECT_EQ(classify(read_profile(profile_of(10, 10, 0, 4, 3, 3))), Bound::sync);           // 40%
  BoundThresholds strict;
  strict.busy_pct = 80;
  EXPECT_EQ(classify(read_profile(profile_of(12, 75, 0, 0, 1, 1)), strict), Bound::latency);
}

TEST(ProfileClassify, ReadingSaysWhatAndWhy) {
  const KernelProfile copy = read_profile(parse_ncu_csv(kNcuCsv)[0]);
  const std::string text = reading(copy, classify(copy));
  EXPECT_EQ(text.rfind("memory-bound: ", 0), 0u) << text;
  EXPECT_NE(text.find("memory throughput 92%"), std::string::npos) << text;
  EXPECT_NE(text.find("3.91 TB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("long_scoreboard 88%"), std::string::npos) << text;
  EXPECT_NE(text.find("fewer bytes"), std::string::npos) << text;
  const KernelProfile sync = read_profile(profile_of(30, 35, 10, 9, 3, 2));
  EXPECT_NE(reading(sync, Bound::sync).find("64% of stall cycles are at barriers"), std::string::npos);
}

TEST(ProfileNcu, MissingNcuSaysWhereItLookedAndHowToFixIt) {
  TempDir a, b;
  const std::string msg = error_of([&] { find_ncu(NcuSearch{"", "", {a.path(), b.path()}}); });
  EXPECT_EQ(msg.rfind("Nsight Compute (ncu) not found", 0), 0u) << msg;
  EXPECT_NE(msg.find(a.path()), std::string::npos) << msg;
  EXPECT_NE(msg.find(b.path()), std::string::npos) << msg;
  EXPECT_NE(msg.find("--ncu PATH"), std::string::npos) << msg;
  EXPECT_NE(msg.find("$KFORGE_NCU"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { find_ncu(NcuSearch{a.path() + "/nope", "", {}}); }),
            "--ncu " + a.path() + "/nope: not an executable file");
  EXPECT_EQ(error_of([&] { find_ncu(NcuSearch{"", a.path(), {}}); }),
            "$KFORGE_NCU=" + a.path() + ": not an executable file");  // a folder is not an executable
}

TEST(ProfileNcu, FindsNcuInOrder) {
  TempDir a, b;
  write_executable(b.path() + "/ncu", "#!/bin/sh\n");
  EXPECT_EQ(find_ncu(NcuSearch{"", "", {a.path(), b.path()}}), b.path() + "/ncu");
  write_executable(a.path() + "/my-ncu", "#!/bin/sh\n");
  EXPECT_EQ(find_ncu(NcuSearch{"", a.path() + "/my-ncu", {b.path()}}), a.path() + "/my-ncu");  // $KFORGE_NCU first
  EXPECT_EQ(find_ncu(NcuSearch{b.path() + "/ncu", a.path() + "/my-ncu", {}}), b.path() + "/ncu");  // --ncu first
  testing::ScopedEnv env("KFORGE_NCU", "/x/ncu");
  EXPECT_EQ(default_ncu_search("/y/ncu").env, "/x/ncu");
  EXPECT_EQ(default_ncu_search("/y/ncu").option, "/y/ncu");
}

TEST(ProfileNcu, CommandLineProfilesOnlyTheMarkedRegionWithClocksAlone) {
  const std::vector<std::string> argv = ncu_argv("/n/ncu", {"/k/kforge", "_profile-target", "--probe", "copy"}, "/t/l");
  const auto has = [&](const std::string& opt, const std::string& value) {  // `opt value` somewhere in argv
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == opt && argv[i + 1] == value) return true;
    return false;
  };
  EXPECT_EQ(argv.front(), "/n/ncu");
  EXPECT_TRUE(has("--clock-control", "none"));
  EXPECT_TRUE(has("--profile-from-start", "off"));
  EXPECT_TRUE(has("--page", "raw"));
  EXPECT_TRUE(has("--print-units", "base"));
  EXPECT_TRUE(has("--log-file", "/t/l"));
  EXPECT_TRUE(has("--section", "SpeedOfLight"));
  EXPECT_TRUE(has("--section", "WarpStateStats"));
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--csv"), argv.end());
  EXPECT_EQ(std::vector<std::string>(argv.end() - 4, argv.end()),
            (std::vector<std::string>{"/k/kforge", "_profile-target", "--probe", "copy"}));
  const auto no_stalls = ncu_argv("/n/ncu", {"/k/kforge"}, "/t/l", /*stall_metrics=*/false);
  EXPECT_EQ(std::find(no_stalls.begin(), no_stalls.end(), "--metrics"), no_stalls.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--metrics"), argv.end());
}

TEST(ProfileNcu, RunsNcuAndReadsItsLog) {
  TempDir dir, work;
  const NcuRun run = run_ncu(fake_ncu(dir, "ok"), {"/bin/true"}, work.path());
  EXPECT_TRUE(run.notes.empty());
  EXPECT_EQ(parse_ncu_csv(run.csv).size(), 2u);
}

TEST(ProfileNcu, CounterPermissionErrorGivesNcusMessageAndTheFix) {
  TempDir dir, work;
  const std::string msg = error_of([&] { run_ncu(fake_ncu(dir, "noperm"), {"/bin/true"}, work.path()); });
  EXPECT_NE(msg.find("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << msg;
}

TEST(ProfileNcu, RefusedStallMetricsAreRetriedWithoutThem) {
  TempDir dir, work;
  const NcuRun run = run_ncu(fake_ncu(dir, "nometric"), {"/bin/true"}, work.path());
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_NE(run.notes[0].find("Failed to find metric"), std::string::npos) << run.notes[0];
  EXPECT_EQ(parse_ncu_csv(run.csv).size(), 2u);
}

TEST(ProfileNcu, KnownFailuresAreNamed) {
  EXPECT_NE(diagnose_ncu_failure(1, "==ERROR== Failed to initialize the profiler: LibraryNotLoaded\n").find("gVisor"),
            std::string::npos);
  EXPECT_NE(diagnose_ncu_failure(0, "==WARNING== No kernels were profiled.\n").find("profiled no kernel"),
            std::string::npos);
  const std::string other = diagnose_ncu_failure(3, "==ERROR== something new\nlast words of the target\n");
  EXPECT_EQ(other.rfind("ncu failed (exit 3):", 0), 0u) << other;
  EXPECT_NE(other.find("something new"), std::string::npos);
  EXPECT_NE(other.find("last words of the target"), std::string::npos);
}

}  // namespace
}  // namespace kforge
