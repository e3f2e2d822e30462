// scipy.ndimage.zoom(input, zoom) of a 2-D float64 array with the defaults quadruped's Escape
// task uses (order=3, mode='constant', cval=0, prefilter=True, grid_mode=False), as SciPy
// computes it (scipy/ndimage/_interpolation.py: zoom; src/ni_splines.c: apply_filter,
// get_spline_interpolation_weights; src/ni_interpolation.c: NI_ZoomShift): a cubic B-spline
// prefilter along each axis (boundary 'mirror', which 'constant' uses for the filter), then
// each output point the sum over its 4 x 4 input neighbours, in SciPy's order, of coefficient
// x weight along axis 0 x weight along axis 1.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_SCIPY_ZOOM_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_SCIPY_ZOOM_H_

#include <cmath>
#include <cstdint>
#include <vector>

namespace envfleet {
namespace dm_control {
namespace scipy_zoom_internal {

constexpr double kPole = -0.267949192431122706472553658494127633;  // sqrt(3) - 2

// apply_filter on one line of n >= 2 values (order 3: one pole; mirror initialisation).
inline void FilterLine(double* c, int64_t n, int64_t stride) {
  const double z = kPole;
  const double gain = (1.0 - z) * (1.0 - 1.0 / z);
  for (int64_t i = 0; i < n; ++i) c[i * stride] *= gain;
  // _init_causal_mirror
  double z_i = z;
  const double z_n_1 = std::pow(z, static_cast<double>(n - 1));
  c[0] = c[0] + z_n_1 * c[(n - 1) * stride];
  for (int64_t i = 1; i < n - 1; ++i) {
    c[0] += z_i * (c[i * stride] + z_n_1 * c[(n - 1 - i) * stride]);
    z_i *= z;
  }
  c[0] /= 1 - z_n_1 * z_n_1;
  for (int64_t i = 1; i < n; ++i) c[i * stride] += z * c[(i - 1) * stride];
  // _init_anticausal_mirror
  double& last = c[(n - 1) * stride];
  last = (z * c[(n - 2) * stride] + last) * z / (z * z - 1);
  for (int64_t i = n - 2; i >= 0; --i) c[i * stride] = z * (c[(i + 1) * stride] - c[i * stride]);
}

// get_spline_interpolation_weights(x, 3, weights).
inline void CubicWeights(double x, double* w) {
  x -= std::floor(x);
  const double y = x, z = 1.0 - x;
  w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
  w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
  w[0] = z * z * z / 6.0;
  w[3] = 1.0;
  for (int i = 0; i < 3; ++i) w[3] -= w[i];
}

// One axis of NI_ZoomShift: per output index, whether it lies outside the input (mode
// 'constant': the output is cval), its 4 input indices (mirrored at the borders) and weights.
struct AxisTaps {
  std::vector<char> outside;
  std::vector<int64_t> index;  // 4 per output index
  std::vector<double> weight;  // 4 per output index
};

inline AxisTaps Taps(int64_t in_len, int64_t out_len) {
  AxisTaps taps;
  taps.outside.assign(out_len, 0);
  taps.index.assign(4 * out_len, 0);
  taps.weight.assign(4 * out_len, 0.0);
  // zoom = (in - 1) / (out - 1), or 1 where out == 1 (np.divide(..., where=...)).
  const double zoom =
      out_len > 1 ? static_cast<double>(in_len - 1) / static_cast<double>(out_len - 1) : 1.0;
  for (int64_t k = 0; k < out_len; ++k) {
    const double cc = static_cast<double>(k) * zoom;
    if (cc < 0 || cc > static_cast<double>(in_len - 1)) {  // map_coordinate: -1
      taps.outside[k] = 1;
      continue;
    }
    const int64_t start = static_cast<int64_t>(std::floor(cc)) - 1;
    for (int h = 0; h < 4; ++h) {
      int64_t idx = start + h;
      if (in_len <= 1) {
        idx = 0;
      } else {
        const int64_t s2 = 2 * in_len - 2;
        if (idx < 0) {
          idx = s2 * (-idx / s2) + idx;
          idx = idx <= 1 - in_len ? idx + s2 : -idx;
        } else if (idx >= in_len) {
          idx -= s2 * (idx / s2);
          if (idx >= in_len) idx = s2 - idx;
        }
      }
      taps.index[4 * k + h] = idx;
    }
    CubicWeights(cc, &taps.weight[4 * k]);
  }
  return taps;
}

}  // namespace scipy_zoom_internal

// scipy.ndimage.zoom of a rows x cols row-major array into out_rows x out_cols (the caller
// passes SciPy's output shape, round(rows * zoom)); rows, cols >= 2. Everything it needs is
// allocated at construction, so that Apply can run in an env's Reset.
class CubicZoom {
 public:
  CubicZoom(int64_t rows, int64_t cols, int64_t out_rows, int64_t out_cols)
      : rows_(rows),
        cols_(cols),
        out_rows_(out_rows),
        out_cols_(out_cols),
        taps0_(scipy_zoom_internal::Taps(rows, out_rows)),
        taps1_(scipy_zoom_internal::Taps(cols, out_cols)),
        c_(rows * cols) {}

  void Apply(const double* input, double* output) {
    using scipy_zoom_internal::FilterLine;
    for (int64_t k = 0; k < rows_ * cols_; ++k) c_[k] = input[k];
    for (int64_t j = 0; j < cols_; ++j) FilterLine(c_.data() + j, rows_, cols_);      // axis 0
    for (int64_t i = 0; i < rows_; ++i) FilterLine(c_.data() + i * cols_, cols_, 1);  // axis 1
    for (int64_t i = 0; i < out_rows_; ++i) {
      for (int64_t j = 0; j < out_cols_; ++j) {
        double t = 0.0;  // cval
        if (!taps0_.outside[i] && !taps1_.outside[j]) {
          for (int a = 0; a < 4; ++a) {
            for (int b = 0; b < 4; ++b) {
              double coeff = c_[taps0_.index[4 * i + a] * cols_ + taps1_.index[4 * j + b]];
              coeff *= taps0_.weight[4 * i + a];
              coeff *= taps1_.weight[4 * j + b];
              t += coeff;
            }
          }
        }
        output[i * out_cols_ + j] = t;
      }
    }
  }

 private:
  int64_t rows_, cols_, out_rows_, out_cols_;
  scipy_zoom_internal::AxisTaps taps0_, taps1_;
  std::vector<double> c_;  // the spline coefficients
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_SCIPY_ZOOM_H_
