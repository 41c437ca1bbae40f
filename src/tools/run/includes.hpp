// The files a CUDA source includes, found the way the compiler finds them, for the compiled-kernel cache key
// (NVRTC reports no dependencies). Conservative: every #include line counts, also one inside an #if block or a
// comment, so a key may change without need but never stays when an included file changed.
// Limits: a computed include (#include MACRO) is not followed; a name found on no include folder (NVRTC's
// built-in headers) is listed as unresolved, and is covered by the NVRTC version in the key.
#pragma once

#include <string>
#include <vector>

namespace kforge {

struct IncludeScan {
  std::vector<std::string> files;       // absolute paths, each once, in the order first reached (depth first)
  std::vector<std::string> unresolved;  // names no include folder holds, each once
};

// Every file `text` includes, directly or not. A quoted name is looked up first next to the file that includes it
// (for `text` itself: `text_dir`), then in `include_dirs` in order; an angled name only in `include_dirs`.
IncludeScan scan_includes(const std::string& text, const std::string& text_dir,
                          const std::vector<std::string>& include_dirs);

}  // namespace kforge
