// The per-user cache folder every kforge cache shares (ceilings, compiled kernels) and the one way files are
// written into it: atomically, so a reader never sees a torn file.
#pragma once

#include <filesystem>
#include <string>

namespace kforge {

// $KFORGE_CACHE_DIR, else $XDG_CACHE_HOME/kforge, else ~/.cache/kforge, else <system temp>/kforge.
std::filesystem::path cache_dir();

// Writes `bytes` to a temporary file beside `path` (creating the folder), fsyncs it and renames it over `path`:
// readers see the old file or the whole new one. Throws kforge::Error naming the step that failed.
void write_file_atomically(const std::filesystem::path& path, const std::string& bytes);

}  // namespace kforge
