// One chart of the HTML report as SVG: log or linear axes fitted to the data, decade or integer ticks with grid
// lines, series of points (each with a tooltip, optionally joined by a line), labelled guide lines (ceilings) and
// a legend. Colors are CSS classes c0..c9 (the report's style sheet); points carry class "pt", lines "ln".
// Limits: a value that is not positive (or not finite) on a log axis is not drawn.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kforge {

struct ChartPoint {
  double x = 0, y = 0;
  std::string title;  // the tooltip
};

struct ChartSeries {
  std::string name;  // legend entry
  int color = 0;     // CSS class c<color % 10>
  std::vector<ChartPoint> points;
  bool joined = false;  // a line through the points in their order
};

// A line in data coordinates, labelled above its first or its last point (a roofline ceiling).
struct ChartGuide {
  std::string label;
  std::vector<std::pair<double, double>> points;
  bool label_at_start = false;
};

struct ChartAxis {
  std::string label;
  bool log = true;
};

struct Chart {
  std::string title;
  ChartAxis x, y;
  std::vector<ChartSeries> series;
  std::vector<ChartGuide> guides;
};

// The chart as an <svg> element; the axes span every series point and guide point.
std::string render_chart(const Chart& chart);

// Tick positions for an axis spanning [lo, hi]: powers of ten (with 2 and 5 between them when the span is under
// three decades) on a log axis, evenly spaced round numbers on a linear one.
std::vector<double> axis_ticks(double lo, double hi, bool log);

}  // namespace kforge
