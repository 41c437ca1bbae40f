// `kforge profile` wiring: options -> ncu on this same executable's `_profile-target` -> parse, classify ->
// printers; --out keeps ncu's raw CSV and a JSON summary. Scratch files live in a temporary folder, removed after.
#include "cmd_profile.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "printers.hpp"
#include "tools/asm.hpp"
#include "tools/profile_classify.hpp"
#include "tools/profile_ncu.hpp"

namespace kforge::cli {
namespace {

// The target's options, shared by `profile` (the user's) and `_profile-target` (ncu's child).
void add_target_options(CLI::App* cmd, ProfileTarget& t) {
  cmd->add_option("--probe", t.probe, "a reference kernel instead of a variant: copy (memory-bound) | gemm "
                                      "(cuBLAS bf16, compute-bound)")
      ->check(CLI::IsMember({"copy", "gemm"}));
  cmd->add_option("--suite", t.suite, "depthwise | dense (default: depthwise)");
  cmd->add_option("--case", t.case_name, "suite case name");
  cmd->add_option("--layout", t.layout, "ncdhw | ndhwc")->check(CLI::IsMember({"ncdhw", "ndhwc"}));
  cmd->add_option("--dtype", t.dtype, "bf16 | f16 | f32");
}

std::string file_stem(const ProfileTarget& t) {
  std::string s = t.probe.empty() ? t.variant + "-" + t.case_name + "-" + t.layout : "probe-" + t.probe;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return "profile-" + s + "-" + utc_stamp();
}

void write_outputs(const std::string& dir, const ProfileTarget& t, const std::string& ncu, const NcuRun& run,
                   const nlohmann::json& kernels) {
  std::filesystem::create_directories(dir);
  const std::string stem = dir + "/" + file_stem(t);
  std::ofstream(stem + ".csv") << run.csv;
  const nlohmann::json summary{{"target", t.label()}, {"ncu", ncu}, {"notes", run.notes}, {"kernels", kernels}};
  std::ofstream(stem + ".json") << summary.dump(1) << "\n";
  std::cerr << "kforge profile: wrote " << stem << ".csv (ncu's raw CSV) and " << stem << ".json\n";
}

}  // namespace

ProfileCommand::ProfileCommand(CLI::App& app) {
  profile_ = app.add_subcommand("profile", "Nsight Compute on one launch of a variant on a suite case: throughputs, "
                                           "occupancy, stalls, and memory/compute/latency/sync-bound");
  profile_->add_option("variant", profile_args_.variant, "registered variant (kforge list)");
  add_target_options(profile_, profile_args_);
  profile_->add_option("--ncu", ncu_, "the ncu to run (default: $KFORGE_NCU, PATH, $CUDA_HOME/bin, "
                                      "/usr/local/cuda/bin, /opt/nvidia/nsight-compute/*/)");
  profile_->add_option("--out", out_dir_, "write ncu's raw CSV and a JSON summary into this folder");

  // Run by ncu, not by people: hidden from the help (an empty group).
  target_ = app.add_subcommand("_profile-target", "launch one profile target (kforge profile runs this under ncu)");
  target_->group("");
  target_->add_option("--variant", target_args_.variant, "registered variant");
  add_target_options(target_, target_args_);
}

int ProfileCommand::run() const {
  if (target_->parsed()) {
    if (int rc = require_gpu()) return rc;
    run_profile_target(target_args_);
    return 0;
  }
  return run_profile();
}

int ProfileCommand::run_profile() const {
  const std::string ncu = find_ncu(default_ncu_search(ncu_));  // first: says where it looked, even without a GPU
  validate_profile_target(profile_args_);
  if (int rc = require_gpu()) return rc;
  std::vector<std::string> target{std::filesystem::read_symlink("/proc/self/exe").string()};
  const std::vector<std::string> args = profile_args_.args();
  target.insert(target.end(), args.begin(), args.end());

  std::cerr << "kforge profile: " << profile_args_.label() << " under " << ncu << " ...\n";
  const std::string work = make_temp_dir("kforge-profile-");
  NcuRun run;
  try {
    run = run_ncu(ncu, target, work);
  } catch (...) {
    std::filesystem::remove_all(work);
    throw;
  }
  std::filesystem::remove_all(work);
  for (const std::string& note : run.notes) std::cerr << "kforge profile: " << note << "\n";

  const std::vector<NcuKernel> kernels = parse_ncu_csv(run.csv);
  if (kernels.empty()) throw Error("ncu's report lists no kernel for " + profile_args_.label());
  std::cout << "# " << profile_args_.label() << ": " << kernels.size() << " kernel(s) in the profiled launch\n";
  nlohmann::json summaries = nlohmann::json::array();
  for (const NcuKernel& k : kernels) {
    const KernelProfile p = read_profile(k);
    const Bound b = classify(p);
    const std::string text = reading(p, b);
    print_profile(std::cout, p, b, text);
    nlohmann::json j = p.to_json();
    j["bound"] = bound_name(b);
    j["reading"] = text;
    summaries.push_back(std::move(j));
  }
  if (!out_dir_.empty()) write_outputs(out_dir_, profile_args_, ncu, run, summaries);
  return 0;
}

}  // namespace kforge::cli
