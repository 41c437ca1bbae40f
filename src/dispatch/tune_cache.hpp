// The autotune cache: the variant `kforge tune` measured fastest for a problem on a device, consulted by the dense
// dispatch rule before its tile heuristic. One JSON file, cache_dir()/autotune.json:
//   {"devices": {"<device key>": {"gpu", "sm_count", "cuda_runtime", "kforge", "schema",
//                                "problems": {"<ConvProblem::key()>": {"winner", "median_ms", "tuned_at", ...}}}}}
// An entry holds only for the device key it was measured under (GPU, SM count, CUDA runtime, kforge version, cache
// schema); entries of other keys stay in the file, unused. Limits: a process reads the file once (per cache folder),
// so a running process does not see entries another process writes later; two tuners writing at the same moment
// can lose one of their entries (each rewrites the file it read just before).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/registry.hpp"
#include "measure/device_info.hpp"

namespace kforge {

// Version of the entries' layout: a change makes every older entry stale.
inline constexpr int kTuneCacheSchema = 1;

// What a measured ranking depends on besides the problem.
struct DeviceKey {
  std::string gpu;           // cudaDeviceProp::name
  int sm_count = 0;
  int cuda_runtime = 0;      // cudaRuntimeGetVersion: 13000 is 13.0
  std::string kforge_version;
  int schema = kTuneCacheSchema;
  // "NVIDIA H200, 132 SMs, CUDA runtime 13.0, kforge 0.1.0, autotune schema 1": the key of the file's section.
  std::string str() const;
};

// The key of this build of kforge on that device.
DeviceKey device_key(const DeviceInfo& d);

struct TunedCandidate {
  std::string variant;
  std::string status;               // PASS | FAIL | ERROR | SKIP, as in BenchRow
  std::optional<double> median_ms;  // when timed (PASS)
  std::string reason;               // why it was refused (SKIP) or failed
};

struct TuneEntry {
  std::string problem;   // ConvProblem::describe(), for people reading the file
  std::string winner;    // variant name
  double median_ms = 0;  // the winner's
  std::string tuned_at;  // ISO 8601 UTC
  std::vector<TunedCandidate> candidates;  // every library variant of the family, in registry order
  int timed() const;     // candidates that passed the check and were timed
};

// The file's content. Pure: reads and writes only when asked, prints nothing.
class TuneCache {
 public:
  // Reads `path`; a missing file is an empty cache. A file that cannot be read, is not JSON or has wrong types
  // gives an empty cache whose corrupt() says why; save() then replaces it.
  static TuneCache load(std::filesystem::path path);

  const std::filesystem::path& path() const { return path_; }
  const std::string& corrupt() const { return corrupt_; }
  bool empty() const { return sections_.empty() && foreign_.empty(); }

  // The entry of that problem under that device key, or null.
  const TuneEntry* find(const std::string& device_key, const std::string& problem_key) const;
  void put(const DeviceKey& device, const std::string& problem_key, TuneEntry entry);
  // The device keys with entries, other than `current`: stale for this process.
  std::vector<std::string> other_devices(const DeviceKey& current) const;

  std::string dump() const;  // the file's JSON text
  void save();               // write_file_atomically(path(), dump()); corrupt() is "" after it

 private:
  struct Section {
    DeviceKey device;
    std::map<std::string, TuneEntry> entries;  // by problem key
  };
  std::filesystem::path path_;
  std::string corrupt_;
  std::map<std::string, Section> sections_;     // schema kTuneCacheSchema, by DeviceKey::str()
  std::map<std::string, std::string> foreign_;  // other schemas: their JSON text, written back untouched
};

// cache_dir() / "autotune.json".
std::filesystem::path tune_cache_path();

// This process's view of the cache file at tune_cache_path(): read on first use (and again when the cache folder
// changes); a corrupt file is reported once on stderr.
TuneCache tune_cache();

// Adds (or replaces) the entry of `p` under `device`: re-reads the file (keeping what other processes wrote),
// writes it atomically and updates this process's view. Throws kforge::Error when the file cannot be written.
void record_tuned(const DeviceKey& device, const ConvProblem& p, const TuneEntry& entry);

// The variant the autotune cache holds for `p` on the current device, or null: KFORGE_AUTOTUNE=0, no entry, no
// device, or the recorded winner is no longer registered, an anchor, or refuses `p`. *why says which (and, when
// found, "autotuned: fastest of N candidates, X ms").
const Variant* tuned_variant(const ConvProblem& p, std::string* why);

}  // namespace kforge
