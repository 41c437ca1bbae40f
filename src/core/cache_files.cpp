// Cache folder convention and atomic writes (temporary file + fsync + rename within one file system).
#include "core/cache_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "kforge/types.hpp"

namespace kforge {

std::filesystem::path cache_dir() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (const std::string d = env("KFORGE_CACHE_DIR"); !d.empty()) return d;
  if (const std::string d = env("XDG_CACHE_HOME"); !d.empty()) return std::filesystem::path(d) / "kforge";
  if (const std::string d = env("HOME"); !d.empty()) return std::filesystem::path(d) / ".cache" / "kforge";
  // No home (some batch systems): a per-machine temporary location still avoids redoing the work every run.
  return std::filesystem::temp_directory_path() / "kforge";
}

void write_file_atomically(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  // The pid keeps two processes writing the same entry off each other's temporary file.
  const std::string tmp = path.string() + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const char* step, int err) {
    ::unlink(tmp.c_str());
    throw Error(std::string(step) + " " + tmp + ": " + std::strerror(err));
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("cannot create", errno);
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t written = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      const int err = errno;
      ::close(fd);
      fail("cannot write", err);
    }
    done += static_cast<size_t>(written);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail("cannot fsync", err);
  }
  if (::close(fd) != 0) fail("cannot close", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot rename", errno);
}

}  // namespace kforge
