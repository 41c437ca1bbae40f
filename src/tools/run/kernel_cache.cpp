// Cache entries: a header line "kforge-kernel-cache <schema>", one JSON line (key, cubin size, cubin FNV-1a-128,
// log), then the cubin bytes.
#include "tools/run/kernel_cache.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/cache_files.hpp"
#include "kforge/types.hpp"
#include "tools/run/fnv128.hpp"

namespace kforge {
namespace {

std::string header_line() { return "kforge-kernel-cache " + std::to_string(KernelCache::kSchema) + "\n"; }

std::string cubin_hash(const std::string& cubin) { return Fnv128().bytes(cubin).hex(); }

}  // namespace

KernelCache KernelCache::default_location() { return KernelCache(cache_dir() / "kernels"); }

std::filesystem::path KernelCache::entry_path(const std::string& key) const { return dir_ / (key + ".entry"); }

std::optional<CachedKernel> KernelCache::load(const std::string& key, std::string* damage) const {
  std::ifstream in(entry_path(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  const std::string file = s.str();
  auto damaged = [&](const std::string& why) -> std::optional<CachedKernel> {
    *damage = why;
    return std::nullopt;
  };
  const std::string header = header_line();
  if (file.compare(0, header.size(), header) != 0) return damaged("it does not start with '" + header.substr(0, header.size() - 1) + "'");
  const size_t meta_end = file.find('\n', header.size());
  if (meta_end == std::string::npos) return damaged("its metadata line is cut off");
  CachedKernel entry;
  std::string stored_key, stored_hash;
  size_t cubin_bytes = 0;
  try {
    const nlohmann::json meta = nlohmann::json::parse(file.substr(header.size(), meta_end - header.size()));
    stored_key = meta.at("key").get<std::string>();
    cubin_bytes = meta.at("cubin_bytes").get<size_t>();
    stored_hash = meta.at("cubin_fnv128").get<std::string>();
    entry.log = meta.at("log").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return damaged(std::string("its metadata is not valid: ") + e.what());
  }
  if (stored_key != key) return damaged("it holds the key " + stored_key);
  entry.cubin = file.substr(meta_end + 1);
  if (entry.cubin.size() != cubin_bytes)
    return damaged("its cubin has " + std::to_string(entry.cubin.size()) + " bytes, expected " + std::to_string(cubin_bytes));
  if (cubin_hash(entry.cubin) != stored_hash) return damaged("its cubin fails the checksum");
  return entry;
}

void KernelCache::store(const std::string& key, const CachedKernel& entry) const {
  // A log byte that is not UTF-8 is replaced rather than failing the whole entry.
  const nlohmann::json meta{{"key", key},
                            {"cubin_bytes", entry.cubin.size()},
                            {"cubin_fnv128", cubin_hash(entry.cubin)},
                            {"log", entry.log}};
  write_file_atomically(entry_path(key), header_line() + meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n" + entry.cubin);
}

}  // namespace kforge
