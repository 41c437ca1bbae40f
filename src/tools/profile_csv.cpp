// Reading ncu's raw CSV page: records are split by hand (quotes, doubled quotes, CRLF), numbers lose their
// thousands separators, values are scaled to base units so that readers never depend on ncu's unit choice.
#include "tools/profile_csv.hpp"

#include <array>
#include <cstdlib>
#include <sstream>

#include "kforge/types.hpp"

namespace kforge {
namespace {

// Metric names are "<unit>__<counter>[.<rollup>...]"; launch facts ("Kernel Name", "Block Size") never hold "__".
bool is_metric_column(const std::string& name) { return name.find("__") != std::string::npos; }

// A line that is ncu's own message or a blank line, not a record of the report.
bool is_noise(const std::string& line) {
  return line.empty() || line.rfind("==", 0) == 0;
}

}  // namespace

std::string NcuKernel::name() const {
  const auto it = launch.find("Kernel Name");
  return it == launch.end() ? "" : it->second;
}

std::optional<double> NcuKernel::value(const std::string& metric) const {
  const auto it = metrics.find(metric);
  return it == metrics.end() ? std::nullopt : it->second.value;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') fields.back() += c;
      else if (i + 1 < line.size() && line[i + 1] == '"') fields.back() += line[++i];  // "" inside quotes
      else quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

std::optional<double> parse_ncu_number(const std::string& text) {
  std::string digits;
  for (const char c : text)
    if (c != ',' && c != ' ') digits += c;
  if (digits.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size()) return std::nullopt;
  return v;
}

std::pair<double, std::string> unit_scale(const std::string& unit) {
  // One factor per prefix of the base words ncu uses (decimal: "Kbyte" is 1000 bytes). With --print-units base
  // ncu prints base units already; this keeps a report printed with scaled units readable.
  static constexpr std::array<std::pair<const char*, double>, 7> kPrefixes{
      {{"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}}};
  // Spelling -> base unit: ncu 2025+ abbreviates seconds ("ns", "byte/s"), older reports spell them out.
  static constexpr std::array<std::pair<const char*, const char*>, 5> kBases{
      {{"second", "second"}, {"s", "second"}, {"byte", "byte"}, {"cycle", "cycle"}, {"inst", "inst"}}};
  const auto scale_word = [&](const std::string& word) -> std::pair<double, std::string> {
    for (const auto& [spelling, base] : kBases) {
      if (word == spelling) return {1.0, base};
      for (const auto& [prefix, factor] : kPrefixes)
        if (word == std::string(prefix) + spelling) return {factor, base};
    }
    return {1.0, word};
  };
  const size_t slash = unit.find('/');
  if (slash == std::string::npos) return scale_word(unit);
  const auto [num, num_base] = scale_word(unit.substr(0, slash));
  const auto [den, den_base] = scale_word(unit.substr(slash + 1));
  return {num / den, num_base + "/" + den_base};
}

std::vector<NcuKernel> parse_ncu_csv(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> header, units;
  std::vector<NcuKernel> kernels;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (is_noise(line)) continue;
    std::vector<std::string> fields = split_csv_line(line);
    if (header.empty()) {
      if (fields.size() > 1 && fields[0] == "ID" && line.front() == '"') header = std::move(fields);
      continue;  // whatever came before the report: the profiled program's output
    }
    if (fields.size() != header.size())
      throw Error("ncu CSV: a row has " + std::to_string(fields.size()) + " fields, but the header has " +
                  std::to_string(header.size()) + ": " + line.substr(0, 200));
    if (fields[0].empty() && kernels.empty() && units.empty()) {
      units = std::move(fields);
      continue;
    }
    NcuKernel k;
    k.id = fields[0];
    for (size_t i = 0; i < header.size(); ++i) {
      if (!is_metric_column(header[i])) {
        k.launch[header[i]] = fields[i];
        continue;
      }
      NcuMetric m;
      m.text = fields[i];
      const auto [factor, base] = unit_scale(units.empty() ? "" : units[i]);
      m.unit = base;
      if (const auto v = parse_ncu_number(fields[i])) m.value = *v * factor;
      k.metrics[header[i]] = std::move(m);
    }
    kernels.push_back(std::move(k));
  }
  if (header.empty()) throw Error("ncu CSV: no report header (a line starting with \"ID\") in ncu's output");
  return kernels;
}

}  // namespace kforge
