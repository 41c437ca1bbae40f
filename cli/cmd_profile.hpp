// `kforge profile`: Nsight Compute on one launch of a variant on a suite case (or of a reference probe), read back
// as speed-of-light throughputs, occupancy, stalls and a memory/compute/latency/sync classification
// (src/tools/profile_*). Also registers the hidden `_profile-target` that ncu runs.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "tools/profile_target.hpp"

namespace kforge::cli {

// Registers `profile` and `_profile-target` on `app`; holds the parsed options (stays where it was constructed).
class ProfileCommand {
 public:
  explicit ProfileCommand(CLI::App& app);
  ProfileCommand(const ProfileCommand&) = delete;
  ProfileCommand& operator=(const ProfileCommand&) = delete;

  bool selected() const { return profile_->parsed() || target_->parsed(); }
  // Exit status: 0, 2 without a GPU.
  int run() const;

 private:
  int run_profile() const;

  CLI::App* profile_ = nullptr;
  CLI::App* target_ = nullptr;
  ProfileTarget profile_args_, target_args_;
  std::string ncu_, out_dir_;
};

}  // namespace kforge::cli
