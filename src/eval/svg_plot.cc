#include "eval/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace graphcost::eval {

namespace {

constexpr double kMarginLeft = 64, kMarginRight = 16, kMarginTop = 28, kMarginBottom = 44;
constexpr size_t kMaxDottedPoints = 60;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", value);
  return text;
}

// Plot area and the mapping from data to pixels.
struct Frame {
  PlotOptions options;
  Axis x_axis, y_axis;
  double left() const { return kMarginLeft; }
  double right() const { return options.width - kMarginRight; }
  double top() const { return kMarginTop; }
  double bottom() const { return options.height - kMarginBottom; }
  double px(double x) const {
    return left() + (x - x_axis.lo) / (x_axis.hi - x_axis.lo) * (right() - left());
  }
  double py(double y) const {
    return bottom() - (y - y_axis.lo) / (y_axis.hi - y_axis.lo) * (bottom() - top());
  }
};

// Keeps the points where both coordinates are finite.
void finite_points(const std::vector<double>& x, const std::vector<double>& y,
                   std::vector<double>& fx, std::vector<double>& fy) {
  check_data(x.size() == y.size(), "svg plot", "", "x and y differ in length");
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i]) && std::isfinite(y[i])) {
      fx.push_back(x[i]);
      fy.push_back(y[i]);
    }
  }
}

Axis axis_for(const std::vector<double>& values) {
  if (values.empty()) return nice_axis(0.0, 1.0, 5);
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return nice_axis(*lo, *hi, 5);
}

// Opens the svg element and draws the frame, grid, tick labels, title and axis labels.
std::string open_frame(const Frame& f, bool empty) {
  const PlotOptions& o = f.options;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(o.width) +
                  "\" height=\"" + std::to_string(o.height) + "\" viewBox=\"0 0 " +
                  std::to_string(o.width) + " " + std::to_string(o.height) +
                  "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + std::to_string(o.width) + "\" height=\"" +
       std::to_string(o.height) + "\" fill=\"white\"/>\n";
  s += "<text x=\"" + number(o.width / 2.0) + "\" y=\"17\" text-anchor=\"middle\" " +
       "font-size=\"13\" font-weight=\"bold\">" + escape_html(o.title) + "</text>\n";
  for (double t : f.x_axis.ticks) {
    std::string x = number(f.px(t));
    s += "<line x1=\"" + x + "\" y1=\"" + number(f.top()) + "\" x2=\"" + x + "\" y2=\"" +
         number(f.bottom()) + "\" stroke=\"#e4e4e4\"/>\n";
    s += "<text x=\"" + x + "\" y=\"" + number(f.bottom() + 15) + "\" text-anchor=\"middle\">" +
         format_tick(t) + "</text>\n";
  }
  for (double t : f.y_axis.ticks) {
    std::string y = number(f.py(t));
    s += "<line x1=\"" + number(f.left()) + "\" y1=\"" + y + "\" x2=\"" + number(f.right()) +
         "\" y2=\"" + y + "\" stroke=\"#e4e4e4\"/>\n";
    s += "<text x=\"" + number(f.left() - 5) + "\" y=\"" + number(f.py(t) + 4) +
         "\" text-anchor=\"end\">" + format_tick(t) + "</text>\n";
  }
  s += "<rect x=\"" + number(f.left()) + "\" y=\"" + number(f.top()) + "\" width=\"" +
       number(f.right() - f.left()) + "\" height=\"" + number(f.bottom() - f.top()) +
       "\" fill=\"none\" stroke=\"#444\"/>\n";
  s += "<text x=\"" + number((f.left() + f.right()) / 2) + "\" y=\"" + number(o.height - 8.0) +
       "\" text-anchor=\"middle\">" + escape_html(o.x_label) + "</text>\n";
  const std::string yc = number((f.top() + f.bottom()) / 2);
  s += "<text x=\"14\" y=\"" + yc + "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " + yc +
       ")\">" + escape_html(o.y_label) + "</text>\n";
  if (empty) {
    s += "<text x=\"" + number((f.left() + f.right()) / 2) + "\" y=\"" + yc +
         "\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n";
  }
  return s;
}

std::string circles(const Frame& f, const std::vector<double>& x, const std::vector<double>& y,
                    const char* radius, const char* style) {
  std::string s;
  for (size_t i = 0; i < x.size(); ++i) {
    s += "<circle cx=\"" + number(f.px(x[i])) + "\" cy=\"" + number(f.py(y[i])) + "\" r=\"" +
         radius + "\" " + style + "/>\n";
  }
  return s;
}

}  // namespace

Axis nice_axis(double lo, double hi, int target_ticks) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = 0.0;
    hi = 1.0;
  }
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= 1e-12 * std::max(1.0, std::abs(lo))) {
    const double pad = std::abs(lo) > 0 ? std::abs(lo) * 0.5 : 1.0;
    lo -= pad;
    hi += pad;
  }
  const double raw_step = (hi - lo) / std::max(1, target_ticks);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw_step)));
  const double normalised = raw_step / magnitude;
  const double step = (normalised < 1.5   ? 1.0
                       : normalised < 3.0 ? 2.0
                       : normalised < 7.0 ? 5.0
                                          : 10.0) *
                      magnitude;
  Axis axis;
  const double first = std::floor(lo / step), last = std::ceil(hi / step);
  axis.lo = first * step;
  axis.hi = last * step;
  for (double k = first; k <= last; k += 1.0) {
    double t = k * step;
    if (std::abs(t) < step * 1e-9) t = 0.0;  // no "-2.8e-17" labels
    axis.ticks.push_back(t);
  }
  return axis;
}

std::string format_tick(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

std::string escape_html(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string svg_line_plot(const PlotOptions& options, const std::vector<double>& x,
                          const std::vector<double>& y) {
  std::vector<double> fx, fy;
  finite_points(x, y, fx, fy);
  Frame f{options, axis_for(fx), axis_for(fy)};
  std::string s = open_frame(f, fx.empty());
  if (!fx.empty()) {
    s += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"";
    for (size_t i = 0; i < fx.size(); ++i) {
      s += (i ? " " : "") + number(f.px(fx[i])) + "," + number(f.py(fy[i]));
    }
    s += "\"/>\n";
    if (fx.size() <= kMaxDottedPoints) s += circles(f, fx, fy, "2.5", "fill=\"#1f77b4\"");
  }
  return s + "</svg>\n";
}

std::string svg_scatter_plot(const PlotOptions& options, const std::vector<double>& x,
                             const std::vector<double>& y) {
  std::vector<double> fx, fy;
  finite_points(x, y, fx, fy);
  Frame f{options, axis_for(fx), axis_for(fy)};
  std::string s = open_frame(f, fx.empty());
  s += circles(f, fx, fy, "2", "fill=\"#d62728\" fill-opacity=\"0.45\"");
  return s + "</svg>\n";
}

}  // namespace graphcost::eval
