// kforge report on the CPU: escaping, the SVG writer, axis ticks, best rows and floors, and a page built from a
// synthetic history database, then loaded by a headless browser (chromium --dump-dom) to check that the DOM it
// builds holds the expected charts, points, tooltips and table rows, and that hostile text stayed text.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tools/process.hpp"
#include "tools/report.hpp"
#include "tools/report_chart.hpp"
#include "tools/svg.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

using testing::TempDir;

constexpr const char* kHostile = "<b>\"x\"</b> & <script>alert(1)</script>";

HistoryRecord row(const std::string& time, const std::string& rev, const std::string& suite, const std::string& case_name,
                  const std::string& variant, double ms, const std::string& layout = "ncdhw") {
  HistoryRecord r = testing::pass_record(case_name, variant, ms);
  r.time_utc = time;
  r.git_revision = rev;
  r.suite = suite;
  r.problem = "p";
  r.layout = layout;
  r.max_ms = ms * 1.02;
  r.iqr_rel = 0.004;
  r.samples = 40;
  r.calc_diff = 1e-6;
  r.rel_l2 = 1e-3;
  r.gemm_bf16_tflops = 780;
  return r;
}

// Three depthwise runs and two dense ones on an H200, plus what must be left out: a FAIL row faster than every
// PASS row, a row of another GPU, a row from before schema 2 (no FLOPs, bytes or ceilings).
std::vector<HistoryRecord> synthetic_history(const std::string& db_path) {
  const char* A = "2026-11-01T10:00:00Z";
  const char* B = "2026-11-02T10:00:00Z";
  const char* C = "2026-11-03T10:00:00Z";
  HistoryRecord old = row(A, "a1", "depthwise", "old_case", "dw_v1_direct", 1.0);
  old.flops = old.bytes = old.copy_tbps = old.gemm_bf16_tflops = std::nullopt;
  HistoryRecord failed = row(B, "b2", "depthwise", "evokernel", "dw_v6_mma_hoisted", 0.1);
  failed.status = "FAIL";
  HistoryRecord other_gpu = row(C, "c3", "depthwise", "evokernel", "dw_v6_mma_hoisted", 0.1);
  other_gpu.gpu = "NVIDIA H100";
  HistoryDb db(db_path);
  db.append({old, row(A, "a1", "depthwise", "evokernel", "dw_v1_direct", 18.3),
             row(A, "a1", "depthwise", "evokernel", "dw_v6_mma_hoisted", 0.30),
             row(A, "a1", "depthwise", "evokernel", "cudnn", 42.9),
             row(A, "a1", "depthwise", kHostile, "dw_v1_direct", 2.0),
             row(A, "a1", "depthwise", kHostile, "dw_v6_mma_hoisted", 0.5)});
  db.append({row(B, "b2", "depthwise", "evokernel", "dw_v1_direct", 18.0),
             row(B, "b2", "depthwise", "evokernel", "dw_v6_mma_hoisted", 0.179),
             row(B, "b2", "depthwise", "evokernel", "cudnn", 43.0), failed,
             row(B, "b2", "depthwise", kHostile, "dw_v6_mma_hoisted", 0.45)});
  db.append({other_gpu, row(C, "c3", "depthwise", "evokernel", "dw_v6_mma_hoisted", 0.2, "ndhwc")});
  db.append({row(C, "c3", "dense", "small", "dense_v0_direct", 5.0)});
  db.append({row("2026-11-04T10:00:00Z", "d4", "dense", "small", "dense_v0_direct", 4.0)});
  return db.rows();
}

// Expected from synthetic_history, per the report's rules:
//   roofline points: depthwise best per (case, variant) with FLOPs: evokernel x {v1, v6, cudnn} + hostile x {v1, v6}
//                    = 5 (old_case has no FLOPs); dense: 1.
//   trajectory points: every timed PASS row of the H200: depthwise 6 + 4 + 1 = 11; dense 2.
//   charts: depthwise 1 roofline + 4 trajectories (evokernel ncdhw, evokernel ndhwc, hostile, old_case); dense 1 + 1.
//   table rows: depthwise evokernel ncdhw 3, ndhwc 1, hostile 2, old_case 1; dense 1; plus 2 header rows.
constexpr int kCharts = 7, kPoints = 5 + 11 + 1 + 2, kTableRows = 8 + 2;

// The markup without attribute values (the serializer writes them in double quotes, with " as &quot;): what is
// left are tags and text.
std::string without_attribute_values(const std::string& dom) {
  std::string out;
  for (size_t i = 0; i < dom.size(); ++i) {
    if (dom.compare(i, 2, "=\"") == 0) {
      i = dom.find('"', i + 2);
      if (i == std::string::npos) break;
      continue;
    }
    out += dom[i];
  }
  return out;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

ReportOptions options(const std::string& source) {
  ReportOptions opt;
  opt.source = source;
  opt.generated_at = "2026-11-05T00:00:00Z";
  return opt;
}

// The first headless browser found: $KFORGE_BROWSER, else chromium / chromium-browser / google-chrome in PATH.
std::string find_browser() {
  if (const char* b = std::getenv("KFORGE_BROWSER"); b && *b) return b;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    size_t start = 0;
    while (start <= dirs.size()) {
      const size_t end = std::min(dirs.find(':', start), dirs.size());
      const std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / name;
      std::error_code ec;
      if (end > start && std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
      start = end + 1;
    }
  }
  return "";
}

TEST(Svg, EscapesTextAndAttributes) {
  EXPECT_EQ(xml_escape(kHostile), "&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; &lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(xml_escape("it's"), "it&#39;s");
  Svg svg(100, 50, "a \"chart\"");
  svg.circle(1, 2, 3, "pt c1", "t<1>");
  svg.text(5, 6, "a & b", "tick", "end", -90);
  EXPECT_EQ(svg.str(),
            R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50" )svg"
            R"svg(role="img" aria-label="a &quot;chart&quot;"><circle cx="1.0" cy="2.0" r="3.0" class="pt c1">)svg"
            R"svg(<title>t&lt;1&gt;</title></circle><text x="5.0" y="6.0" text-anchor="end" class="tick" )svg"
            R"svg(transform="rotate(-90.0 5.0 6.0)">a &amp; b</text></svg>)svg");
}

TEST(ReportChart, TicksAreDecadesOrRoundNumbers) {
  EXPECT_EQ(axis_ticks(0.1, 1000, true), (std::vector<double>{0.1, 1, 10, 100, 1000}));
  const std::vector<double> fine = axis_ticks(1, 100, true);
  EXPECT_EQ(fine.size(), 7u);  // 1 2 5 10 20 50 100
  EXPECT_DOUBLE_EQ(fine[1], 2);
  EXPECT_EQ(axis_ticks(0.5, 3.5, false), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(axis_ticks(0.5, 40.5, false), (std::vector<double>{5, 10, 15, 20, 25, 30, 35, 40}));
}

TEST(Report, BestRowsAndFloors) {
  const std::vector<HistoryRecord> rows = {row("t", "r", "depthwise", "c", "v", 2.0),
                                           row("t", "r", "depthwise", "c", "v", 1.5, "ndhwc"),
                                           row("t", "r", "depthwise", "c", "v", 1.8), row("t", "r", "dense", "c", "v", 9)};
  HistoryRecord failed = row("t", "r", "depthwise", "c", "v", 0.1);
  failed.status = "FAIL";
  std::vector<HistoryRecord> with_fail = rows;
  with_fail.push_back(failed);
  const auto best = best_rows(with_fail, /*per_layout=*/false);
  ASSERT_EQ(best.size(), 2u);  // (dense, c, v) and (depthwise, c, v)
  EXPECT_EQ(best[0].suite, "dense");
  EXPECT_EQ(*best[1].median_ms, 1.5);
  const auto per_layout = best_rows(with_fail, /*per_layout=*/true);
  ASSERT_EQ(per_layout.size(), 3u);
  EXPECT_EQ(*per_layout[1].median_ms, 1.8);  // ncdhw before ndhwc
  // max(4.42e8 B / 4.26 TB/s, 1.63e10 FLOP / 780 TFLOP/s) = 0.10376 ms
  EXPECT_NEAR(*roofline_floor_ms(rows[0], 4.26, 780), 4.42e8 / 4.26e12 * 1e3, 1e-12);
  HistoryRecord old = rows[0];
  old.flops.reset();
  EXPECT_FALSE(roofline_floor_ms(old, 4.26, 780));
}

TEST(Report, PageFromASyntheticHistory) {
  TempDir dir;
  const std::string html = render_report(synthetic_history(dir.path() + "/h.sqlite"), options("h.sqlite"));
  EXPECT_EQ(count(html, "<svg "), kCharts);
  EXPECT_EQ(count(html, "<circle "), kPoints);
  EXPECT_EQ(count(html, "<tr>"), kTableRows);
  EXPECT_EQ(count(html, "<section "), 2);
  EXPECT_EQ(count(html, "<script"), 0);
  // Nothing is fetched: no sources, links, imports; "http" only in each SVG's namespace name.
  EXPECT_EQ(count(html, "src="), 0);
  EXPECT_EQ(count(html, "href"), 0);
  EXPECT_EQ(count(html, "url("), 0);
  EXPECT_EQ(count(html, "http"), kCharts);
  EXPECT_NE(html.find("evokernel · dw_v6_mma_hoisted (ncdhw bf16): 0.1790 ms"), std::string::npos);
  EXPECT_NE(html.find("copy 4.26 TB/s"), std::string::npos);
  EXPECT_NE(html.find("bf16 GEMM 780 TFLOP/s"), std::string::npos);
  EXPECT_NE(html.find("1 best row(s) were recorded before"), std::string::npos);
  EXPECT_EQ(html.find("NVIDIA H100"), std::string::npos);
  EXPECT_EQ(html.find("0.1000 ms"), std::string::npos);  // neither the FAIL row nor the other GPU's row
}

TEST(Report, FamilyAndGpuSelection) {
  TempDir dir;
  const std::vector<HistoryRecord> rows = synthetic_history(dir.path() + "/h.sqlite");
  ReportOptions opt = options("h.sqlite");
  opt.family = "dense";
  const std::string dense = render_report(rows, opt);
  EXPECT_EQ(count(dense, "<section "), 1);
  EXPECT_EQ(count(dense, "<circle "), 3);
  opt.family = "";
  opt.gpu = "NVIDIA H100";
  EXPECT_EQ(count(render_report(rows, opt), "<circle "), 2);  // its roofline point and trajectory point
  opt.gpu = "NVIDIA A100";
  try {
    render_report(rows, opt);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no rows on GPU 'NVIDIA A100'"), std::string::npos) << e.what();
  }
}

TEST(Report, HeadlessBrowserBuildsTheExpectedDom) {
  const std::string browser = find_browser();
  if (browser.empty())
    GTEST_SKIP() << "browser test skipped: no headless browser ($KFORGE_BROWSER, chromium, chromium-browser, "
                    "google-chrome in PATH); scripts/setup installs Debian's chromium";
  TempDir dir;
  const std::string html = render_report(synthetic_history(dir.path() + "/h.sqlite"), options("h.sqlite"));
  const std::string page = dir.path() + "/report.html";
  std::ofstream(page) << html;
  // --no-sandbox: CI runs as root; `timeout` bounds a browser that never finishes loading.
  const ProcessResult r = run_process({"timeout", "120", browser, "--headless", "--no-sandbox", "--disable-gpu",
                                       "--dump-dom", "file://" + page});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& dom = r.out;
  EXPECT_EQ(count(dom, "<svg "), kCharts) << dom.substr(0, 2000);
  EXPECT_EQ(count(dom, "<circle "), kPoints);
  EXPECT_EQ(count(dom, "<tr>"), kTableRows);
  // Every tooltip and the page's own title survived parsing as elements: none was swallowed by stray markup.
  EXPECT_EQ(count(dom, "<title>"), count(html, "<title>"));
  EXPECT_GT(count(dom, "<title>"), kPoints);
  EXPECT_EQ(count(without_attribute_values(dom), "<script"), 0);  // the hostile case name is text, not a tag
  EXPECT_GE(count(dom, "&lt;script&gt;alert(1)&lt;/script&gt;"), 3);  // in a tooltip, a chart title, the table
  EXPECT_NE(dom.find("<title>evokernel · dw_v6_mma_hoisted (ncdhw bf16): 0.1790 ms"), std::string::npos);
}

}  // namespace
}  // namespace kforge
