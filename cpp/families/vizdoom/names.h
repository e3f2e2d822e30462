// ViZDoom's names for buttons and game variables (as its .cfg files and EnvPool's options spell
// them), and EnvPool's enumeration of button combinations (use_combined_action).
#ifndef ENVFLEET_FAMILIES_VIZDOOM_NAMES_H_
#define ENVFLEET_FAMILIES_VIZDOOM_NAMES_H_

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ViZDoom.h"
#include "ViZDoomConfigLoader.h"

namespace envfleet {
namespace vizdoom {

// ViZDoom's config parser knows every name; its lookups are protected statics.
class NameLookup : public ::vizdoom::ConfigLoader {
 public:
  using ::vizdoom::ConfigLoader::stringToButton;
  using ::vizdoom::ConfigLoader::stringToGameVariable;
};

inline std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// "KILLCOUNT" (any case) -> KILLCOUNT; `option` names the option in the error.
inline ::vizdoom::GameVariable GameVariableFromName(const std::string& name,
                                                    const std::string& option) {
  try {
    return NameLookup::stringToGameVariable(Lower(name));
  } catch (...) {
    throw std::invalid_argument(option + ": '" + name +
                                "' is not a ViZDoom game variable (KILLCOUNT, HEALTH, AMMO2, "
                                "SELECTED_WEAPON, USER1, ...)");
  }
}

inline int ButtonFromName(const std::string& name) {
  try {
    return static_cast<int>(NameLookup::stringToButton(Lower(name)));
  } catch (...) {
    throw std::invalid_argument("delta_button_config: '" + name + "' is not a ViZDoom button");
  }
}

// The names of the game variables envfleet reports in info (kInfoVariables).
inline std::string GameVariableName(::vizdoom::GameVariable v) {
  namespace vzd = ::vizdoom;
  switch (v) {
    case vzd::AMMO2:
      return "AMMO2";
    case vzd::AMMO3:
      return "AMMO3";
    case vzd::AMMO4:
      return "AMMO4";
    case vzd::AMMO5:
      return "AMMO5";
    case vzd::AMMO6:
      return "AMMO6";
    case vzd::AMMO7:
      return "AMMO7";
    case vzd::ARMOR:
      return "ARMOR";
    case vzd::DAMAGECOUNT:
      return "DAMAGECOUNT";
    case vzd::DEATHCOUNT:
      return "DEATHCOUNT";
    case vzd::FRAGCOUNT:
      return "FRAGCOUNT";
    case vzd::HEALTH:
      return "HEALTH";
    case vzd::HITCOUNT:
      return "HITCOUNT";
    case vzd::KILLCOUNT:
      return "KILLCOUNT";
    case vzd::SELECTED_WEAPON:
      return "SELECTED_WEAPON";
    case vzd::SELECTED_WEAPON_AMMO:
      return "SELECTED_WEAPON_AMMO";
    case vzd::USER2:
      return "USER2";
    default:
      return "GAME_VARIABLE_" + std::to_string(static_cast<int>(v));
  }
}

// EnvPool's combined action set: every combination of the available buttons, walked in
// ViZDoom's button order, where
//   - opposite pairs (MOVE_RIGHT/MOVE_LEFT, MOVE_BACKWARD/MOVE_FORWARD, TURN_RIGHT/TURN_LEFT,
//     LOOK_UP/LOOK_DOWN, MOVE_UP/MOVE_DOWN, SELECT_NEXT/PREV_WEAPON, SELECT_NEXT/PREV_ITEM),
//     when both are available, take neither, the first, or the second;
//   - the SELECT_WEAPON1..0 buttons take none or exactly one;
//   - SPEED is always held when force_speed;
//   - a delta button with (n, lo, hi) in delta_config takes n values evenly from lo to hi
//     (float32 steps, as EnvPool), or stays 0 when n <= 1;
//   - any other available button is off or on.
// The order of the resulting list is EnvPool's, so a combined action index means the same
// buttons in both.
class ActionSetBuilder {
 public:
  using Delta = std::array<std::tuple<int, float, float>, ::vizdoom::BUTTON_COUNT>;

  ActionSetBuilder(const std::vector<::vizdoom::Button>& buttons, bool force_speed,
                   const Delta& delta)
      : num_buttons_(buttons.size()), force_speed_(force_speed), delta_(delta) {
    slot_.fill(-1);
    for (size_t i = 0; i < buttons.size(); ++i) {
      slot_[static_cast<size_t>(buttons[i])] = static_cast<int>(i);
    }
    current_.assign(::vizdoom::BUTTON_COUNT, 0.0);
  }

  std::vector<std::vector<double>> Build() {
    result_.clear();
    Walk(0);
    return result_;
  }

 private:
  static constexpr int kFirstDelta = 38;   // LOOK_UP_DOWN_DELTA
  static constexpr int kEnd = 43;          // BUTTON_COUNT
  static constexpr int kFirstWeapon = 21;  // SELECT_WEAPON1
  static constexpr int kLastWeapon = 30;   // SELECT_WEAPON0
  static constexpr int kSpeed = 8;

  static bool StartsPair(int b) {
    return b == 10 || b == 12 || b == 14 || b == 16 || b == 18 || b == 31 || b == 35;
  }

  void Set(int button, double value) { current_[static_cast<size_t>(slot_[button])] = value; }

  void Walk(int b) {
    if (b == kEnd) {
      result_.emplace_back(current_.begin(), current_.begin() + static_cast<long>(num_buttons_));
      return;
    }
    if (b >= kFirstDelta) {
      if (slot_[b] == -1) return Walk(b + 1);
      const auto [n, lo, hi] = delta_[static_cast<size_t>(b)];
      if (n <= 1) return Walk(b + 1);
      const float step = (hi - lo) / static_cast<float>(n - 1);
      float value = lo;
      for (int i = 0; i < n; ++i, value += step) {
        Set(b, value);
        Walk(b + 1);
      }
      return;
    }
    if (b >= kFirstWeapon && b <= kLastWeapon) {
      Walk(kLastWeapon + 1);
      for (int w = kFirstWeapon; w <= kLastWeapon; ++w) {
        if (slot_[w] == -1) continue;
        Set(w, 1);
        Walk(kLastWeapon + 1);
        Set(w, 0);
      }
      return;
    }
    if (StartsPair(b) && slot_[b] != -1 && slot_[b + 1] != -1) {
      Walk(b + 2);
      Set(b, 1);
      Walk(b + 2);
      Set(b, 0);
      Set(b + 1, 1);
      Walk(b + 2);
      Set(b + 1, 0);
      return;
    }
    if (slot_[b] == -1) return Walk(b + 1);
    if (b == kSpeed && force_speed_) {
      Set(b, 1);
      return Walk(b + 1);
    }
    Walk(b + 1);
    Set(b, 1);
    Walk(b + 1);
    Set(b, 0);
  }

  size_t num_buttons_;
  bool force_speed_;
  Delta delta_;
  std::array<int, ::vizdoom::BUTTON_COUNT> slot_{};
  std::vector<double> current_;
  std::vector<std::vector<double>> result_;
};

inline std::vector<std::vector<double>> BuildActionSet(
    const std::vector<::vizdoom::Button>& buttons, bool force_speed,
    const ActionSetBuilder::Delta& delta) {
  return ActionSetBuilder(buttons, force_speed, delta).Build();
}

}  // namespace vizdoom
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_VIZDOOM_NAMES_H_
