// The random carried weight of myosuite 3.0.0's PoseEnvV0 (`weight_bodyname`, `weight_range`:
// the elbow exoskeleton's ExoRandom ids).
//
// At every reset, before anything else is drawn, the weight's body gets a mass w drawn in
// weight_range and its first geom the size 0.01 + 2.5 w / 100; the model is then refreshed as
// the reference's refresh_geom_derived_fields does (body_refresh.h), from the model file.
#ifndef ENVFLEET_FAMILIES_MYOSUITE_CARRIED_WEIGHT_H_
#define ENVFLEET_FAMILIES_MYOSUITE_CARRIED_WEIGHT_H_

#include <mujoco/mujoco.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "families/myosuite/body_refresh.h"

namespace envfleet {
namespace myosuite {

class CarriedWeight {
 public:
  // `path`: the model file `m` was compiled from; `body`: the weight's body; [low, high]: the
  // range its mass is drawn in.
  CarriedWeight(const std::string& path, const mjModel* m, const std::string& body, double low,
                double high)
      : body_(BodyId(m, body)),
        low_(low),
        high_(high),
        refresh_(Checked(path, m, body_, low, high)) {}

  double low() const { return low_; }
  double high() const { return high_; }

  // The reset's edit of `m` for the drawn mass `weight`.
  void Apply(mjModel* m, double weight) {
    m->body_mass[body_] = weight;
    m->geom_size[3 * m->body_geomadr[body_]] = 0.01 + 2.5 * weight / 100;
    refresh_.Refresh(m);
  }

 private:
  static int BodyId(const mjModel* m, const std::string& body) {
    const int id = mj_name2id(m, mjOBJ_BODY, body.c_str());
    if (id < 0) {
      throw std::invalid_argument("weight_bodyname: the model has no body named '" + body + "'");
    }
    return id;
  }

  // The range and the body checked before the source is read.
  static BodyRefresh Checked(const std::string& path, const mjModel* m, int body, double low,
                             double high) {
    if (!(low <= high) || !std::isfinite(low) || !std::isfinite(high) || low <= 0) {
      throw std::invalid_argument(
          "weight_range must be [low, high] with 0 < low <= high, finite; got [" +
          std::to_string(low) + ", " + std::to_string(high) + "]");
    }
    if (m->body_geomnum[body] < 1) {
      throw std::invalid_argument("weight_bodyname: body '" +
                                  std::string(mj_id2name(m, mjOBJ_BODY, body)) +
                                  "' has no geom to resize");
    }
    return BodyRefresh(path, m, body, "weight_bodyname");
  }

  int body_;
  double low_, high_;
  BodyRefresh refresh_;
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_CARRIED_WEIGHT_H_
