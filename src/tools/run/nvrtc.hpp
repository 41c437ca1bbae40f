// NVRTC: CUDA C++ source -> cubin for one architecture, in process (works without a GPU).
#pragma once

#include <string>
#include <vector>

namespace kforge {

struct NvrtcOutput {
  std::string cubin;  // the ELF image
  std::string log;    // compiler warnings and, with -Xptxas=-v, ptxas' resource report
};

// Compiles `source` (called `name` in messages and line info) with `options` (passed as they are: -arch, -I, -D,
// ...). Throws kforge::Error with NVRTC's log when it fails.
NvrtcOutput nvrtc_compile(const std::string& source, const std::string& name, const std::vector<std::string>& options);

// Which NVRTC this process uses: "nvrtc 13.0 <library file> <size> <mtime>". The file's size and time make a
// patch update of the library change the compiled-kernel cache key too.
std::string nvrtc_identity();

}  // namespace kforge
