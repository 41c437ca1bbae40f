// The report page: rows of one GPU -> per family a roofline chart, trajectory charts and a best-rows table. Charts
// are drawn by report_chart.*; this file decides what is plotted and writes the HTML around it.
#include "tools/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "tools/report_chart.hpp"
#include "tools/svg.hpp"

namespace kforge {
namespace {

// System fonts only: the page must render offline, with nothing fetched.
constexpr const char* kStyle = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; max-width: 1100px; }
h1 { font-size: 22px; } h2 { font-size: 19px; border-bottom: 1px solid #ccc; } h3 { font-size: 16px; }
.meta, .note { color: #555; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 8px; border-bottom: 1px solid #e4e4e4; text-align: right; }
th:nth-child(-n+4), td:nth-child(-n+4) { text-align: left; }
svg { display: block; margin: 8px 0 16px; }
svg text { font-size: 11px; fill: #333; }
svg .chart-title { font-size: 13px; font-weight: 600; }
svg .axis-label { font-size: 12px; }
svg .grid { stroke: #eee; } svg .frame { fill: none; stroke: #999; }
svg .guide { fill: none; stroke: #b00; stroke-width: 1.5; stroke-dasharray: 6 3; }
svg .guide-label { fill: #b00; }
svg .ln { fill: none; stroke-width: 1.5; } svg .pt { stroke: #fff; stroke-width: 1; }
.c0 { stroke: #1f77b4; fill: #1f77b4; } .c1 { stroke: #ff7f0e; fill: #ff7f0e; } .c2 { stroke: #2ca02c; fill: #2ca02c; }
.c3 { stroke: #d62728; fill: #d62728; } .c4 { stroke: #9467bd; fill: #9467bd; } .c5 { stroke: #8c564b; fill: #8c564b; }
.c6 { stroke: #e377c2; fill: #e377c2; } .c7 { stroke: #7f7f7f; fill: #7f7f7f; } .c8 { stroke: #bcbd22; fill: #bcbd22; }
.c9 { stroke: #17becf; fill: #17becf; }
)css";

bool timed_pass(const HistoryRecord& r) { return r.status == "PASS" && r.median_ms && *r.median_ms > 0; }

double tflops(const HistoryRecord& r) { return *r.flops / (*r.median_ms * 1e-3) / 1e12; }
double tbps(const HistoryRecord& r) { return *r.bytes / (*r.median_ms * 1e-3) / 1e12; }
bool has_work(const HistoryRecord& r) { return r.flops && r.bytes && *r.flops > 0 && *r.bytes > 0; }

struct Ceil {
  double copy_tbps, gemm_tflops;
};

// The override, else the newest row that recorded both ceilings.
std::optional<Ceil> ceilings_of(const std::vector<HistoryRecord>& rows, const ReportOptions& opt) {
  if (opt.copy_tbps && opt.gemm_bf16_tflops) return Ceil{*opt.copy_tbps, *opt.gemm_bf16_tflops};
  for (auto it = rows.rbegin(); it != rows.rend(); ++it)
    if (it->copy_tbps && it->gemm_bf16_tflops) return Ceil{*it->copy_tbps, *it->gemm_bf16_tflops};
  return std::nullopt;
}

// Colors by variant name, the same in every chart of a family.
std::map<std::string, int> variant_colors(const std::vector<HistoryRecord>& rows) {
  std::set<std::string> names;
  for (const HistoryRecord& r : rows) names.insert(r.variant);
  std::map<std::string, int> colors;
  for (const std::string& n : names) colors.emplace(n, static_cast<int>(colors.size()));
  return colors;
}

// "12.3%" for a ratio of 0.123; "-" when unknown.
std::string percent(const std::optional<double>& ratio) { return ratio ? fmt::format("{:.1f}%", *ratio * 100) : "-"; }

std::string roofline_section(const std::vector<HistoryRecord>& rows, const std::optional<Ceil>& ceil,
                             const std::map<std::string, int>& colors) {
  Chart chart{"Roofline: best row of each case and variant", {"arithmetic intensity (FLOP/byte, log)", true},
              {"achieved TFLOP/s (log)", true}, {}, {}};
  std::map<std::string, ChartSeries> by_variant;
  double ai_lo = 0, ai_hi = 0;
  int without_work = 0;
  for (const HistoryRecord& r : best_rows(rows, /*per_layout=*/false)) {
    if (!has_work(r)) {
      ++without_work;
      continue;
    }
    const double ai = *r.flops / *r.bytes;
    ai_lo = ai_lo == 0 ? ai : std::min(ai_lo, ai);
    ai_hi = std::max(ai_hi, ai);
    const std::optional<double> floor = ceil ? roofline_floor_ms(r, ceil->copy_tbps, ceil->gemm_tflops) : std::nullopt;
    ChartSeries& s = by_variant[r.variant];
    s.name = r.variant;
    s.color = colors.at(r.variant);
    s.points.push_back({ai, tflops(r),
                        fmt::format("{} · {} ({} {}): {:.4f} ms, {:.2f} TFLOP/s, {:.3f} TB/s, {:.1f} FLOP/B{} — {} {}",
                                    r.case_name, r.variant, r.layout, r.dtype, *r.median_ms, tflops(r), tbps(r), ai,
                                    floor ? ", " + percent(*floor / *r.median_ms) + " of roofline" : "",
                                    r.time_utc, r.git_revision)});
  }
  for (auto& [name, s] : by_variant) chart.series.push_back(std::move(s));
  std::string notes;
  if (ceil && ai_hi > 0) {
    const double ridge = ceil->gemm_tflops / ceil->copy_tbps;
    const double lo = std::min(ai_lo, ridge) / 3, hi = std::max(ai_hi, ridge) * 3;
    chart.guides.push_back({fmt::format("copy {:.2f} TB/s", ceil->copy_tbps),
                            {{lo, ceil->copy_tbps * lo}, {ridge, ceil->gemm_tflops}},
                            /*label_at_start=*/true});
    chart.guides.push_back({fmt::format("bf16 GEMM {:.0f} TFLOP/s", ceil->gemm_tflops),
                            {{ridge, ceil->gemm_tflops}, {hi, ceil->gemm_tflops}},
                            /*label_at_start=*/false});
  } else if (!ceil) {
    notes += "<p class=\"note\">No ceilings recorded in these rows (kforge bench records them; or pass --ceilings): "
             "the roofline has no ceiling lines.</p>";
  }
  if (without_work > 0)
    notes += fmt::format("<p class=\"note\">{} best row(s) were recorded before the history kept FLOPs and bytes "
                         "(schema 2) and are not on the roofline.</p>",
                         without_work);
  return "<h3>Roofline</h3>" + render_chart(chart) + notes;
}

// Per case, layout and dtype: each variant's median over the runs that timed it, runs numbered oldest first.
std::string trajectory_section(const std::vector<HistoryRecord>& rows, const std::map<std::string, int>& colors) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const HistoryRecord*>> groups;
  for (const HistoryRecord& r : rows)
    if (timed_pass(r)) groups[{r.case_name, r.layout, r.dtype}].push_back(&r);
  for (auto& [key, group] : groups)  // oldest first: runs are numbered in the order they first appear
    std::sort(group.begin(), group.end(), [](const HistoryRecord* a, const HistoryRecord* b) { return a->id < b->id; });
  std::string html = "<h3>Trajectory</h3><p class=\"note\">Median time of each variant in each run that timed it "
                     "(runs numbered oldest first; hover a point for its time and revision).</p>";
  for (const auto& [key, group] : groups) {
    const auto& [case_name, layout, dtype] = key;
    std::map<std::tuple<std::string, std::string, std::string>, int> run_index;  // a run: its time, revision, command
    for (const HistoryRecord* r : group)
      run_index.emplace(std::tuple{r->time_utc, r->git_revision, r->command}, static_cast<int>(run_index.size()) + 1);

    Chart chart{fmt::format("{} · {} · {}", case_name, layout, dtype), {"run (oldest = 1)", false},
                {"median ms (log)", true}, {}, {}};
    std::map<std::string, ChartSeries> by_variant;
    for (const HistoryRecord* r : group) {
      const int run = run_index.at({r->time_utc, r->git_revision, r->command});
      ChartSeries& s = by_variant[r->variant];
      s.name = r->variant;
      s.color = colors.at(r->variant);
      s.joined = true;
      s.points.push_back({static_cast<double>(run), *r->median_ms,
                          fmt::format("{} on {}: {:.4f} ms (spread {}) — run {}: {} {}", r->variant, case_name,
                                      *r->median_ms, percent(r->iqr_rel), run, r->time_utc, r->git_revision)});
    }
    for (auto& [name, s] : by_variant) chart.series.push_back(std::move(s));
    html += render_chart(chart);
  }
  return html;
}

std::string table_section(const std::vector<HistoryRecord>& rows, const std::optional<Ceil>& ceil) {
  std::string html =
      "<h3>Best per case and variant</h3><table><thead><tr><th>case</th><th>layout · dtype</th><th>variant</th>"
      "<th>revision</th><th>best ms</th><th>spread</th><th>TFLOP/s</th><th>TB/s</th><th>% of roofline</th>"
      "<th>samples</th><th>time (UTC)</th></tr></thead><tbody>";
  for (const HistoryRecord& r : best_rows(rows, /*per_layout=*/true)) {
    const std::optional<double> floor = ceil ? roofline_floor_ms(r, ceil->copy_tbps, ceil->gemm_tflops) : std::nullopt;
    const std::optional<double> of_roofline = floor ? std::optional(*floor / *r.median_ms) : std::nullopt;
    html += fmt::format(
        "<tr><td>{}</td><td>{} · {}</td><td>{}</td><td>{}</td><td>{:.4f}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>",
        xml_escape(r.case_name), xml_escape(r.layout), xml_escape(r.dtype), xml_escape(r.variant),
        xml_escape(r.git_revision), *r.median_ms,
        percent(r.iqr_rel), has_work(r) ? fmt::format("{:.2f}", tflops(r)) : "-",
        has_work(r) ? fmt::format("{:.3f}", tbps(r)) : "-", percent(of_roofline), r.samples,
        xml_escape(r.time_utc));
  }
  return html + "</tbody></table>";
}

}  // namespace

std::vector<HistoryRecord> best_rows(const std::vector<HistoryRecord>& rows, bool per_layout) {
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, const HistoryRecord*> best;
  for (const HistoryRecord& r : rows) {
    if (!timed_pass(r)) continue;
    const auto key = per_layout ? std::tuple{r.suite, r.case_name, r.variant, r.layout, r.dtype}
                                : std::tuple{r.suite, r.case_name, r.variant, std::string(), std::string()};
    const auto [it, inserted] = best.emplace(key, &r);
    if (!inserted && *r.median_ms < *it->second->median_ms) it->second = &r;
  }
  std::vector<HistoryRecord> out;
  for (const auto& [key, r] : best) out.push_back(*r);
  std::sort(out.begin(), out.end(), [](const HistoryRecord& a, const HistoryRecord& b) {
    return std::tie(a.suite, a.case_name, a.layout, a.dtype, *a.median_ms) <
           std::tie(b.suite, b.case_name, b.layout, b.dtype, *b.median_ms);
  });
  return out;
}

std::optional<double> roofline_floor_ms(const HistoryRecord& r, double copy_tbps, double gemm_bf16_tflops) {
  if (!has_work(r) || copy_tbps <= 0 || gemm_bf16_tflops <= 0) return std::nullopt;
  return std::max(*r.bytes / (copy_tbps * 1e12), *r.flops / (gemm_bf16_tflops * 1e12)) * 1e3;
}

std::string render_report(const std::vector<HistoryRecord>& all, const ReportOptions& opt) {
  if (all.empty()) throw Error("report: the history has no rows");
  const std::string gpu = opt.gpu.empty() ? all.back().gpu : opt.gpu;
  std::map<std::string, std::vector<HistoryRecord>> families;
  for (const HistoryRecord& r : all)
    if (r.gpu == gpu && (opt.family.empty() || r.suite == opt.family)) families[r.suite].push_back(r);
  if (families.empty())
    throw Error("report: no rows" + (opt.family.empty() ? std::string() : " of family '" + opt.family + "'") +
                " on GPU '" + gpu + "' in " + opt.source);

  std::string body;
  for (const auto& [family, rows] : families) {
    const std::optional<Ceil> ceil = ceilings_of(rows, opt);
    const std::map<std::string, int> colors = variant_colors(rows);
    body += fmt::format("<section id=\"family-{0}\"><h2>{0}</h2>", xml_escape(family));
    if (ceil)
      body += fmt::format("<p class=\"meta\">Ceilings: copy {:.2f} TB/s, bf16 GEMM {:.0f} TFLOP/s{}.</p>",
                          ceil->copy_tbps, ceil->gemm_tflops,
                          opt.copy_tbps ? " (given)" : " (recorded by the newest run that had them)");
    body += roofline_section(rows, ceil, colors) + trajectory_section(rows, colors) + table_section(rows, ceil) +
            "</section>";
  }
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kforge report</title>"
      "<style>{}</style></head><body><h1>kforge report</h1><p class=\"meta\">GPU {} · {} rows from {} · generated "
      "{}</p>{}</body></html>\n",
      kStyle, xml_escape(gpu), all.size(), xml_escape(opt.source), xml_escape(opt.generated_at), body);
}

}  // namespace kforge
