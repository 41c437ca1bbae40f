// Kernel images: file kind by extension, NVRTC options and include folders, the cache key, cache lookup/compile.
#include "tools/run/kernel_build.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kforge/types.hpp"
#include "measure/device_info.hpp"
#include "tools/run/fnv128.hpp"
#include "tools/run/includes.hpp"
#include "tools/run/nvrtc.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read kernel file " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The folders NVRTC searches, in order: the values of its -I / --include-path options.
std::vector<std::string> include_dirs_of(const std::vector<std::string>& options) {
  std::vector<std::string> dirs;
  for (const std::string& o : options) {
    if (o.rfind("--include-path=", 0) == 0) dirs.push_back(o.substr(15));
    else if (o.rfind("-I", 0) == 0) dirs.push_back(o.substr(2));
  }
  return dirs;
}

std::string label_of(const BuildRequest& r) {
  std::string label = fs::path(r.file).filename().string();
  for (const std::string& o : r.options) label += " " + o;
  return label;
}

}  // namespace

std::filesystem::path source_root() {
  if (const std::string d = env("KFORGE_SOURCE_DIR"); !d.empty()) return d;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // build/bin/kforge in a checkout, or bin/kforge beside an installed include/.
    for (const fs::path& root : {exe.parent_path() / "../..", exe.parent_path() / ".."})
      if (fs::exists(root / "include/kforge/run_abi.h", ec)) return fs::weakly_canonical(root);
  }
  return KFORGE_SOURCE_DIR;
}

std::vector<std::string> default_include_dirs() {
  const fs::path root = source_root();
  const std::string kforge = env("KFORGE_INCLUDE_DIR");
  std::vector<std::string> dirs{fs::weakly_canonical(kforge.empty() ? root / "include" : fs::path(kforge)).string()};
  const std::string cutlass = env("KFORGE_CUTLASS_INCLUDE");
  const std::string cuda_home = env("CUDA_HOME");
  for (const fs::path& optional :
       {cutlass.empty() ? root / "third_party/cutlass/cutlass_library/source/include" : fs::path(cutlass),
        fs::path(cuda_home.empty() ? "/usr/local/cuda" : cuda_home) / "include"}) {
    std::error_code ec;
    if (fs::is_directory(optional, ec)) dirs.push_back(fs::weakly_canonical(optional).string());
  }
  return dirs;
}

std::vector<std::string> nvrtc_options(const BuildRequest& request, const std::vector<std::string>& include_dirs) {
  std::vector<std::string> options{"-arch=" + request.arch, "-std=c++20", "-lineinfo", "-Xptxas=-v"};
  options.push_back("-I" + fs::weakly_canonical(fs::absolute(request.file)).parent_path().string());
  for (const std::string& d : include_dirs) options.push_back("-I" + d);
  options.insert(options.end(), request.options.begin(), request.options.end());
  return options;
}

std::string build_key(const std::string& path, const std::string& text, const std::vector<std::string>& options) {
  Fnv128 h;
  h.field("kforge-kernel-cache").field(std::to_string(KernelCache::kSchema)).field(nvrtc_identity());
  h.field(path).field(text);
  h.field(std::to_string(options.size()));
  for (const std::string& o : options) h.field(o);
  const IncludeScan scan = scan_includes(text, fs::path(path).parent_path().string(), include_dirs_of(options));
  h.field(std::to_string(scan.files.size()));
  for (const std::string& f : scan.files) h.field(f).field(read_file_bytes(f));
  h.field(std::to_string(scan.unresolved.size()));
  for (const std::string& name : scan.unresolved) h.field(name);
  return h.hex();
}

KernelImage build_kernel(const BuildRequest& request, const KernelCache& cache,
                         const std::vector<std::string>& include_dirs) {
  KernelImage image;
  image.file = request.file;
  image.label = label_of(request);
  const bool ptx = ends_with(request.file, ".ptx"), cubin = ends_with(request.file, ".cubin");
  if (ptx || cubin) {
    if (!request.options.empty())
      throw Error("compile options apply to CUDA sources only, but " + request.file + " is a " +
                  (ptx ? "PTX file (the driver compiles it when loading)" : "cubin"));
    image.kind = ptx ? ImageKind::ptx : ImageKind::cubin;
    image.bytes = read_file_bytes(request.file);
    return image;
  }
  const std::string text = read_file_bytes(request.file);
  const std::string path = fs::weakly_canonical(fs::absolute(request.file)).string();
  const std::vector<std::string> options = nvrtc_options(request, include_dirs);
  image.key = build_key(path, text, options);
  image.cache_file = cache.entry_path(image.key).string();
  std::string damage;
  if (std::optional<CachedKernel> hit = cache.load(image.key, &damage)) {
    image.bytes = std::move(hit->cubin);
    image.log = std::move(hit->log);
    image.cache = "hit";
    return image;
  }
  NvrtcOutput out = nvrtc_compile(text, path, options);
  image.cache = damage.empty() ? "miss" : "rebuilt (the entry was damaged: " + damage + ")";
  try {
    cache.store(image.key, {out.cubin, out.log});
  } catch (const Error& e) {
    // The build stands without the cache (read-only or full disk); the next run compiles again.
    image.cache += ", not stored: " + std::string(e.what());
  }
  image.bytes = std::move(out.cubin);
  image.log = std::move(out.log);
  return image;
}

std::string device_arch(const DeviceInfo& dev) {
  return "sm_" + std::to_string(dev.cc_major) + std::to_string(dev.cc_minor) + (dev.cc_major >= 9 ? "a" : "");
}

}  // namespace kforge
