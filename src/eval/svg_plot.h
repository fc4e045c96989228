// A small inline-SVG plotting helper for the offline HTML report: axes with tick labels, a
// polyline or a cloud of circles. Non-finite points are left out.
#pragma once

#include <string>
#include <vector>

namespace graphcost::eval {

struct PlotOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  int width = 520;   // pixels
  int height = 320;  // pixels
};

// An axis range widened to whole tick steps, and its ticks (1, 2 or 5 times a power of ten).
struct Axis {
  double lo = 0.0;
  double hi = 1.0;
  std::vector<double> ticks;
};

// Ticks covering [lo, hi] with about target_ticks of them; a constant range gets widened.
Axis nice_axis(double lo, double hi, int target_ticks);
// A tick label: up to 6 significant digits, no trailing zeros.
std::string format_tick(double value);
// Escapes &, <, >, " and ' for HTML text and attributes.
std::string escape_html(const std::string& text);
// y against x joined by a polyline (points sorted as given), with a dot per point when few.
std::string svg_line_plot(const PlotOptions& options, const std::vector<double>& x,
                          const std::vector<double>& y);
// y against x as circles.
std::string svg_scatter_plot(const PlotOptions& options, const std::vector<double>& x,
                             const std::vector<double>& y);

}  // namespace graphcost::eval
