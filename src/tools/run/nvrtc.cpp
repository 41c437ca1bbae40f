// NVRTC wrapper: one program per call, destroyed on every path; errors carry the compiler's log.
#include "tools/run/nvrtc.hpp"

#include <dlfcn.h>
#include <nvrtc.h>

#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "kforge/types.hpp"

namespace kforge {
namespace {

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw Error(std::string("nvrtc: ") + what + " failed: " + nvrtcGetErrorString(r));
}

struct ProgramDeleter {
  void operator()(nvrtcProgram p) const { nvrtcDestroyProgram(&p); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

std::string program_log(nvrtcProgram p) {
  size_t size = 0;
  check(nvrtcGetProgramLogSize(p, &size), "nvrtcGetProgramLogSize");
  std::string log(size, '\0');
  check(nvrtcGetProgramLog(p, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

NvrtcOutput nvrtc_compile(const std::string& source, const std::string& name, const std::vector<std::string>& options) {
  nvrtcProgram raw = nullptr;
  check(nvrtcCreateProgram(&raw, source.c_str(), name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  const Program program(raw);
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(raw, static_cast<int>(argv.size()), argv.data());
  NvrtcOutput out;
  out.log = program_log(raw);
  if (compiled != NVRTC_SUCCESS) {
    std::string cmd;
    for (const std::string& o : options) cmd += " " + o;
    throw Error("nvrtc could not compile " + name + " (" + nvrtcGetErrorString(compiled) + "), options:" + cmd +
                "\n" + out.log);
  }
  size_t size = 0;
  check(nvrtcGetCUBINSize(raw, &size), "nvrtcGetCUBINSize");
  if (size == 0) throw Error("nvrtc made no cubin of " + name + ": pass a real architecture (-arch=sm_90a), not compute_XX");
  out.cubin.resize(size);
  check(nvrtcGetCUBIN(raw, out.cubin.data()), "nvrtcGetCUBIN");
  return out;
}

std::string nvrtc_identity() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  std::string id = fmt::format("nvrtc {}.{}", major, minor);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) != 0 && info.dli_fname != nullptr) {
    namespace fs = std::filesystem;
    std::error_code path_error, size_error, time_error;
    const fs::path lib = fs::weakly_canonical(info.dli_fname, path_error);
    const auto size = fs::file_size(lib, size_error);
    const auto mtime = fs::last_write_time(lib, time_error).time_since_epoch().count();
    if (!path_error && !size_error && !time_error)
      id += fmt::format(" {} {} {}", lib.string(), size, mtime);
  }
  return id;
}

}  // namespace kforge
