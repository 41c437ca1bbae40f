// Benchmark suites (bench/suites/*.json, copies of the project's acceptance cases): cases -> ConvProblems.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kforge/conv.hpp"

namespace kforge {

struct SuiteCase {
  std::string name, why;
  int64_t N = 1, C = 1, K = 1, groups = 1;
  std::array<int64_t, 3> input{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, padding{0, 0, 0}, dilation{1, 1, 1};
  bool bias = false;
  ConvProblem problem(DType dtype, Layout layout, Activation activation = Activation::none) const;
};

struct Suite {
  std::string name;    // the file's "suite": "depthwise", "dense", "dense-vae", ...
  std::string family;  // the variants it runs: the file's "family", else its name
  std::string about;
  std::vector<SuiteCase> cases;
  const SuiteCase& find(const std::string& case_name) const;  // throws Error listing the names
};

// One case of a suite file (also the body of a `kforge run` task file); `where` starts its error messages.
// Throws nlohmann::json exceptions for missing or mistyped fields, kforge::Error for malformed lists.
SuiteCase parse_suite_case(const nlohmann::json& c, const std::string& family, const std::string& where);

// Parses a suite file; throws kforge::Error naming the file and the offending field.
Suite load_suite(const std::string& path);

// The suite file of that name: $KFORGE_SUITES/<name>.json, else bench/suites/<name>.json next to the
// executable's install tree or the source tree this binary was built from.
std::string find_suite_file(const std::string& name);

}  // namespace kforge
