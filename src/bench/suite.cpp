// Suite loading: JSON cases with PyTorch F.conv3d semantics.
#include "bench/suite.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace kforge {
namespace {

std::array<int64_t, 3> triple(const nlohmann::json& c, const char* key, int64_t fallback, const std::string& where) {
  if (!c.contains(key)) return {fallback, fallback, fallback};
  const auto& v = c.at(key);
  if (!v.is_array() || v.size() != 3) throw Error(where + ": expected '" + key + "' to be a list of 3 integers");
  return {v[0].get<int64_t>(), v[1].get<int64_t>(), v[2].get<int64_t>()};
}

}  // namespace

ConvProblem SuiteCase::problem(DType dtype, Layout layout, Activation activation) const {
  ConvParams p;
  p.activation = activation;
  p.stride.assign(stride.begin(), stride.end());
  p.padding.assign(padding.begin(), padding.end());
  p.dilation.assign(dilation.begin(), dilation.end());
  p.groups = groups;
  return ConvProblem::dense(N, C, K, input, kernel, p, dtype, layout, bias);
}

SuiteCase parse_suite_case(const nlohmann::json& c, const std::string& family, const std::string& where) {
  SuiteCase sc;
  sc.name = c.at("name").get<std::string>();
  const std::string at = where + " case " + sc.name;
  sc.why = c.value("why", "");
  sc.N = c.at("N").get<int64_t>();
  sc.C = c.at("C").get<int64_t>();
  sc.K = c.at("K").get<int64_t>();
  sc.input = {c.at("D").get<int64_t>(), c.at("H").get<int64_t>(), c.at("W").get<int64_t>()};
  sc.kernel = triple(c, "kernel", 1, at);
  sc.stride = triple(c, "stride", 1, at);
  sc.padding = triple(c, "padding", 0, at);
  sc.dilation = triple(c, "dilation", 1, at);
  sc.bias = c.value("bias", false);
  // The depthwise family is groups == C by definition; others may say so explicitly.
  sc.groups = c.value("groups", family == "depthwise" ? sc.C : int64_t{1});
  return sc;
}

const SuiteCase& Suite::find(const std::string& case_name) const {
  std::string names;
  for (const SuiteCase& c : cases) {
    if (c.name == case_name) return c;
    names += (names.empty() ? "" : ", ") + c.name;
  }
  throw Error("no case '" + case_name + "' in suite " + name + " (cases: " + names + ")");
}

Suite load_suite(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open suite file " + path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error("suite file " + path + " is not valid JSON: " + e.what());
  }
  Suite s;
  try {
    s.name = j.at("suite").get<std::string>();
    s.family = j.value("family", s.name);
    s.about = j.value("about", "");
    for (const auto& c : j.at("cases")) s.cases.push_back(parse_suite_case(c, s.family, path));
  } catch (const nlohmann::json::exception& e) {
    throw Error("suite file " + path + ": " + e.what());
  }
  return s;
}

std::string find_suite_file(const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("KFORGE_SUITES")) dirs.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path() / "../bench/suites");
    dirs.push_back(exe.parent_path() / "../../bench/suites");  // build/bin/kforge in a checkout
  }
  dirs.emplace_back(KFORGE_SOURCE_DIR "/bench/suites");
  for (const auto& d : dirs) {
    const fs::path f = d / (name + ".json");
    if (fs::exists(f)) return fs::weakly_canonical(f).string();
  }
  throw Error("suite '" + name + "' not found (looked in $KFORGE_SUITES, next to the executable and in " KFORGE_SOURCE_DIR "/bench/suites)");
}

}  // namespace kforge
