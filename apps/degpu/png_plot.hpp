// Scatter plots as PNG files without a plotting library: an RGB canvas, a 5x7 bitmap font, log-scaled
// axes, and a PNG encoder (zlib stored blocks, CRC-32, Adler-32). degpu bench janssen draws the final
// error of every trial against its wall-clock time with it (the paper's Fig. 7).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace degpu::cli {

// The bytes of a PNG file of an 8-bit RGB image (rgb: width x height x 3, row-major, top row first).
std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgb);

struct Series {
  std::string name;
  std::vector<double> x, y;  // points; x, y > 0 (log axes): others are drawn at the axis' lower end
};

// A log-log scatter plot of the series (one colour each, with a legend) as PNG bytes.
std::string scatter_png(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<Series>& series);

}  // namespace degpu::cli
