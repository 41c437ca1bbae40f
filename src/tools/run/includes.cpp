// Include scanning: a line-based reading of `#include` directives and a depth-first walk over the include folders.
#include "tools/run/includes.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "kforge/types.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;

struct Target {
  std::string name;
  bool quoted = false;
};

// `# include "x"` / `#include <x>`, with any blanks around '#'; "" when the line is something else.
Target parse_include(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return {};
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return {};
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos) return {};
  const char open = line[i];
  const char close = open == '"' ? '"' : open == '<' ? '>' : '\0';
  if (close == '\0') return {};  // #include MACRO, or #include_next
  const size_t end = line.find(close, i + 1);
  if (end == std::string::npos || end == i + 1) return {};
  return {line.substr(i + 1, end - i - 1), open == '"'};
}

std::vector<Target> targets_of(const std::string& text) {
  std::vector<Target> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (Target t = parse_include(line); !t.name.empty()) out.push_back(std::move(t));
  return out;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read included file " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Walker {
 public:
  explicit Walker(const std::vector<std::string>& include_dirs) : dirs_(include_dirs) {}

  void walk(const std::string& text, const fs::path& dir) {
    for (const Target& t : targets_of(text)) {
      const fs::path found = find(t, dir);
      if (found.empty()) {
        if (unresolved_seen_.insert(t.name).second) scan_.unresolved.push_back(t.name);
        continue;
      }
      if (!seen_.insert(found.string()).second) continue;
      scan_.files.push_back(found.string());
      walk(read_text(found), found.parent_path());
    }
  }

  IncludeScan result() && { return std::move(scan_); }

 private:
  fs::path find(const Target& t, const fs::path& dir) const {
    std::error_code ec;
    if (t.quoted && fs::is_regular_file(dir / t.name, ec)) return fs::weakly_canonical(dir / t.name);
    for (const std::string& d : dirs_)
      if (fs::is_regular_file(fs::path(d) / t.name, ec)) return fs::weakly_canonical(fs::path(d) / t.name);
    return {};
  }

  const std::vector<std::string>& dirs_;
  IncludeScan scan_;
  std::set<std::string> seen_, unresolved_seen_;
};

}  // namespace

IncludeScan scan_includes(const std::string& text, const std::string& text_dir,
                          const std::vector<std::string>& include_dirs) {
  Walker w(include_dirs);
  w.walk(text, text_dir);
  return std::move(w).result();
}

}  // namespace kforge
