// _envfleet_testing's render2d_draw: replays a list of drawing calls on an
// envfleet::render2d::Canvas (cpp/common/render2d/) so that
// tests/families/classic_control/test_classic_control_render.py can compare each primitive
// with pygame's own on random shapes. Arguments arrive as the Python numbers the test hands pygame,
// and are converted as pygame converts them (gfxdraw: int() then Sint16; draw.line: int();
// draw.aaline: float rounded to single precision).
#include <nanobind/nanobind.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/render2d/canvas.h"
#include "common/render2d/draw.h"
#include "common/render2d/geometry.h"
#include "common/render2d/gfxdraw.h"

namespace nb = nanobind;

namespace envfleet {
namespace {

using render2d::Canvas;
using render2d::Color;
using render2d::GfxInt;
using render2d::PyInt;

Color ToColor(nb::handle value) {
  nb::tuple t = nb::cast<nb::tuple>(value);
  if (t.size() != 3 && t.size() != 4) throw nb::value_error("a colour is (r, g, b[, a])");
  Color c;
  c.r = nb::cast<uint8_t>(t[0]);
  c.g = nb::cast<uint8_t>(t[1]);
  c.b = nb::cast<uint8_t>(t[2]);
  c.a = t.size() == 4 ? nb::cast<uint8_t>(t[3]) : 255;
  return c;
}

double Num(nb::handle value) { return nb::cast<double>(value); }
int16_t Gfx(nb::handle value) { return GfxInt(Num(value)); }

// points: a sequence of (x, y) pairs.
std::vector<std::pair<double, double>> Points(nb::handle value) {
  std::vector<std::pair<double, double>> out;
  for (nb::handle p : nb::cast<nb::sequence>(value)) {
    nb::tuple t = nb::cast<nb::tuple>(p);
    out.emplace_back(Num(t[0]), Num(t[1]));
  }
  return out;
}

void Apply(const Canvas& c, uint8_t* rgb, int width, int height, const nb::tuple& op) {
  const std::string kind = nb::cast<const char*>(op[0]);
  const auto arity = [&](size_t n) {
    if (op.size() != n) throw nb::value_error((kind + ": wrong number of arguments").c_str());
  };
  if (kind == "fill") {
    arity(2);
    c.Fill(ToColor(op[1]));
  } else if (kind == "flip") {
    arity(1);
    render2d::FlipVertical(rgb, width, height);
  } else if (kind == "pixel") {
    arity(4);
    render2d::gfx::Pixel(c, Gfx(op[1]), Gfx(op[2]), ToColor(op[3]));
  } else if (kind == "hline") {
    arity(5);
    render2d::gfx::HLine(c, Gfx(op[1]), Gfx(op[2]), Gfx(op[3]), ToColor(op[4]));
  } else if (kind == "vline") {
    arity(5);
    render2d::gfx::VLine(c, Gfx(op[1]), Gfx(op[2]), Gfx(op[3]), ToColor(op[4]));
  } else if (kind == "line") {
    arity(6);
    render2d::gfx::Line(c, Gfx(op[1]), Gfx(op[2]), Gfx(op[3]), Gfx(op[4]), ToColor(op[5]));
  } else if (kind == "aapolygon" || kind == "filled_polygon") {
    arity(3);
    std::vector<int16_t> xs, ys;
    for (auto [x, y] : Points(op[1])) {
      xs.push_back(GfxInt(x));
      ys.push_back(GfxInt(y));
    }
    const int n = static_cast<int>(xs.size());
    if (kind == "aapolygon") {
      render2d::gfx::AaPolygon(c, xs.data(), ys.data(), n, ToColor(op[2]));
    } else {
      render2d::gfx::FilledPolygon(c, xs.data(), ys.data(), n, ToColor(op[2]));
    }
  } else if (kind == "aacircle") {
    arity(5);
    render2d::gfx::AaCircle(c, Gfx(op[1]), Gfx(op[2]), Gfx(op[3]), ToColor(op[4]));
  } else if (kind == "aaellipse") {
    arity(6);
    render2d::gfx::AaEllipse(c, Gfx(op[1]), Gfx(op[2]), Gfx(op[3]), Gfx(op[4]), ToColor(op[5]));
  } else if (kind == "filled_circle") {
    arity(5);
    render2d::gfx::FilledCircle(c, Gfx(op[1]), Gfx(op[2]), Gfx(op[3]), ToColor(op[4]));
  } else if (kind == "draw_line") {
    arity(4);
    const auto p = Points(nb::make_tuple(op[1], op[2]));
    render2d::draw::Line(c, PyInt(p[0].first), PyInt(p[0].second), PyInt(p[1].first),
                         PyInt(p[1].second), ToColor(op[3]));
  } else if (kind == "draw_lines") {
    arity(4);
    std::vector<int> xs, ys;
    for (auto [x, y] : Points(op[2])) {
      xs.push_back(PyInt(x));
      ys.push_back(PyInt(y));
    }
    render2d::draw::Lines(c, xs.data(), ys.data(), static_cast<int>(xs.size()),
                          nb::cast<bool>(op[1]), ToColor(op[3]));
  } else if (kind == "draw_aaline") {
    arity(4);
    const auto p = Points(nb::make_tuple(op[1], op[2]));
    render2d::draw::AaLine(c, static_cast<float>(p[0].first), static_cast<float>(p[0].second),
                           static_cast<float>(p[1].first), static_cast<float>(p[1].second),
                           ToColor(op[3]));
  } else if (kind == "draw_aalines") {
    arity(4);
    std::vector<float> xs, ys;
    for (auto [x, y] : Points(op[2])) {
      xs.push_back(static_cast<float>(x));
      ys.push_back(static_cast<float>(y));
    }
    render2d::draw::AaLines(c, xs.data(), ys.data(), static_cast<int>(xs.size()),
                            nb::cast<bool>(op[1]), ToColor(op[3]));
  } else {
    throw nb::value_error(("unknown drawing call: " + kind).c_str());
  }
}

nb::bytes Render2dDraw(int width, int height, nb::list ops, bool flip_y) {
  if (width <= 0 || height <= 0) throw nb::value_error("width and height must be positive");
  std::string rgb(static_cast<size_t>(width) * height * 3, '\0');
  uint8_t* data = reinterpret_cast<uint8_t*>(rgb.data());
  const Canvas canvas(data, width, height, flip_y);
  for (nb::handle op : ops) Apply(canvas, data, width, height, nb::cast<nb::tuple>(op));
  return nb::bytes(rgb.data(), rgb.size());
}

}  // namespace

void BindRender2dTesting(nanobind::module_& m) {
  m.def("render2d_draw", &Render2dDraw, nb::arg("width"), nb::arg("height"), nb::arg("ops"),
        nb::arg("flip_y") = false,
        "Draws `ops` in order on a black width x height RGB canvas and returns its bytes (rows\n"
        "top first); with flip_y the canvas maps y to height - 1 - y (the same as drawing and\n"
        "then flipping the frame vertically). Each op is a tuple naming a pygame call and its\n"
        "arguments, in pygame's order: ('fill', c), ('flip',), ('pixel', x, y, c),\n"
        "('hline', x1, x2, y, c), ('vline', x, y1, y2, c), ('line', x1, y1, x2, y2, c),\n"
        "('aapolygon', points, c), ('filled_polygon', points, c), ('aacircle', x, y, r, c),\n"
        "('aaellipse', x, y, rx, ry, c), ('filled_circle', x, y, r, c) for pygame.gfxdraw;\n"
        "('draw_line', start, end, c), ('draw_lines', closed, points, c),\n"
        "('draw_aaline', start, end, c), ('draw_aalines', closed, points, c) for pygame.draw.\n"
        "c is (r, g, b[, a]).");
}

}  // namespace envfleet
