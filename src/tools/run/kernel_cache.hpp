// The compiled-kernel cache of `kforge run` / `compare`: one file per build key in <cache_dir()>/kernels/
// (the folder convention of the ceilings cache: $KFORGE_CACHE_DIR, else $XDG_CACHE_HOME/kforge, else
// ~/.cache/kforge). An entry is written atomically; one that is truncated, foreign or fails its checksum is
// reported as damaged and the caller rebuilds it. Limits: entries are never evicted (a few tens of KB each).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kforge {

struct CachedKernel {
  std::string cubin;
  std::string log;  // the compiler's log of that build (ptxas' resource report), shown again on a hit
};

class KernelCache {
 public:
  // Bumped when the entry format or the key's composition changes: old entries are then never looked up.
  static constexpr int kSchema = 1;

  explicit KernelCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
  // <cache_dir()>/kernels
  static KernelCache default_location();

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path entry_path(const std::string& key) const;

  // The entry of `key`: nullopt when there is none, or when it is damaged (then *damage says how).
  std::optional<CachedKernel> load(const std::string& key, std::string* damage) const;
  // Writes the entry of `key` atomically (replacing a damaged one). Throws kforge::Error when it cannot.
  void store(const std::string& key, const CachedKernel& entry) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace kforge
