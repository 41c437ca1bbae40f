// What `kforge run` and `kforge compare` execute: a kernel image made from a CUDA source (NVRTC, through the
// compiled-kernel cache), a PTX file (compiled by the driver when loaded) or a cubin (loaded as it is).
// The cache key is the FNV-1a-128 of: the cache schema, the NVRTC identity (version and library file), the
// source's path and text, every NVRTC option (architecture, include folders, user options), and the path and
// content of every file the source includes (tools/run/includes.hpp). Any change to one of them rebuilds.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tools/run/kernel_cache.hpp"

namespace kforge {

struct DeviceInfo;

enum class ImageKind { cubin, ptx };

struct BuildRequest {
  std::string file;                  // *.ptx: PTX; *.cubin: a cubin; anything else: CUDA C++
  std::vector<std::string> options;  // NVRTC options after the defaults, e.g. -DKFORGE_EXTRA_WORK=10 (CUDA only)
  std::string arch;                  // "sm_90a" (CUDA sources only)
};

struct KernelImage {
  std::string file;
  std::string label;  // file name and user options: how tables and the history name this build
  ImageKind kind = ImageKind::cubin;
  std::string bytes;  // the cubin, or the PTX text
  std::string log;    // CUDA sources: NVRTC's log with ptxas' resource report
  std::string cache;  // CUDA sources: "hit", "miss" or "rebuilt (<why the entry was damaged>)"; else ""
  std::string key;    // CUDA sources: the cache key
  std::string cache_file;
};

// The source tree whose include/, third_party/ and examples/ the tools read: $KFORGE_SOURCE_DIR, else the checkout
// holding the executable (build/bin/x) or the install beside it (bin/x), else the tree it was built from.
std::filesystem::path source_root();

// NVRTC's include folders: the source's own folder, then kforge's include/ ($KFORGE_INCLUDE_DIR, else include/ of
// the source tree: $KFORGE_SOURCE_DIR, else the checkout holding the executable, else the tree it was built from),
// then, when they exist, the CUTLASS/CuTe headers ($KFORGE_CUTLASS_INCLUDE, else
// third_party/cutlass/cutlass_library/source/include of that tree) and the CUDA toolkit's ($CUDA_HOME/include,
// default /usr/local/cuda/include).
std::vector<std::string> default_include_dirs();

// Every option NVRTC gets for a CUDA source: -arch, -std=c++20, -lineinfo, -Xptxas=-v (the resource report),
// one -I per include folder (`include_dirs`, after the source's folder), then the request's options.
std::vector<std::string> nvrtc_options(const BuildRequest& request, const std::vector<std::string>& include_dirs);

// The cache key of a CUDA source (see the file comment); `options` as nvrtc_options returns them.
std::string build_key(const std::string& path, const std::string& text, const std::vector<std::string>& options);

// The image of request.file; CUDA sources are looked up in `cache` and compiled on a miss or a damaged entry.
// Throws kforge::Error for unreadable files, compile errors and options given for a PTX or cubin.
KernelImage build_kernel(const BuildRequest& request, const KernelCache& cache,
                         const std::vector<std::string>& include_dirs);

// The architecture NVRTC targets for a device: sm_<major><minor>, with the 'a' suffix from sm_90 on (wgmma, TMA
// and their successors are arch-specific), e.g. sm_90a on an H200.
std::string device_arch(const DeviceInfo& dev);

}  // namespace kforge
