#include "cli_util.hpp"

#include "gpu.hpp"

#include <ctime>
#include <iostream>

namespace kforge::cli {

int require_gpu() {
  const std::string why = gpu_unavailable();
  if (why.empty()) return 0;
  std::cerr << "kforge: " << why << ": this command needs an NVIDIA GPU (sm_80+, tuned for H100/H200)\n";
  return 2;
}

std::string utc_stamp() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace kforge::cli
