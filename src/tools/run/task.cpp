// Task resolution: suite cases by SUITE/CASE, task files by path.
#include "tools/run/task.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/suite.hpp"

namespace kforge {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

RunTask from_case(std::string name, const std::string& suite, const SuiteCase& c, const std::string& dtype,
                  const std::string& layout) {
  RunTask t;
  t.name = std::move(name);
  t.suite = suite;
  t.case_name = c.name;
  t.problem = c.problem(parse_dtype(dtype), parse_layout(layout));
  return t;
}

RunTask load_task_file(const std::string& path, const std::string& dtype, const std::string& layout) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open task file " + path);
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    const std::string suite = j.at("suite").get<std::string>();
    const SuiteCase c = parse_suite_case(j, suite, path);
    RunTask t = from_case(path, suite, c, dtype.empty() ? j.value("dtype", "bf16") : dtype,
                          layout.empty() ? j.value("layout", "ncdhw") : layout);
    if (j.contains("tolerance")) {
      const nlohmann::json& tol = j.at("tolerance");
      t.max_calc_diff = tol.value("calc_diff", t.max_calc_diff);
      t.max_rel_l2 = tol.value("rel_l2", t.max_rel_l2);
      if (!(t.max_calc_diff >= 0 && t.max_rel_l2 >= 0))
        throw Error("task file " + path + ": expected non-negative tolerances, but got calc_diff " +
                    std::to_string(t.max_calc_diff) + ", rel_l2 " + std::to_string(t.max_rel_l2));
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw Error("task file " + path + ": " + e.what());
  }
}

}  // namespace

RunTask resolve_task(const std::string& spec, const std::string& dtype, const std::string& layout) {
  if (ends_with(spec, ".json")) return load_task_file(spec, dtype, layout);
  const size_t slash = spec.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == spec.size() || spec.find('/', slash + 1) != std::string::npos)
    throw Error("expected a task SUITE/CASE (e.g. depthwise/evokernel) or a task file ending in .json, but got '" +
                spec + "'");
  const Suite suite = load_suite(find_suite_file(spec.substr(0, slash)));
  return from_case(spec, suite.name, suite.find(spec.substr(slash + 1)), dtype.empty() ? "bf16" : dtype,
                   layout.empty() ? "ncdhw" : layout);
}

}  // namespace kforge
