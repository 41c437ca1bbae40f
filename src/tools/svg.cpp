#include "tools/svg.hpp"

#include <fmt/format.h>

namespace kforge {
namespace {

// A <title> child: the tooltip browsers show, and what the report's tests look for.
std::string title_element(const std::string& title) {
  return title.empty() ? "" : "<title>" + xml_escape(title) + "</title>";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

Svg::Svg(double width, double height, const std::string& label) : width_(width), height_(height), label_(label) {}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& css_class) {
  body_ += fmt::format(R"svg(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="{}"/>)svg", x1, y1, x2, y2,
                       xml_escape(css_class));
}

void Svg::polyline(const std::vector<std::pair<double, double>>& points, const std::string& css_class,
                   const std::string& title) {
  std::string pts;
  for (const auto& [x, y] : points) pts += fmt::format("{}{:.1f},{:.1f}", pts.empty() ? "" : " ", x, y);
  body_ += fmt::format(R"svg(<polyline points="{}" class="{}">{}</polyline>)svg", pts, xml_escape(css_class),
                       title_element(title));
}

void Svg::circle(double cx, double cy, double r, const std::string& css_class, const std::string& title) {
  body_ += fmt::format(R"svg(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" class="{}">{}</circle>)svg", cx, cy, r,
                       xml_escape(css_class), title_element(title));
}

void Svg::rect(double x, double y, double w, double h, const std::string& css_class) {
  body_ += fmt::format(R"svg(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" class="{}"/>)svg", x, y, w, h,
                       xml_escape(css_class));
}

void Svg::text(double x, double y, const std::string& content, const std::string& css_class,
               const std::string& anchor, double rotate) {
  const std::string transform =
      rotate == 0 ? "" : fmt::format(R"svg( transform="rotate({:.1f} {:.1f} {:.1f})")svg", rotate, x, y);
  body_ += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" text-anchor="{}" class="{}"{}>{}</text>)svg", x, y,
                       xml_escape(anchor), xml_escape(css_class), transform, xml_escape(content));
}

std::string Svg::str() const {
  return fmt::format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" )svg"
                     R"svg(viewBox="0 0 {:.0f} {:.0f}" role="img" aria-label="{}">{}</svg>)svg",
                     width_, height_, width_, height_, xml_escape(label_), body_);
}

}  // namespace kforge
