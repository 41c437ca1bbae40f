// The autotune cache file (strict reading: any wrong type makes the whole file corrupt, and it is rebuilt) and the
// per-process view of it that the dispatch rules consult on every call.
#include "dispatch/tune_cache.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "core/cache_files.hpp"

namespace kforge {
namespace {

using nlohmann::json;

const json& object_at(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_object()) throw Error(std::string("expected '") + key + "' to be an object, but got " + v.type_name());
  return v;
}

TunedCandidate candidate_from_json(const json& j) {
  TunedCandidate c;
  c.variant = j.at("variant").get<std::string>();
  c.status = j.at("status").get<std::string>();
  if (j.contains("median_ms")) c.median_ms = j.at("median_ms").get<double>();
  c.reason = j.value("reason", "");
  return c;
}

TuneEntry entry_from_json(const json& j) {
  TuneEntry e;
  e.problem = j.at("problem").get<std::string>();
  e.winner = j.at("winner").get<std::string>();
  e.median_ms = j.at("median_ms").get<double>();
  e.tuned_at = j.at("tuned_at").get<std::string>();
  // A winner that took no time would be a measurement bug, not a fast kernel.
  if (!(e.median_ms > 0)) throw Error("expected a positive median_ms, but got " + std::to_string(e.median_ms));
  const json& candidates = j.at("candidates");
  if (!candidates.is_array()) throw Error(std::string("expected 'candidates' to be an array, but got ") +
                                          candidates.type_name());
  for (const json& c : candidates) e.candidates.push_back(candidate_from_json(c));
  return e;
}

json to_json(const TuneEntry& e) {
  json candidates = json::array();
  for (const TunedCandidate& c : e.candidates) {
    json j{{"variant", c.variant}, {"status", c.status}};
    if (c.median_ms) j["median_ms"] = *c.median_ms;
    if (!c.reason.empty()) j["reason"] = c.reason;
    candidates.push_back(std::move(j));
  }
  return json{{"problem", e.problem},   {"winner", e.winner},         {"median_ms", e.median_ms},
              {"tuned_at", e.tuned_at}, {"candidates", candidates}};
}

// What every cache user in this process shares, behind one lock.
struct ProcessView {
  std::mutex mu;
  std::optional<TuneCache> cache;
  std::set<std::string> reported;         // corrupt files already reported
  std::map<int, std::string> device_keys; // by device ordinal: DeviceKey::str()
};

ProcessView& process_view() {
  static ProcessView v;
  return v;
}

// Reads the file, reporting it when corrupt (once per file and process). The caller holds the lock.
TuneCache read_reporting(ProcessView& v, const std::filesystem::path& path) {
  TuneCache c = TuneCache::load(path);
  if (!c.corrupt().empty() && v.reported.insert(path.string()).second)
    std::cerr << "kforge: autotune cache " << path.string() << " is corrupt (" << c.corrupt() << "): rebuilding it\n";
  return c;
}

// The view of the current cache folder's file. The caller holds the lock.
const TuneCache& current_cache(ProcessView& v) {
  const std::filesystem::path path = tune_cache_path();
  if (!v.cache || v.cache->path() != path) v.cache = read_reporting(v, path);
  return *v.cache;
}

// The current device's key, queried once per device. The caller holds the lock.
const std::string* current_device_key(ProcessView& v, std::string& why) {
  int ordinal = 0;
  if (const cudaError_t err = cudaGetDevice(&ordinal); err != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so the caller's next CUDA call does not report it
    why = std::string("no CUDA device (") + cudaGetErrorName(err) + ")";
    return nullptr;
  }
  auto it = v.device_keys.find(ordinal);
  if (it == v.device_keys.end()) {
    try {
      it = v.device_keys.emplace(ordinal, device_key(query_device(ordinal)).str()).first;
    } catch (const Error& e) {
      why = e.what();
      return nullptr;
    }
  }
  return &it->second;
}

const Variant* lookup(const ConvProblem& p, std::string& why) {
  if (const char* env = std::getenv("KFORGE_AUTOTUNE"); env && std::string(env) == "0") {
    why = "autotune off (KFORGE_AUTOTUNE=0)";
    return nullptr;
  }
  ProcessView& v = process_view();
  const std::lock_guard<std::mutex> lock(v.mu);
  const TuneCache& cache = current_cache(v);
  if (cache.empty()) {  // the common case until someone tunes: no device query at all
    why = "nothing tuned (kforge tune)";
    return nullptr;
  }
  const std::string* device = current_device_key(v, why);
  if (!device) return nullptr;
  const TuneEntry* e = cache.find(*device, p.key());
  if (!e) {
    why = "not tuned on this device";
    return nullptr;
  }
  const Variant* winner = Registry::instance().find(e->winner);
  if (!winner || !winner->library) {
    why = "the tuned winner " + e->winner + (winner ? " is a comparison anchor" : " is no longer registered");
    return nullptr;
  }
  if (const std::string refusal = winner->accepts(p); !refusal.empty()) {
    why = "the tuned winner " + e->winner + " now refuses this problem: " + refusal;
    return nullptr;
  }
  why = fmt::format("autotuned: fastest of {} candidates, {:.4g} ms", e->timed(), e->median_ms);
  return winner;
}

}  // namespace

std::string DeviceKey::str() const {
  return fmt::format("{}, {} SMs, CUDA runtime {}.{}, kforge {}, autotune schema {}", gpu, sm_count,
                     cuda_runtime / 1000, cuda_runtime % 1000 / 10, kforge_version, schema);
}

DeviceKey device_key(const DeviceInfo& d) {
  return DeviceKey{d.name, d.sm_count, d.runtime_version, KFORGE_VERSION, kTuneCacheSchema};
}

int TuneEntry::timed() const {
  return static_cast<int>(std::count_if(candidates.begin(), candidates.end(),
                                        [](const TunedCandidate& c) { return c.median_ms.has_value(); }));
}

TuneCache TuneCache::load(std::filesystem::path path) {
  TuneCache c;
  c.path_ = std::move(path);
  std::error_code no_throw;
  if (!std::filesystem::exists(c.path_, no_throw)) return c;
  try {
    std::ifstream in(c.path_);
    if (!in) throw Error(std::string("cannot read it: ") + std::strerror(errno));
    std::stringstream text;
    text << in.rdbuf();
    const json j = json::parse(text.str());
    if (!j.is_object()) throw Error(std::string("expected an object, but got ") + j.type_name());
    for (const auto& [key, s] : object_at(j, "devices").items()) {
      if (!s.is_object()) throw Error("expected device '" + key + "' to be an object, but got " + s.type_name());
      const int schema = s.at("schema").get<int>();
      if (schema != kTuneCacheSchema) {  // another kforge's layout: not ours to read
        c.foreign_[key] = s.dump();
        continue;
      }
      Section section{DeviceKey{s.at("gpu").get<std::string>(), s.at("sm_count").get<int>(),
                                s.at("cuda_runtime").get<int>(), s.at("kforge").get<std::string>(), schema},
                      {}};
      if (section.device.str() != key)
        throw Error("device '" + key + "' holds the fields of '" + section.device.str() + "'");
      for (const auto& [problem, e] : object_at(s, "problems").items()) section.entries[problem] = entry_from_json(e);
      c.sections_[key] = std::move(section);
    }
  } catch (const std::exception& e) {  // nlohmann's parse and type errors, and ours
    c.corrupt_ = e.what();
    c.sections_.clear();
    c.foreign_.clear();
  }
  return c;
}

const TuneEntry* TuneCache::find(const std::string& device_key, const std::string& problem_key) const {
  const auto section = sections_.find(device_key);
  if (section == sections_.end()) return nullptr;
  const auto entry = section->second.entries.find(problem_key);
  return entry == section->second.entries.end() ? nullptr : &entry->second;
}

void TuneCache::put(const DeviceKey& device, const std::string& problem_key, TuneEntry entry) {
  Section& section = sections_[device.str()];
  section.device = device;
  section.entries[problem_key] = std::move(entry);
}

std::vector<std::string> TuneCache::other_devices(const DeviceKey& current) const {
  std::vector<std::string> out;
  const std::string mine = current.str();
  for (const auto& [key, section] : sections_)
    if (key != mine) out.push_back(key);
  for (const auto& [key, text] : foreign_) out.push_back(key);
  return out;
}

std::string TuneCache::dump() const {
  json devices = json::object();
  for (const auto& [key, section] : sections_) {
    json problems = json::object();
    for (const auto& [problem, e] : section.entries) problems[problem] = to_json(e);
    const DeviceKey& d = section.device;
    devices[key] = json{{"gpu", d.gpu}, {"sm_count", d.sm_count}, {"cuda_runtime", d.cuda_runtime},
                        {"kforge", d.kforge_version}, {"schema", d.schema}, {"problems", std::move(problems)}};
  }
  for (const auto& [key, text] : foreign_) devices[key] = json::parse(text);
  return json{{"devices", std::move(devices)}}.dump(1) + "\n";
}

void TuneCache::save() {
  write_file_atomically(path_, dump());
  corrupt_.clear();  // the file now holds what this object holds
}

std::filesystem::path tune_cache_path() { return cache_dir() / "autotune.json"; }

TuneCache tune_cache() {
  ProcessView& v = process_view();
  const std::lock_guard<std::mutex> lock(v.mu);
  return current_cache(v);
}

void record_tuned(const DeviceKey& device, const ConvProblem& p, const TuneEntry& entry) {
  ProcessView& v = process_view();
  const std::lock_guard<std::mutex> lock(v.mu);
  TuneCache fresh = read_reporting(v, tune_cache_path());
  fresh.put(device, p.key(), entry);
  fresh.save();
  v.cache = std::move(fresh);
}

const Variant* tuned_variant(const ConvProblem& p, std::string* why) {
  std::string reason;
  const Variant* v = lookup(p, reason);
  if (why) *why = std::move(reason);
  return v;
}

}  // namespace kforge
