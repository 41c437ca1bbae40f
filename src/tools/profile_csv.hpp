// Nsight Compute's CSV (`ncu --csv --page raw`) read back: one header row of column names (launch facts such as
// "ID" and "Kernel Name", then one column per metric), an optional units row (its "ID" is empty), then one row per
// profiled kernel. Fields are quoted; numbers may carry thousands separators ("10,240,000"); anything else ncu
// prints into the same stream (==PROF== lines, the profiled program's output) is skipped.
// Limits: the C locale's number format (',' groups thousands, '.' is the decimal point), as ncu prints it there.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kforge {

// One metric of one kernel, its value scaled to base units (seconds, bytes, bytes/second, ...).
struct NcuMetric {
  std::string text;             // as ncu printed it
  std::string unit;             // the base unit the value is in ("second", "byte", "byte/second", "%", ...)
  std::optional<double> value;  // nullopt when the field is not a number ("n/a")
};

// One profiled kernel launch.
struct NcuKernel {
  std::string id;                        // ncu's launch ID
  std::map<std::string, std::string> launch;  // the non-metric columns: "Kernel Name", "Block Size", ...
  std::map<std::string, NcuMetric> metrics;   // by metric name ("gpu__time_duration.sum")
  std::string name() const;              // launch["Kernel Name"]
  std::optional<double> value(const std::string& metric) const;  // nullopt when absent or not a number
};

// The fields of one CSV record: quoted ("a, b" stays one field; "" is a quote inside quotes) or bare.
std::vector<std::string> split_csv_line(const std::string& line);

// A number as ncu prints it: "1,234.5" -> 1234.5, "4.0e-05", "-3"; nullopt for anything else ("n/a", "").
std::optional<double> parse_ncu_number(const std::string& text);

// The factor from `unit` to its base unit and that base unit: "nsecond" -> {1e-9, "second"},
// "Gbyte/second" -> {1e9, "byte/second"}, "msecond" -> {1e-3, "second"}, "%" -> {1, "%"}; unknown units as is.
std::pair<double, std::string> unit_scale(const std::string& unit);

// Every kernel of the report in `text` (the whole ncu output). Throws kforge::Error when no header row is there
// or a row's field count differs from the header's.
std::vector<NcuKernel> parse_ncu_csv(const std::string& text);

}  // namespace kforge
