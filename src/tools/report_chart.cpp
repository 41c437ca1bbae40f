// Chart layout: a fixed plot area with margins for tick labels (left, bottom) and the legend (right); data are
// mapped into it linearly or through log10.
#include "tools/report_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tools/svg.hpp"

namespace kforge {
namespace {

constexpr double kWidth = 760, kHeight = 440;
constexpr double kLeft = 70, kRight = 200, kTop = 34, kBottom = 52;  // margins around the plot area
constexpr double kLegendRow = 16;

// One axis mapped to pixels: [lo, hi] -> [p0, p1] (p1 < p0 for the y axis, which grows upwards).
struct Scale {
  double lo, hi, p0, p1;
  bool log;
  double operator()(double v) const {
    const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return p0 + t * (p1 - p0);
  }
};

bool plottable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// The axis span: whole decades on a log axis, half a unit of padding on a linear one.
std::pair<double, double> fit(double lo, double hi, bool log) {
  if (!(lo <= hi)) return log ? std::pair{1.0, 10.0} : std::pair{0.0, 1.0};  // no data
  if (log) {
    const double a = std::pow(10.0, std::floor(std::log10(lo))), b = std::pow(10.0, std::ceil(std::log10(hi)));
    return {a, b > a ? b : a * 10};
  }
  return {lo - 0.5, hi + 0.5};
}

std::string tick_label(double v) { return fmt::format("{:g}", v); }

std::string color_class(int color) { return fmt::format("c{}", color % 10); }

}  // namespace

std::vector<double> axis_ticks(double lo, double hi, bool log) {
  std::vector<double> ticks;
  if (log) {
    const bool fine = std::log10(hi / lo) < 3;
    for (double decade = lo; decade <= hi * (1 + 1e-9); decade *= 10)
      for (const double m : {1.0, 2.0, 5.0})
        if ((m == 1.0 || fine) && decade * m <= hi * (1 + 1e-9)) ticks.push_back(decade * m);
    return ticks;
  }
  const double raw = (hi - lo) / 8;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (mag * m >= raw) {
      step = mag * m;
      break;
    }
  step = std::max(step, 1.0);  // the linear axes count runs: no fractional ticks
  for (double t = std::ceil(lo / step) * step; t <= hi; t += step) ticks.push_back(t);
  return ticks;
}

std::string render_chart(const Chart& c) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  const auto include = [&](double x, double y) {
    if (!plottable(x, c.x.log) || !plottable(y, c.y.log)) return;
    xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
  };
  for (const ChartSeries& s : c.series)
    for (const ChartPoint& p : s.points) include(p.x, p.y);
  for (const ChartGuide& g : c.guides)
    for (const auto& [x, y] : g.points) include(x, y);
  const auto [x0, x1] = fit(xlo, xhi, c.x.log);
  const auto [y0, y1] = fit(ylo, yhi, c.y.log);
  const Scale sx{x0, x1, kLeft, kWidth - kRight, c.x.log};
  const Scale sy{y0, y1, kHeight - kBottom, kTop, c.y.log};

  Svg svg(kWidth, kHeight, c.title);
  svg.text(kLeft, kTop - 14, c.title, "chart-title");
  for (const double t : axis_ticks(x0, x1, c.x.log)) {
    svg.line(sx(t), sy.p0, sx(t), sy.p1, "grid");
    svg.text(sx(t), sy.p0 + 16, tick_label(t), "tick", "middle");
  }
  for (const double t : axis_ticks(y0, y1, c.y.log)) {
    svg.line(sx.p0, sy(t), sx.p1, sy(t), "grid");
    svg.text(sx.p0 - 6, sy(t) + 4, tick_label(t), "tick", "end");
  }
  svg.rect(sx.p0, sy.p1, sx.p1 - sx.p0, sy.p0 - sy.p1, "frame");
  svg.text((sx.p0 + sx.p1) / 2, kHeight - 12, c.x.label, "axis-label", "middle");
  svg.text(18, (sy.p0 + sy.p1) / 2, c.y.label, "axis-label", "middle", -90);

  for (const ChartGuide& g : c.guides) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& [x, y] : g.points)
      if (plottable(x, c.x.log) && plottable(y, c.y.log)) pts.emplace_back(sx(x), sy(y));
    if (pts.empty()) continue;
    svg.polyline(pts, "guide", g.label);
    if (g.label_at_start) svg.text(pts.front().first + 4, pts.front().second - 6, g.label, "guide-label", "start");
    else svg.text(pts.back().first - 4, pts.back().second - 6, g.label, "guide-label", "end");
  }
  for (const ChartSeries& s : c.series) {
    const std::string color = color_class(s.color);
    std::vector<std::pair<double, double>> pts;
    for (const ChartPoint& p : s.points)
      if (plottable(p.x, c.x.log) && plottable(p.y, c.y.log)) pts.emplace_back(sx(p.x), sy(p.y));
    if (s.joined && pts.size() > 1) svg.polyline(pts, "ln " + color, s.name);
    for (const ChartPoint& p : s.points)
      if (plottable(p.x, c.x.log) && plottable(p.y, c.y.log)) svg.circle(sx(p.x), sy(p.y), 4, "pt " + color, p.title);
  }
  double ly = kTop + 4;
  for (const ChartSeries& s : c.series) {
    const std::string color = color_class(s.color);
    svg.rect(kWidth - kRight + 16, ly, 10, 10, "key " + color);
    svg.text(kWidth - kRight + 32, ly + 9, s.name, "legend");
    ly += kLegendRow;
  }
  return svg.str();
}

}  // namespace kforge
