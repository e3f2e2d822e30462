// myosuite 3.0.0's ReachEnvV0 (myosuite/envs/myo/tasks/basic/arm/reach.py, with
// terms/base_reward.py's multi_site_reach_reward and utils/reach_workspace.py): bring tip sites
// to targets. The ids myo{,Sarc,Fati}FingerReach*-v0 (EnvPool's names).
//
//   options:  target_sites / target_low / target_high (the reference's target_reach_range:
//             each tip site's box, 3 values per site), target_sampling ("box": each target
//             uniform in its box; "workspace": the tips' positions at a random one of the
//             reachable configurations, below), far_th;
//   reset:    the targets drawn ("<tip>_target" sites moved), mj_forward;
//   obs:      qpos, qvel * dt, tip_pos, reach_err = target_pos - tip_pos, act (when the model
//             has activations);
//   reward:   with k sites, d the distance over all 3k coordinates, near = 0.0125 k and far
//             = far_th k once the time exceeds two control steps (else infinite):
//             reach = -d, bonus = [d < 2 near] + [d < near], act_reg = -|act| / na,
//             penalty = -[d > far], weighted by weighted_reward_keys (default reach 1,
//             bonus 4, penalty 50); solved d < near; done d > far.
//
// The workspace table (reachable_target_points): 100000 configurations drawn with a generator
// seeded 0, every limited hinge or slide joint uniform in its range, joint after joint (other
// positions at qpos0); the tips' positions by mj_kinematics; the configurations whose tips
// all lie in their boxes kept. It depends on the model's kinematics and the boxes only, so it
// is computed once per model and boxes, and shared. (The reference under MuJoCo 4.0.0 draws
// no joint, its test of the joint type failing: envfleet draws them, as the reference does
// with its one-line fix, envfleet.bench.references.import_myosuite.)
#ifndef ENVFLEET_FAMILIES_MYOSUITE_REACH_H_
#define ENVFLEET_FAMILIES_MYOSUITE_REACH_H_

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "families/myosuite/myo_env.h"

namespace envfleet {
namespace myosuite {

// The reachable tip positions: rows of 3k values.
struct Workspace {
  std::weak_ptr<const mjModel> model;  // the model it was computed for (a cache key)
  int row = 0;                         // 3k
  std::vector<double> points;
  int64_t size() const { return static_cast<int64_t>(points.size()) / row; }
};

inline std::shared_ptr<const Workspace> ReachableTargets(const ModelPtr& model,
                                                         const std::vector<int>& sites,
                                                         const std::vector<double>& low,
                                                         const std::vector<double>& high) {
  constexpr int64_t kSamples = 100000;
  static std::mutex mutex;
  static std::map<std::pair<const mjModel*, std::vector<double>>, std::shared_ptr<const Workspace>>
      cache;  // entries of freed models are found stale by their weak pointer, and replaced
  std::vector<double> key = low;
  key.insert(key.end(), high.begin(), high.end());
  for (int s : sites) key.push_back(s);
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[{model.get(), key}];
  if (slot && slot->model.lock() == model) return slot;
  const mjModel* m = model.get();
  NumpyGenerator rng(0);
  const int nq = m->nq;
  std::vector<double> qpos(static_cast<size_t>(kSamples) * nq);
  for (int64_t i = 0; i < kSamples; ++i) {
    for (int a = 0; a < nq; ++a) qpos[i * nq + a] = m->qpos0[a];
  }
  for (int j = 0; j < m->njnt; ++j) {
    const int type = m->jnt_type[j];
    if (!m->jnt_limited[j] || (type != mjJNT_HINGE && type != mjJNT_SLIDE)) continue;
    const double lo = m->jnt_range[2 * j], hi = m->jnt_range[2 * j + 1];
    const int adr = m->jnt_qposadr[j];
    for (int64_t i = 0; i < kSamples; ++i) qpos[i * nq + adr] = rng.Uniform(lo, hi);
  }
  auto table = std::make_shared<Workspace>();
  table->model = model;
  table->row = 3 * static_cast<int>(sites.size());
  mjData* d = mj_makeData(m);
  if (d == nullptr) throw std::runtime_error("MuJoCo could not allocate mjData");
  std::vector<double> tips(table->row);
  for (int64_t i = 0; i < kSamples; ++i) {
    for (int a = 0; a < nq; ++a) d->qpos[a] = qpos[i * nq + a];
    mj_kinematics(m, d);
    bool inside = true;
    for (size_t s = 0; s < sites.size(); ++s) {
      for (int a = 0; a < 3; ++a) {
        const double x = d->site_xpos[3 * sites[s] + a];
        tips[3 * s + a] = x;
        inside = inside && x >= low[3 * s + a] && x <= high[3 * s + a];
      }
    }
    if (inside) table->points.insert(table->points.end(), tips.begin(), tips.end());
  }
  mj_deleteData(d);
  if (table->points.empty()) {
    throw std::invalid_argument(
        "target_sampling 'workspace': no joint configuration reaches "
        "the target boxes");
  }
  slot = table;
  return table;
}

class ReachEnv : public MyoEnv {
 public:
  static Config DefaultConfig() {
    Config config;
    AddMyoDefaults(config, "");
    config.Set("target_sites", std::vector<std::string>{});
    config.Set("target_low", std::vector<double>{});
    config.Set("target_high", std::vector<double>{});
    config.Set("target_sampling", std::string("box"));
    config.Set("far_th", 0.35);
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    const ModelPtr model = LoadMyoModel(config);
    const int k = CheckTargets(config, model.get());
    const mjModel* m = model.get();
    return MyoSpec(config, m, m->nq + m->nv + 6 * k + m->na, ReachTerms());
  }

  ReachEnv(const Config& config, uint64_t seed)
      : MyoEnv(config, seed, LoadMyoModel(config), ReachTerms(),
               {{"reach", 1.0}, {"bonus", 4.0}, {"penalty", 50}}),
        far_th_(config.Get<double>("far_th")) {
    CheckTargets(config, model_);
    low_ = config.Get<std::vector<double>>("target_low");
    high_ = config.Get<std::vector<double>>("target_high");
    sites_ = ReadReachSites(config, model_);
    const std::string& sampling = config.Get<std::string>("target_sampling");
    if (sampling == "workspace") {
      workspace_ = ReachableTargets(model_holder_, sites_.tips, low_, high_);
    } else if (sampling != "box") {
      throw std::invalid_argument("target_sampling must be 'box' or 'workspace', got '" + sampling +
                                  "'");
    }
    ComputeInitialState();
  }

  void Reset() override {
    ResetState();
    double* site_pos = own_model()->site_pos;
    if (workspace_) {
      const int64_t row = rng().Integers(0, workspace_->size());
      const double* sample = workspace_->points.data() + row * workspace_->row;
      for (size_t s = 0; s < sites_.targets.size(); ++s) {
        for (int a = 0; a < 3; ++a) site_pos[3 * sites_.targets[s] + a] = sample[3 * s + a];
      }
    } else {
      for (size_t s = 0; s < sites_.targets.size(); ++s) {
        for (int a = 0; a < 3; ++a) {
          site_pos[3 * sites_.targets[s] + a] = rng().Uniform(low_[3 * s + a], high_[3 * s + a]);
        }
      }
    }
    mj_forward(model_, data_);  // reset_task's
    mj_forward(model_, data_);  // reset's (no effect on the state; the reference runs both)
    Evaluate();
  }

  void Write(const OutputSlot& out) const override {
    WriteActAndInfo(WriteTipsAndErrors(WriteJointState(out), sites_), out);
  }

 private:
  static int CheckTargets(const Config& config, const mjModel* m) {
    return static_cast<int>(ReadReachSites(config, m).tips.size());
  }

  // multi_site_reach_reward.
  void Evaluate() override {
    const int k = static_cast<int>(sites_.tips.size());
    const double sq = numpy_math::PairwiseSum<double>(
        [this](int64_t i) {
          const int s = static_cast<int>(i / 3), a = static_cast<int>(i % 3);
          const double err = data_->site_xpos[3 * sites_.targets[s] + a] -
                             data_->site_xpos[3 * sites_.tips[s] + a];
          return err * err;
        },
        0, 3 * k);
    const double dist = std::sqrt(sq);
    const double near = k * 0.0125;
    const bool penalty_active = data_->time > 2.0 * dt();
    const double far = penalty_active ? far_th_ * k : std::numeric_limits<double>::infinity();
    const double bonus = 1.0 * (dist < 2 * near) + 1.0 * (dist < near);
    const double act_reg = -1.0 * ActMagnitude();
    const double penalty = -1.0 * (dist > far);
    SetTerms({-1.0 * dist, bonus, act_reg, penalty, -1.0 * dist}, dist<near, dist> far);
  }

  double far_th_;
  std::vector<double> low_, high_;
  ReachSites sites_;
  std::shared_ptr<const Workspace> workspace_;
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_REACH_H_
