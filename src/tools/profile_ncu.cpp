// ncu as a child process (process.hpp: no shell): its command line, where it is installed, one retry without the
// explicit stall metrics, and failures turned into messages that say what to do.
#include "tools/profile_ncu.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kforge/types.hpp"
#include "tools/process.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;

// Speed of light, DRAM rate, occupancy, warp states, launch facts and the pipes (tensor pipe utilization).
constexpr const char* kSections[] = {"SpeedOfLight", "MemoryWorkloadAnalysis", "Occupancy",
                                     "WarpStateStats", "LaunchStats",           "ComputeWorkloadAnalysis"};

// The stall reasons ncu has named since sm_70, as stalled warps per issued instruction.
constexpr const char* kStallReasons[] = {
    "barrier",         "branch_resolving", "dispatch_stall", "drain",      "imc_miss",     "lg_throttle",
    "long_scoreboard", "math_pipe_throttle", "membar",       "mio_throttle", "misc",       "no_instruction",
    "not_selected",    "selected",         "short_scoreboard", "sleeping", "tex_throttle", "wait"};

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// "2025.3.1" -> {2025, 3, 1}; a part that is not a number counts as 0.
std::vector<int> version_numbers(const std::string& name) {
  std::vector<int> parts;
  std::istringstream in(name);
  for (std::string part; std::getline(in, part, '.');) parts.push_back(std::atoi(part.c_str()));
  return parts;
}

bool contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// ncu's own error and warning lines, then the last `tail` lines of everything else.
std::string key_lines(const std::string& output, size_t tail) {
  std::istringstream in(output);
  std::vector<std::string> marked, rest;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    (line.rfind("==ERROR==", 0) == 0 || line.rfind("==WARNING==", 0) == 0 ? marked : rest).push_back(line);
  }
  std::string s;
  for (const std::string& l : marked) s += "\n  " + l;
  for (size_t i = rest.size() > tail ? rest.size() - tail : 0; i < rest.size(); ++i) s += "\n  " + rest[i];
  return s;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ncu names a metric it does not know in its error (e.g. "Failed to find metric ..."); any mention of our stall
// metrics or of an unknown metric on a failed run is worth one retry without them.
bool refused_a_metric(const std::string& output) {
  if (contains(output, "ERR_NVGPUCTRPERM") || contains(output, "LibraryNotLoaded")) return false;
  return contains(output, "smsp__average_warps_issue_stalled") ||
         (contains(output, "==ERROR==") && (contains(output, "metric") || contains(output, "Metric")));
}

}  // namespace

NcuSearch default_ncu_search(const std::string& option) {
  NcuSearch s{option, env_or_empty("KFORGE_NCU"), {}};
  std::istringstream path(env_or_empty("PATH"));
  for (std::string d; std::getline(path, d, ':');)
    if (!d.empty()) s.dirs.push_back(d);
  if (const std::string cuda = env_or_empty("CUDA_HOME"); !cuda.empty()) s.dirs.push_back(cuda + "/bin");
  s.dirs.push_back("/usr/local/cuda/bin");
  std::vector<fs::path> versions;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/opt/nvidia/nsight-compute", ec)) versions.push_back(e.path());
  std::sort(versions.begin(), versions.end(), [](const fs::path& a, const fs::path& b) {
    return version_numbers(b.filename()) < version_numbers(a.filename());  // newest first: 2025.10 before 2025.3
  });
  for (const fs::path& v : versions) s.dirs.push_back(v.string());
  std::vector<std::string> unique;  // PATH often names a folder twice, or names /usr/local/cuda/bin itself
  for (const std::string& d : s.dirs)
    if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
  s.dirs = std::move(unique);
  return s;
}

std::string find_ncu(const NcuSearch& s) {
  if (!s.option.empty()) {
    if (!is_executable_file(s.option)) throw Error("--ncu " + s.option + ": not an executable file");
    return s.option;
  }
  if (!s.env.empty()) {
    if (!is_executable_file(s.env)) throw Error("$KFORGE_NCU=" + s.env + ": not an executable file");
    return s.env;
  }
  for (const std::string& d : s.dirs)
    if (is_executable_file(fs::path(d) / "ncu")) return (fs::path(d) / "ncu").string();
  std::string looked;
  for (const std::string& d : s.dirs) looked += (looked.empty() ? "" : ", ") + d;
  throw Error("Nsight Compute (ncu) not found: --ncu not given, $KFORGE_NCU not set, no ncu in " +
              (looked.empty() ? std::string("(no folders)") : looked) +
              ". Install Nsight Compute (it comes with the CUDA toolkit) or pass --ncu PATH or set $KFORGE_NCU");
}

std::vector<std::string> ncu_argv(const std::string& ncu, const std::vector<std::string>& target,
                                  const std::string& log_file, bool stall_metrics) {
  std::vector<std::string> argv{ncu,   "--clock-control", "none", "--target-processes", "all",
                                "--profile-from-start", "off", "--csv", "--page", "raw",
                                "--print-units", "base", "--log-file", log_file};
  for (const char* section : kSections) argv.insert(argv.end(), {"--section", section});
  if (stall_metrics) {
    std::string list;
    for (const char* r : kStallReasons)
      list += (list.empty() ? "" : ",") + std::string("smsp__average_warps_issue_stalled_") + r + "_per_issue_active.ratio";
    argv.insert(argv.end(), {"--metrics", list});
  }
  argv.insert(argv.end(), target.begin(), target.end());
  return argv;
}

std::string diagnose_ncu_failure(int exit_code, const std::string& output) {
  const std::string lines = key_lines(output, 15);
  if (contains(output, "ERR_NVGPUCTRPERM"))
    return "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM):" + lines +
           "\nFix: run kforge profile as root, or let every user profile: add `options nvidia "
           "NVreg_RestrictProfilingToAdminUsers=0` to a file in /etc/modprobe.d/ and reload the nvidia module (or "
           "reboot); in a container, start it with --cap-add=SYS_ADMIN.";
  if (contains(output, "LibraryNotLoaded") || contains(output, "Failed to initialize the profiler"))
    return "ncu could not start its profiler on this machine:" + lines +
           "\nFix: sandboxed container runtimes (gVisor, for one) do not expose the GPU's counters; run on a machine "
           "or VM whose driver does.";
  if (contains(output, "No kernels were profiled"))
    return "ncu profiled no kernel: the target launched none inside its profiled region:" + lines +
           "\nIf the target failed, its message is above; otherwise the workload launched no CUDA kernel.";
  if (contains(output, "nrecognized option") || contains(output, "nrecognised option") ||
      contains(output, "nknown option"))
    return "this ncu does not know an option kforge passes (kforge profile needs Nsight Compute 2023.1 or newer):" +
           lines;
  return "ncu failed (exit " + std::to_string(exit_code) + "):" + lines;
}

NcuRun run_ncu(const std::string& ncu, const std::vector<std::string>& target, const std::string& work_dir) {
  NcuRun run;
  bool stall_metrics = true;
  while (true) {
    const std::string log = work_dir + (stall_metrics ? "/ncu.csv" : "/ncu-sections-only.csv");
    const ProcessResult r = run_process(ncu_argv(ncu, target, log, stall_metrics));
    const std::string text = read_text(log);
    const std::string all = text + "\n" + r.err + "\n" + r.out;
    const bool profiled = contains(text, "\"ID\",") && !contains(all, "No kernels were profiled");
    if (r.exit_code == 0 && profiled) {
      run.csv = text;
      return run;
    }
    if (!stall_metrics || profiled || !refused_a_metric(all)) throw Error(diagnose_ncu_failure(r.exit_code, all));
    run.notes.push_back("ncu refused the explicit stall metrics, so the stall breakdown comes from its sections:" +
                        key_lines(all, 0));
    stall_metrics = false;
  }
}

}  // namespace kforge
