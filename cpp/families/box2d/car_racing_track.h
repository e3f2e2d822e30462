// CarRacing's random race track, as Gymnasium 1.4.0's gymnasium/envs/box2d/car_racing.py
// (CarRacing._create_track) builds it: twelve checkpoints on a noisy circle, a path that steers
// towards them one small step at a time, one closed lap cut out of that path, red-white kerbs
// on the sharp turns, and one quadrilateral road tile per track point. Everything here is
// float64 arithmetic in the reference's order, with libm's sin / cos / atan2 (the functions
// Python's math module calls), so tracks match bit for bit; no Box2D is involved.
#ifndef ENVFLEET_FAMILIES_BOX2D_CAR_RACING_TRACK_H_
#define ENVFLEET_FAMILIES_BOX2D_CAR_RACING_TRACK_H_

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "common/numpy/random.h"

namespace envfleet::box2d::car_racing {

// The module constants of car_racing.py, evaluated as Python evaluates them.
inline constexpr double kScale = 6.0;
inline constexpr double kTrackRad = 900 / kScale;
inline constexpr double kPlayfield = 2000 / kScale;
inline constexpr double kTrackDetailStep = 21 / kScale;
inline constexpr double kTrackTurnRate = 0.31;
inline constexpr double kTrackWidth = 40 / kScale;
inline constexpr double kBorder = 8 / kScale;
inline constexpr int kBorderMinCount = 4;
inline constexpr int kCheckpoints = 12;

// One point of the path: the polar angle it was generated at, the heading (beta) and the
// position. The names are the reference's tuple (alpha, beta, x, y).
struct TrackPoint {
  double alpha, beta, x, y;
};

// A quadrilateral to draw, in world coordinates, in the reference's vertex order.
struct Quad {
  double x[4], y[4];
};

// np.sign of a float64 (NaN cannot occur here).
inline double Sign(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

// One attempt of _create_track: draws 2 * 12 uniforms, walks the path, and returns false when
// the reference would retry (no closed lap found, or the lap's ends do not meet). On success
// `track` holds the lap and `border` says which points get a kerb, and start_alpha is set.
inline bool CreateTrack(NumpyGenerator& rng, std::vector<TrackPoint>* track_out,
                        std::vector<bool>* border_out) {
  struct Checkpoint {
    double alpha, x, y;
  };
  Checkpoint checkpoints[kCheckpoints];
  double start_alpha = 0;
  for (int c = 0; c < kCheckpoints; ++c) {
    const double noise = rng.Uniform(0, 2 * M_PI * 1 / kCheckpoints);
    double alpha = 2 * M_PI * c / kCheckpoints + noise;
    double rad = rng.Uniform(kTrackRad / 3, kTrackRad);
    if (c == 0) {
      alpha = 0;
      rad = 1.5 * kTrackRad;
    }
    if (c == kCheckpoints - 1) {
      alpha = 2 * M_PI * c / kCheckpoints;
      start_alpha = 2 * M_PI * (-0.5) / kCheckpoints;
      rad = 1.5 * kTrackRad;
    }
    checkpoints[c] = {alpha, rad * std::cos(alpha), rad * std::sin(alpha)};
  }

  // Go from one checkpoint to the next, turning at most kTrackTurnRate per step.
  double x = 1.5 * kTrackRad, y = 0, beta = 0;
  int dest_i = 0;
  int laps = 0;
  std::vector<TrackPoint> track;
  int no_freeze = 2500;
  bool visited_other_side = false;
  while (true) {
    double alpha = std::atan2(y, x);
    if (visited_other_side && alpha > 0) {
      ++laps;
      visited_other_side = false;
    }
    if (alpha < 0) {
      visited_other_side = true;
      alpha += 2 * M_PI;
    }
    double dest_x, dest_y;
    while (true) {  // find the destination among the checkpoints
      bool failed = true;
      while (true) {
        const Checkpoint& dest = checkpoints[dest_i % kCheckpoints];
        dest_x = dest.x;
        dest_y = dest.y;
        if (alpha <= dest.alpha) {
          failed = false;
          break;
        }
        ++dest_i;
        if (dest_i % kCheckpoints == 0) break;
      }
      if (!failed) break;
      alpha -= 2 * M_PI;
    }
    const double r1x = std::cos(beta);
    const double r1y = std::sin(beta);
    const double p1x = -r1y;
    const double p1y = r1x;
    const double dest_dx = dest_x - x;  // the vector towards the destination
    const double dest_dy = dest_y - y;
    double proj = r1x * dest_dx + r1y * dest_dy;  // projected on the heading's normal
    while (beta - alpha > 1.5 * M_PI) beta -= 2 * M_PI;
    while (beta - alpha < -1.5 * M_PI) beta += 2 * M_PI;
    const double prev_beta = beta;
    proj *= kScale;
    if (proj > 0.3) beta -= std::min(kTrackTurnRate, std::abs(0.001 * proj));
    if (proj < -0.3) beta += std::min(kTrackTurnRate, std::abs(0.001 * proj));
    x += p1x * kTrackDetailStep;
    y += p1y * kTrackDetailStep;
    track.push_back({alpha, prev_beta * 0.5 + beta * 0.5, x, y});
    if (laps > 4) break;
    if (--no_freeze == 0) break;
  }

  // The closed lap: between the last two crossings of start_alpha (the first lap is ignored).
  int i1 = -1, i2 = -1;
  int i = static_cast<int>(track.size());
  while (true) {
    --i;
    if (i == 0) return false;
    const bool pass_through_start =
        track[i].alpha > start_alpha && track[i - 1].alpha <= start_alpha;
    if (pass_through_start && i2 == -1) {
      i2 = i;
    } else if (pass_through_start && i1 == -1) {
      i1 = i;
      break;
    }
  }
  // track[i1 : i2 - 1]
  track = std::vector<TrackPoint>(track.begin() + i1, track.begin() + (i2 - 1));
  const int n = static_cast<int>(track.size());
  if (n == 0) return false;  // an empty slice would fail in the reference (track[0])

  const double first_beta = track[0].beta;
  const double first_perp_x = std::cos(first_beta);
  const double first_perp_y = std::sin(first_beta);
  // The length of the perpendicular jump that glues the lap's head to its tail.
  const double gx = first_perp_x * (track[0].x - track[n - 1].x);
  const double gy = first_perp_y * (track[0].y - track[n - 1].y);
  const double well_glued_together = std::sqrt(gx * gx + gy * gy);
  if (well_glued_together > kTrackDetailStep) return false;

  // Kerbs on hard turns: BORDER_MIN_COUNT consecutive sharp steps the same way. Indices wrap as
  // Python's negative indices do, and the second pass updates in place, as there.
  const auto wrap = [n](int k) { return k < 0 ? k + n : k; };
  std::vector<bool> border(n, false);
  for (int k = 0; k < n; ++k) {
    bool good = true;
    double oneside = 0;
    for (int neg = 0; neg < kBorderMinCount; ++neg) {
      const double beta1 = track[wrap(k - neg - 0)].beta;
      const double beta2 = track[wrap(k - neg - 1)].beta;
      good = good && std::abs(beta1 - beta2) > kTrackTurnRate * 0.2;
      oneside += Sign(beta1 - beta2);
    }
    good = good && std::abs(oneside) == kBorderMinCount;
    border[k] = good;
  }
  for (int k = 0; k < n; ++k) {
    for (int neg = 0; neg < kBorderMinCount; ++neg) {
      if (border[k]) border[wrap(k - neg)] = true;
    }
  }
  *track_out = std::move(track);
  *border_out = std::move(border);
  return true;
}

// The road tile of track point i (its vertices road1_l, road1_r, road2_r, road2_l), between
// point i and point i - 1 (wrapping).
inline Quad RoadTile(const std::vector<TrackPoint>& track, int i) {
  const int n = static_cast<int>(track.size());
  const TrackPoint& p1 = track[i];
  const TrackPoint& p2 = track[i == 0 ? n - 1 : i - 1];
  const double c1 = std::cos(p1.beta), s1 = std::sin(p1.beta);
  const double c2 = std::cos(p2.beta), s2 = std::sin(p2.beta);
  return {{p1.x - kTrackWidth * c1, p1.x + kTrackWidth * c1, p2.x + kTrackWidth * c2,
           p2.x - kTrackWidth * c2},
          {p1.y - kTrackWidth * s1, p1.y + kTrackWidth * s1, p2.y + kTrackWidth * s2,
           p2.y - kTrackWidth * s2}};
}

// The kerb beside tile i (b1_l, b1_r, b2_r, b2_l), on the outer side of the turn.
inline Quad BorderTile(const std::vector<TrackPoint>& track, int i) {
  const int n = static_cast<int>(track.size());
  const TrackPoint& p1 = track[i];
  const TrackPoint& p2 = track[i == 0 ? n - 1 : i - 1];
  const double side = Sign(p2.beta - p1.beta);
  const double c1 = std::cos(p1.beta), s1 = std::sin(p1.beta);
  const double c2 = std::cos(p2.beta), s2 = std::sin(p2.beta);
  const double inner = side * kTrackWidth;
  const double outer = side * (kTrackWidth + kBorder);
  return {{p1.x + inner * c1, p1.x + outer * c1, p2.x + outer * c2, p2.x + inner * c2},
          {p1.y + inner * s1, p1.y + outer * s1, p2.y + outer * s2, p2.y + inner * s2}};
}

}  // namespace envfleet::box2d::car_racing

#endif  // ENVFLEET_FAMILIES_BOX2D_CAR_RACING_TRACK_H_
