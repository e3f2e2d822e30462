// The muscle fatigue of the myoFati* ids: myosuite 3.0.0's CumulativeFatigue
// (myosuite/core/muscle_conditions.py), the 3CC-r model of Xia & Frey Law (2008) with the
// rest recovery of Rakshit et al. (2021), run by its FatigueWrapper on the muscle
// excitations after the sigmoid, each control step.
//
// Each muscle's fatigue (F), recovery (R) and rest-recovery multiplier (r) come from its
// functional muscle group (the reference's MUSCLE_FMG, by actuator name, with a "_r"/"_l"
// side suffix dropped when the exact name is not listed), and the group's row of
// MUSCLE_FATIGUE_PARAMS (a group without a row takes its region's, "Wrist-Extensor" ->
// "Wrist"; a row without r, the default r; a muscle of no group, the default row).
//
// The arithmetic is the reference's NumPy arithmetic: float64 state (MA, MR, MF), the
// excitation TL an array of the controls' type (float32 for most tasks, so `TL <= 0.01`
// compares in float32; float64 for the leg tasks), NumPy's expm1, and the result MA written
// back into the controls.
#ifndef ENVFLEET_FAMILIES_MYOSUITE_FATIGUE_H_
#define ENVFLEET_FAMILIES_MYOSUITE_FATIGUE_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/numpy/svml.h"

namespace envfleet {
namespace myosuite {

struct FatigueParams {
  double F, R, r;
};

// MUSCLE_FATIGUE_PARAMS' rows without a sex (1/s; r is a multiplier).
struct FatigueRow {
  const char* group;
  FatigueParams params;
};
inline constexpr double kDefaultF = 0.00970, kDefaultR = 0.00091, kDefaultr = 15;
inline constexpr FatigueRow kFatigueRows[] = {
    {"Ankle-Dorsiflexor", {0.00828, 0.00204, 7.07}},
    {"Ankle-Plantarflexor", {0.00695, 0.00096, kDefaultr}},
    {"Elbow-Extensor", {0.01559, 0.00125, 25.52}},
    {"Elbow-Flexor", {0.01703, 0.00494, 4.68}},
    {"Hand-Adductor-Pollicis", {0.00558, 0.00283, 1.00}},
    {"Hand-First-Dorsal-Interossei", {0.02686, 0.00656, 3.41}},
    {"Wrist-Flexor", {0.01235, 0.00135, 12.51}},
    {"Knee-Extensor", {0.00825, 0.00076, 14.85}},
    {"Ankle", {0.01485, 0.00333, 9.31}},
    {"Toe", {0.01485, 0.00333, 9.31}},
    {"Elbow", {0.01086, 0.00225, 4.93}},
    {"Hand", {0.01227, 0.00134, 9.10}},
    {"Wrist", {0.01227, 0.00134, 9.10}},
    {"Finger", {0.01227, 0.00134, 9.10}},
    {"Knee", {0.00825, 0.00076, 14.85}},
    {"Shoulder", {0.01820, 0.00168, 15}},
    {"Default", {kDefaultF, kDefaultR, kDefaultr}},
};

// MUSCLE_FMG: the functional group of each muscle the reference lists, by group.
struct MuscleGroup {
  const char* group;
  std::vector<const char*> muscles;
};
inline const std::vector<MuscleGroup>& MuscleGroups() {
  static const std::vector<MuscleGroup> groups = {
      {"Shoulder-Abductor", {"DELT1", "DELT2", "DELT3", "SUPSP", "INFSP", "SUBSC"}},
      {"Shoulder-Adductor",
       {"TMIN", "TMAJ", "PECM1", "PECM2", "PECM3", "LAT1", "LAT2", "LAT3", "CORB"}},
      {"Elbow-Extensor", {"TRIlong", "TRIlat", "TRImed", "ANC", "SUP"}},
      {"Elbow-Flexor", {"BIClong", "BICshort", "BRA", "BRD", "PT"}},
      {"Wrist-Extensor",
       {"ECRL", "ECRB", "ECU", "EDC5", "EDC4", "EDC3", "EDC2", "EDM", "EIP", "EPL", "EPB"}},
      {"Wrist-Flexor",
       {"FCR", "FCU", "PL", "PQ", "FDS5", "FDS4", "FDS3", "FDS2", "FDP5", "FDP4", "FDP3", "FDP2",
        "FPL", "APL"}},
      {"Hand-Thenar", {"OP"}},
      {"Hand-First-Dorsal-Interossei", {"RI2"}},
      {"Hand-Lumbricals", {"LU_RB2", "LU_RB3", "LU_RB4", "LU_RB5"}},
      {"Hand-Interossei", {"UI_UB2", "RI3", "UI_UB3", "RI4", "UI_UB4", "RI5", "UI_UB5"}},
      {"Finger", {"extn", "adabR", "adabL", "mflx", "dflx"}},
      {"Hip-Adductor",
       {"addbrev_l", "addbrev_r", "addlong_l", "addlong_r", "addmagDist_l", "addmagDist_r",
        "addmagIsch_l", "addmagIsch_r", "addmagMid_l", "addmagMid_r", "addmagProx_l",
        "addmagProx_r", "grac_l", "grac_r"}},
      {"Thigh-Hamstring",
       {"bflh_l", "bflh_r", "bfsh_l", "bfsh_r", "semimem_l", "semimem_r", "semiten_l",
        "semiten_r"}},
      {"Ankle-Dorsiflexor", {"edl_l", "edl_r", "ehl_l", "ehl_r", "tibant_l", "tibant_r"}},
      {"Ankle-Plantarflexor",
       {"fdl_l", "fdl_r", "fhl_l", "fhl_r", "gaslat_l", "gaslat_r", "gasmed_l", "gasmed_r",
        "perbrev_l", "perbrev_r", "perlong_l", "perlong_r", "soleus_l", "soleus_r", "tibpost_l",
        "tibpost_r"}},
      {"Hip-Extensor",
       {"glmax1_l", "glmax1_r", "glmax2_l", "glmax2_r", "glmax3_l", "glmax3_r", "glmed3_l",
        "glmed3_r"}},
      {"Hip-Flexor",
       {"glmed1_l", "glmed1_r", "iliacus_l", "iliacus_r", "psoas_l", "psoas_r", "sart_l", "sart_r",
        "tfl_l", "tfl_r"}},
      {"Hip-Abductor",
       {"glmed2_l", "glmed2_r", "glmin1_l", "glmin1_r", "glmin2_l", "glmin2_r", "glmin3_l",
        "glmin3_r"}},
      {"Hip-Lateral-Rotator", {"piri_l", "piri_r"}},
      {"Knee-Extensor",
       {"recfem_l", "recfem_r", "vasint_l", "vasint_r", "vaslat_l", "vaslat_r", "vasmed_l",
        "vasmed_r"}},
  };
  return groups;
}

// _muscle_group: the group of an actuator name (after its last '/'), or "Default".
inline std::string MuscleGroupOf(const std::string& name) {
  const std::string base = name.substr(name.rfind('/') + 1);
  std::vector<std::string> keys = {base};
  for (const char* suffix : {"_r", "_l"}) {
    const size_t n = base.size();
    keys.push_back(n >= 2 && base.compare(n - 2, 2, suffix) == 0 ? base.substr(0, n - 2) : base);
  }
  for (const std::string& key : keys) {
    for (const MuscleGroup& group : MuscleGroups()) {
      for (const char* muscle : group.muscles) {
        if (key == muscle) return group.group;
      }
    }
  }
  return "Default";
}

// _per_muscle_params for one muscle (no sex given).
inline FatigueParams MuscleFatigueParams(const std::string& name) {
  const std::string group = MuscleGroupOf(name);
  const auto row = [](const std::string& g) -> const FatigueRow* {
    for (const FatigueRow& r : kFatigueRows) {
      if (g == r.group) return &r;
    }
    return nullptr;
  };
  const FatigueRow* found = row(group);
  if (found == nullptr) found = row(group.substr(0, group.find('-')));
  if (found == nullptr) found = row("Default");
  return found->params;
}

// CumulativeFatigue over a model's muscle actuators (in actuator order), stepped with the
// control step dt = timestep * frame_skip.
class CumulativeFatigue {
 public:
  static constexpr double kRestThreshold = 0.01;  // FATIGUE_REST_THRESHOLD

  CumulativeFatigue(const mjModel* m, int frame_skip)
      : dt_(m->opt.timestep * static_cast<double>(frame_skip)) {
    for (int i = 0; i < m->nu; ++i) {
      if (m->actuator_dyntype[i] != mjDYN_MUSCLE) continue;
      tauact_.push_back(m->actuator_dynprm[i * mjNDYN + 0]);
      taudeact_.push_back(m->actuator_dynprm[i * mjNDYN + 1]);
      const char* name = mj_id2name(m, mjOBJ_ACTUATOR, i);
      params_.push_back(MuscleFatigueParams(name == nullptr ? "" : name));
    }
    const size_t na = params_.size();
    ma_.assign(na, 0.0), mr_.assign(na, 1.0), mf_.assign(na, 0.0);
  }

  // reset() without a reset vector or randomness: MA 0, MR 1, MF 0.
  void Reset() {
    std::fill(ma_.begin(), ma_.end(), 0.0);
    std::fill(mr_.begin(), mr_.end(), 1.0);
    std::fill(mf_.begin(), mf_.end(), 0.0);
  }

  // compute_act: advances the compartments with the muscles' excitations `tl` (one per
  // muscle: float32 as most tasks' ctrl, float64 as the leg tasks') and writes MA into them, as
  // the stage's `ctrl[idx] = MA` does. TL <= 0.01 compares in TL's type (NumPy's promotion of
  // a Python float: 0.01f for a float32 array).
  template <typename T>
  void Apply(T* tl) {
    const double dt = dt_;
    for (size_t i = 0; i < params_.size(); ++i) {
      const double target = static_cast<double>(tl[i]);
      const double ma = ma_[i], mr = mr_[i], mf = mf_[i];
      const FatigueParams& p = params_[i];
      double ld = 1.0 / (tauact_[i] * (0.5 + 1.5 * ma));
      double lr = (0.5 + 1.5 * ma) / taudeact_[i];
      ld = -numpy_math::NpExpm1(-ld * dt) / dt;
      lr = -numpy_math::NpExpm1(-lr * dt) / dt;
      double c = 0.0;
      if (ma < target && mr > target - ma) {
        c = ld * (target - ma);
      } else if (ma < target && mr <= target - ma) {
        c = ld * mr;
      } else if (ma >= target) {
        c = lr * (target - ma);
      }
      const double rr = tl[i] <= static_cast<T>(kRestThreshold) ? p.r * p.R : p.R;
      // np.clip(C, lower, upper) = minimum(maximum(C, lower), upper)
      const double lower = std::max(-ma / dt + p.F * ma, (mr - 1.0) / dt + rr * mf);
      const double upper = std::min((1.0 - ma) / dt + p.F * ma, mr / dt + rr * mf);
      c = std::min(std::max(c, lower), upper);
      const double d_ma = (c - p.F * ma) * dt;
      const double d_mr = (-c + rr * mf) * dt;
      const double d_mf = (p.F * ma - rr * mf) * dt;
      ma_[i] = ma + d_ma;
      mr_[i] = mr + d_mr;
      mf_[i] = mf + d_mf;
      tl[i] = static_cast<T>(ma_[i]);
    }
  }

  size_t size() const { return params_.size(); }
  const std::vector<double>& ma() const { return ma_; }
  const std::vector<double>& mr() const { return mr_; }
  const std::vector<double>& mf() const { return mf_; }

 private:
  double dt_;
  std::vector<double> tauact_, taudeact_;
  std::vector<FatigueParams> params_;
  std::vector<double> ma_, mr_, mf_;
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_FATIGUE_H_
