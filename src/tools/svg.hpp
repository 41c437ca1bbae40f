// A small SVG writer for the workbench's HTML report: elements appended in drawing order, every text and
// attribute value escaped, numbers with one decimal (pixel coordinates). Styling is left to CSS classes.
// Limits: the elements the report draws (line, polyline, circle, rect, text, groups with a tooltip); no paths.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kforge {

// Text safe inside XML/HTML elements and quoted attributes: & < > " ' as character references.
std::string xml_escape(std::string_view text);

class Svg {
 public:
  // `label`: the accessible name of the picture (aria-label).
  Svg(double width, double height, const std::string& label);

  void line(double x1, double y1, double x2, double y2, const std::string& css_class);
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& css_class,
                const std::string& title = "");
  void circle(double cx, double cy, double r, const std::string& css_class, const std::string& title = "");
  void rect(double x, double y, double w, double h, const std::string& css_class);
  // anchor: "start" | "middle" | "end"; rotate: degrees about (x, y).
  void text(double x, double y, const std::string& content, const std::string& css_class,
            const std::string& anchor = "start", double rotate = 0);

  std::string str() const;  // the whole <svg> element

 private:
  double width_, height_;
  std::string label_, body_;
};

}  // namespace kforge
