// Plots as PNG files without a plotting library: an RGB canvas, a 5x7 bitmap font, log or linear axes, dots
// or lines, and a PNG encoder (zlib's deflate where the build found zlib, else stored blocks; CRC-32).
// degpu bench janssen draws the final error of every trial against its wall-clock time with it (the
// paper's Fig. 7); degpu plot draws --history logs.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace degpu::cli {

// The bytes of a PNG file of an 8-bit RGB image (rgb: width x height x 3, row-major, top row first).
std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgb);

struct Series {
  std::string name;
  std::vector<double> x, y;  // points; on log axes x, y > 0 (others are drawn at the axis' lower end)
};

struct PlotStyle {
  bool log_x = true, log_y = true;  // log axes have a tick per decade; linear ones steps of 1, 2 or 5 x 10^k
  bool lines = false;               // points joined by lines (in order), or dots
  double x_lo = NAN, x_hi = NAN;    // the x range shown (both set), else the data's; drawing is clipped to it
  double y_lo = NAN, y_hi = NAN;    // the same for y
};

// A plot of the series (one colour each, with a legend) as PNG bytes.
std::string plot_png(const std::string& title, const std::string& x_label, const std::string& y_label,
                     const std::vector<Series>& series, const PlotStyle& style);

// A log-log scatter plot of the series (one colour each, with a legend) as PNG bytes.
std::string scatter_png(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<Series>& series);

}  // namespace degpu::cli
