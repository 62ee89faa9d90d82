#include "png_plot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#if DEGPU_HAVE_ZLIB
#include <zlib.h>
#endif

namespace degpu::cli {
namespace {

// --- PNG encoding ---------------------------------------------------------------------------------

std::uint32_t crc32(const std::uint8_t* p, std::size_t n, std::uint32_t crc = 0) {
  static const auto table = [] {
    std::vector<std::uint32_t> t(256);
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (std::size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

void put32(std::string& s, std::uint32_t v) {
  for (int k = 3; k >= 0; --k) s.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

void chunk(std::string& png, const char* type, const std::string& data) {
  put32(png, static_cast<std::uint32_t>(data.size()));
  std::string body = std::string(type, 4) + data;
  png += body;
  put32(png, crc32(reinterpret_cast<const std::uint8_t*>(body.data()), body.size()));
}

// --- Canvas and font ------------------------------------------------------------------------------

struct Rgb {
  std::uint8_t r, g, b;
};

struct Canvas {
  int w, h;
  std::vector<std::uint8_t> px;
  Canvas(int width, int height) : w(width), h(height), px(static_cast<std::size_t>(width) * height * 3, 255) {}
  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    std::uint8_t* p = &px[(static_cast<std::size_t>(y) * w + x) * 3];
    p[0] = c.r, p[1] = c.g, p[2] = c.b;
  }
  void rect(int x0, int y0, int x1, int y1, Rgb c) {
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) set(x, y, c);
  }
  void hline(int x0, int x1, int y, Rgb c) { rect(std::min(x0, x1), y, std::max(x0, x1), y, c); }
  void vline(int x, int y0, int y1, Rgb c) { rect(x, std::min(y0, y1), x, std::max(y0, y1), c); }
  void disc(int cx, int cy, int r, Rgb c) {
    for (int y = -r; y <= r; ++y)
      for (int x = -r; x <= r; ++x)
        if (x * x + y * y <= r * r + r) set(cx + x, cy + y, c);
  }
};

// 5x7 glyphs, rows top to bottom ('#' set). Lower case is drawn as upper case; other characters as '?'.
const std::map<char, const char*>& glyphs() {
  static const std::map<char, const char*> g = {
      {' ', "..................................."},
      {'0', ".###.#...##..###.#.###..##...#.###."}, {'1', "..#...##....#....#....#....#...###."},
      {'2', ".###.#...#....#...#...#...#...#####"}, {'3', "#####...#...#.....#.....##...#.###."},
      {'4', "...#...##..#.#.#..#.#####...#....#."}, {'5', "######....####.....#....##...#.###."},
      {'6', "..##..#...#....####.#...##...#.###."}, {'7', "#####....#...#...#...#....#....#..."},
      {'8', ".###.#...##...#.###.#...##...#.###."}, {'9', ".###.#...##...#.####....#...#..##.."},
      {'A', ".###.#...##...#######...##...##...#"}, {'B', "####.#...##...#####.#...##...#####."},
      {'C', ".###.#...##....#....#....#...#.###."}, {'D', "###..#..#.#...##...##...##..#.###.."},
      {'E', "######....#....####.#....#....#####"}, {'F', "######....#....####.#....#....#...."},
      {'G', ".###.#...##....#.####...##...#.####"}, {'H', "#...##...##...#######...##...##...#"},
      {'I', ".###...#....#....#....#....#...###."}, {'J', "..###...#....#....#....##..#..##..."},
      {'K', "#...##..#.#.#..##...#.#..#..#.#...#"}, {'L', "#....#....#....#....#....#....#####"},
      {'M', "#...###.###.#.##.#.##...##...##...#"}, {'N', "#...##...###..##.#.##..###...##...#"},
      {'O', ".###.#...##...##...##...##...#.###."}, {'P', "####.#...##...#####.#....#....#...."},
      {'Q', ".###.#...##...##...##.#.##..#..##.#"}, {'R', "####.#...##...#####.#.#..#..#.#...#"},
      {'S', ".#####....#.....###.....#....#####."}, {'T', "#####..#....#....#....#....#....#.."},
      {'U', "#...##...##...##...##...##...#.###."}, {'V', "#...##...##...##...##...#.#.#...#.."},
      {'W', "#...##...##...##.#.##.#.##.#.#.#.#."}, {'X', "#...##...#.#.#...#...#.#.#...##...#"},
      {'Y', "#...##...#.#.#...#....#....#....#.."}, {'Z', "#####....#...#...#...#...#....#####"},
      {'-', "...............#####..............."}, {'.', "..........................##...##.."},
      {':', ".....##...##.........##...##......."}, {'(', "...#...#...#....#....#.....#.....#."},
      {')', ".#.....#.....#....#....#...#...#..."}, {'/', ".........#...#...#...#...#........."},
      {'_', "..............................#####"}, {'+', ".......#....#..#####..#....#......."},
      {',', "....................##....#...#...."}, {'=', "..........#####.....#####.........."},
      {'%', "##...##..#...#...#...#...#..##...##"}, {'?', ".###.#...#....#...#...#.........#.."},
      {'*', ".......#..#.#.#.###.#.#.#..#......."}, {'#', ".#.#..#.#.#####.#.#.#####.#.#..#.#."},
      {'\'', "..#....#....#......................"}, {'[', ".###..#....#....#....#....#....###."},
      {']', ".###....#....#....#....#....#..###."}, {'<', "...#...#...#...#.....#.....#.....#."},
      {'>', ".#.....#.....#.....#...#...#...#..."}, {'!', "..#....#....#....#....#.........#.."},
  };
  return g;
}

void text(Canvas& c, int x, int y, const std::string& s, Rgb col, int scale = 1) {
  for (char ch : s) {
    auto it = glyphs().find(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
    if (it == glyphs().end()) it = glyphs().find('?');
    const std::string g = it->second;
    for (int r = 0; r < 7; ++r)
      for (int q = 0; q < 5; ++q)
        if (static_cast<std::size_t>(r * 5 + q) < g.size() && g[r * 5 + q] == '#')
          c.rect(x + q * scale, y + r * scale, x + q * scale + scale - 1, y + r * scale + scale - 1, col);
    x += 6 * scale;
  }
}
int text_width(const std::string& s, int scale = 1) { return static_cast<int>(s.size()) * 6 * scale; }

// Text turned a quarter anticlockwise (the y label), its left end at the bottom.
void text_up(Canvas& c, int x, int y, const std::string& s, Rgb col) {
  Canvas t(text_width(s), 7);
  text(t, 0, 0, s, col);
  for (int yy = 0; yy < t.h; ++yy)
    for (int xx = 0; xx < t.w; ++xx) {
      const std::uint8_t* p = &t.px[(static_cast<std::size_t>(yy) * t.w + xx) * 3];
      if (p[0] != 255 || p[1] != 255 || p[2] != 255) c.set(x + yy, y - xx, Rgb{p[0], p[1], p[2]});
    }
}

std::string decade(int e) { return e == 0 ? "1" : "1E" + std::to_string(e); }

}  // namespace

std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgb) {
  std::string raw;  // rows, each after filter byte 0
  raw.reserve(static_cast<std::size_t>(height) * (1 + width * 3));
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.append(reinterpret_cast<const char*>(&rgb[static_cast<std::size_t>(y) * width * 3]), static_cast<std::size_t>(width) * 3);
  }
  std::string z;
#if DEGPU_HAVE_ZLIB
  uLongf zn = compressBound(static_cast<uLong>(raw.size()));
  z.resize(zn);
  if (compress2(reinterpret_cast<Bytef*>(z.data()), &zn, reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                Z_BEST_COMPRESSION) == Z_OK) {
    z.resize(zn);
  } else {
    z.clear();
  }
#endif
  if (z.empty()) {  // without zlib: stored (uncompressed) deflate blocks
    z = "\x78\x01";  // zlib header: deflate, 32 KB window, no dictionary
    for (std::size_t at = 0; at < raw.size() || at == 0;) {
      const std::size_t n = std::min<std::size_t>(65535, raw.size() - at);
      const bool last = at + n == raw.size();
      z.push_back(last ? 1 : 0);
      z.push_back(static_cast<char>(n & 0xff));
      z.push_back(static_cast<char>(n >> 8));
      z.push_back(static_cast<char>(~n & 0xff));
      z.push_back(static_cast<char>((~n >> 8) & 0xff));
      z.append(raw, at, n);
      at += n;
      if (last) break;
    }
    std::uint32_t a = 1, b = 0;  // Adler-32
    for (unsigned char ch : raw) a = (a + ch) % 65521, b = (b + a) % 65521;
    put32(z, (b << 16) | a);
  }

  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(width));
  put32(ihdr, static_cast<std::uint32_t>(height));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, adaptive filters, no interlace
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

namespace {

// An axis: log (decades) or linear ("nice" steps of 1, 2 or 5 x 10^k), mapping values to [0, 1].
struct Axis {
  bool log = true;
  double lo = 0, hi = 1, step = 1;  // log: decades lo..hi (exponents), step in decades
  Axis(bool is_log, double vmin, double vmax) : log(is_log) {
    if (log) {
      if (!(vmin <= vmax)) vmin = 1e-10, vmax = 1;
      lo = std::floor(std::log10(vmin)), hi = std::ceil(std::log10(vmax));
      if (hi <= lo) hi = lo + 1;
      step = std::max(1.0, std::floor((hi - lo + 11) / 12));
      return;
    }
    if (!(vmin <= vmax)) vmin = 0, vmax = 1;
    if (vmax == vmin) vmin -= std::max(1.0, std::fabs(vmin) * 0.1), vmax += std::max(1.0, std::fabs(vmax) * 0.1);
    const double raw = (vmax - vmin) / 6, mag = std::pow(10.0, std::floor(std::log10(raw)));
    step = raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
    lo = std::floor(vmin / step) * step, hi = std::ceil(vmax / step) * step;
  }
  // where v lies, 0 at lo and 1 at hi; values a log axis cannot show go to its lower end
  double at(double v) const {
    if (log) return ((v > 0 && std::isfinite(v) ? std::log10(v) : lo) - lo) / (hi - lo);
    return ((std::isfinite(v) ? v : lo) - lo) / (hi - lo);
  }
  std::vector<std::pair<double, std::string>> ticks() const {
    std::vector<std::pair<double, std::string>> out;
    if (log) {
      for (double e = lo; e <= hi + 1e-9; e += step) out.emplace_back((e - lo) / (hi - lo), decade(static_cast<int>(e)));
      return out;
    }
    for (double v = lo; v <= hi + step * 1e-6; v += step) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.4g", std::fabs(v) < step * 1e-6 ? 0.0 : v);
      out.emplace_back((v - lo) / (hi - lo), buf);
    }
    return out;
  }
};

std::pair<double, double> extent(const std::vector<Series>& series, bool x, bool positive) {
  double lo = INFINITY, hi = -INFINITY;
  for (const Series& s : series)
    for (double v : x ? s.x : s.y)
      if (std::isfinite(v) && (!positive || v > 0)) lo = std::min(lo, v), hi = std::max(hi, v);
  return {lo, hi};
}

struct Frame {  // the plot's area: drawing is clipped to it
  int x0, y0, x1, y1;
  bool in(int x, int y) const { return x >= x0 && x <= x1 && y >= y0 && y <= y1; }
};

void segment(Canvas& c, const Frame& f, int x0, int y0, int x1, int y1, Rgb col) {  // Bresenham, 2 pixels thick
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  for (int e = dx + dy;;) {
    for (const auto& [u, v] : {std::pair{x0, y0}, {x0 + 1, y0}, {x0, y0 + 1}})
      if (f.in(u, v)) c.set(u, v, col);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * e;
    if (e2 >= dy) e += dy, x0 += sx;
    if (e2 <= dx) e += dx, y0 += sy;
  }
}

}  // namespace

std::string plot_png(const std::string& title, const std::string& x_label, const std::string& y_label,
                     const std::vector<Series>& series, const PlotStyle& style) {
  constexpr int W = 720, H = 460, L = 80, R = 190, T = 40, B = 60;
  const Rgb black{0, 0, 0}, grid{225, 225, 225};
  static const Rgb palette[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                {188, 189, 34},  {23, 190, 207}};
  auto [xmin, xmax] = extent(series, true, style.log_x);
  auto [ymin, ymax] = extent(series, false, style.log_y);
  if (std::isfinite(style.x_lo) && std::isfinite(style.x_hi)) xmin = style.x_lo, xmax = style.x_hi;
  if (std::isfinite(style.y_lo) && std::isfinite(style.y_hi)) ymin = style.y_lo, ymax = style.y_hi;
  const Axis ax(style.log_x, xmin, xmax), ay(style.log_y, ymin, ymax);
  Canvas c(W, H);
  const int pw = W - L - R, ph = H - T - B;
  const Frame frame{L, T, L + pw, T + ph};
  auto px = [&](double v) { return L + static_cast<int>(std::lround(ax.at(v) * pw)); };
  auto py = [&](double v) { return T + ph - static_cast<int>(std::lround(ay.at(v) * ph)); };
  for (const auto& [f, label] : ax.ticks()) {
    const int x = L + static_cast<int>(std::lround(f * pw));
    c.vline(x, T, T + ph, grid);
    c.vline(x, T + ph, T + ph + 4, black);
    text(c, x - text_width(label) / 2, T + ph + 8, label, black);
  }
  for (const auto& [f, label] : ay.ticks()) {
    const int y = T + ph - static_cast<int>(std::lround(f * ph));
    c.hline(L, L + pw, y, grid);
    c.hline(L - 4, L, y, black);
    text(c, L - 8 - text_width(label), y - 3, label, black);
  }
  c.hline(L, L + pw, T, black);
  c.hline(L, L + pw, T + ph, black);
  c.vline(L, T, T + ph, black);
  c.vline(L + pw, T, T + ph, black);
  text(c, L + (pw - text_width(title, 2)) / 2, 10, title, black, 2);
  text(c, L + (pw - text_width(x_label)) / 2, H - 22, x_label, black);
  text_up(c, 12, T + (ph + text_width(y_label)) / 2, y_label, black);
  for (std::size_t k = 0; k < series.size(); ++k) {
    const Rgb col = palette[k % (sizeof palette / sizeof palette[0])];
    const Series& s = series[k];
    const std::size_t n = std::min(s.x.size(), s.y.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (style.lines && n > 1) {  // (a line of one point is drawn as a dot)
        if (i + 1 < n) segment(c, frame, px(s.x[i]), py(s.y[i]), px(s.x[i + 1]), py(s.y[i + 1]), col);
      } else if (frame.in(px(s.x[i]), py(s.y[i]))) {
        c.disc(px(s.x[i]), py(s.y[i]), 3, col);
      }
    }
    const int ly = T + 10 + static_cast<int>(k) * 16;  // legend
    c.disc(L + pw + 18, ly + 3, 4, col);
    text(c, L + pw + 28, ly, s.name.substr(0, 26), black);
  }
  return encode_png(W, H, c.px);
}

std::string scatter_png(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<Series>& series) {
  return plot_png(title, x_label, y_label, series, PlotStyle{});
}

}  // namespace degpu::cli
