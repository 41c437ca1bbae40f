// What several subcommands share: the no-GPU check and the time stamp of output file names.
#pragma once

#include <string>

namespace kforge::cli {

// 0 when a CUDA GPU is present; else prints one clear line and returns 2 (the CPU-only machines of CI).
int require_gpu();

// "20250131T120000Z": UTC, for file names.
std::string utc_stamp();

}  // namespace kforge::cli
