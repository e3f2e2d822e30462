// Blackjack-v1, a port of Gymnasium 1.4.0's gymnasium/envs/toy_text/blackjack.py
// (BlackjackEnv). Cards come from an infinite deck: draw_card is np_random.choice(deck) over
// 13 ranks, i.e. integers(0, 13). reset() also draws the dealer's face-up suit
// (choice of 4) and, for a ten-valued card, its face (choice of J/Q/K) for rendering; we make
// the same draws, so the random streams stay aligned, and keep them for Render.
//
// Options (names and defaults as BlackjackEnv.__init__; note that Gymnasium registers
// Blackjack-v1 with sab=True, natural=False):
//   natural (false)  a winning natural blackjack pays 1.5 (ignored when sab)
//   sab     (false)  Sutton & Barto rules: a natural wins (1.0) unless the dealer has one too
// Observation: Tuple(Discrete(32), Discrete(11), Discrete(2)) as three int64 keys
// player_sum, dealer_card, usable_ace. Action: Discrete(2) (0 stick, 1 hit). No info.
//
// Render: draw_table as BlackjackEnv.render calls it in rgb_array mode (see render.h), 384x376
// pixels at render_fps 4: the dealer's showing card and its value, a face-down card, the
// player's sum and "usable ace". All of it is pixel art (no font). Option assets_dir: the
// directory of Gymnasium's toy-text sprites (set by the Python registration).
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_BLACKJACK_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_BLACKJACK_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/env.h"
#include "core/spec.h"
#include "families/toy_text/render.h"

namespace envfleet::toy_text {

class BlackjackEnv : public Env {
 public:
  static Config DefaultConfig() {
    return {{"natural", false}, {"sab", false}, {"assets_dir", std::string()}};
  }

  static EnvSpec Spec(const Config& config) {
    files::CheckFolderIfGiven("assets_dir", config.Get<std::string>("assets_dir"));
    EnvSpec spec;
    spec.obs = {Discrete("player_sum", 32), Discrete("dealer_card", 11), Discrete("usable_ace", 2)};
    spec.obs_layout = ObsLayout::kTuple;
    spec.action = Discrete("action", 2);
    spec.reward_low = -1.0;
    const bool pays_natural = config.Get<bool>("natural") && !config.Get<bool>("sab");
    spec.reward_high = pays_natural ? 1.5 : 1.0;
    spec.render = PixelArtRender(kScreenWidth, kScreenHeight);
    return spec;
  }

  BlackjackEnv(const Config& config, uint64_t seed)
      : Env(seed),
        natural_(config.Get<bool>("natural")),
        sab_(config.Get<bool>("sab")),
        assets_dir_(config.Get<std::string>("assets_dir")) {}

  void Reset() override {
    dealer_ = Hand();
    player_ = Hand();
    dealer_.Add(DrawCard());  // dealer = draw_hand(np_random)
    dealer_.Add(DrawCard());
    player_.Add(DrawCard());  // player = draw_hand(np_random)
    player_.Add(DrawCard());
    // dealer_top_card_suit = np_random.choice(["C", "D", "H", "S"]), and
    // dealer_top_card_value_str: "A", np_random.choice(["J", "Q", "K"]) or the digit.
    static constexpr char kSuits[4] = {'C', 'D', 'H', 'S'};
    static constexpr char kFaces[3] = {'J', 'Q', 'K'};
    dealer_suit_ = kSuits[rng().ChoiceIndex(4)];
    if (dealer_.first == 1) {
      dealer_face_ = 'A';
    } else if (dealer_.first == 10) {
      dealer_face_ = kFaces[rng().ChoiceIndex(3)];
    } else {
      dealer_face_ = static_cast<char>('0' + dealer_.first);
    }
  }

  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    if (a < 0 || a >= 2) throw std::out_of_range("Blackjack: action must be 0 or 1");
    if (a != 0) {  // hit
      player_.Add(DrawCard());
      if (player_.IsBust()) {
        terminated_ = true;
        reward_ = -1.0;
      } else {
        terminated_ = false;
        reward_ = 0.0;
      }
    } else {  // stick: the dealer plays out the hand
      terminated_ = true;
      while (dealer_.SumHand() < 17) dealer_.Add(DrawCard());
      const int player_score = player_.Score(), dealer_score = dealer_.Score();
      reward_ = static_cast<double>(player_score > dealer_score) -
                static_cast<double>(player_score < dealer_score);  // cmp()
      if (sab_ && player_.IsNatural() && !dealer_.IsNatural()) {
        reward_ = 1.0;
      } else if (!sab_ && natural_ && player_.IsNatural() && reward_ == 1.0) {
        reward_ = 1.5;
      }
    }
  }

  void Write(const OutputSlot& out) const override {
    const bool usable = player_.UsableAce();
    *out.Get<int64_t>(0) = usable ? player_.sum + 10 : player_.sum;
    *out.Get<int64_t>(1) = dealer_.first;
    *out.Get<int64_t>(2) = usable ? 1 : 0;
  }

  // draw_table(surface, *_get_obs(), dealer_card): the felt, "dealer" and the showing card's
  // value in small digits, that card and a face-down one, "player" and the player's sum in big
  // digits centred on a 4-pixel grid, and "usable ace" when there is one.
  void Render(int /*camera_id*/, int width, int height, uint8_t* rgb) override {
    CheckFrameSize("Blackjack", width, height, kScreenWidth, kScreenHeight);
    const auto load = [&](const std::string& name) {
      return LoadAsset(assets_dir_, "blackjack/" + name + ".png");
    };
    if (!sprites_.felt_loaded) {
      Sprites s;
      for (int d = 0; d < 10; ++d) {
        s.small_digits[d] = load("digit_small_" + std::to_string(d));
        s.big_digits[d] = load("digit_big_" + std::to_string(d));
      }
      s.label_dealer = load("label_dealer");
      s.label_player = load("label_player");
      s.label_usable_ace = load("label_usable_ace");
      s.card_back = load("card_back");
      s.felt_loaded = true;
      sprites_ = std::move(s);
    }
    // The showing card, looked up at each reset's first render (48 files, each decoded once
    // per process).
    const std::string card = std::string("card_") + dealer_face_ + dealer_suit_;
    if (card != sprites_.card_name) {
      sprites_.card = load(card);
      sprites_.card_name = card;
    }

    const image::RgbFrame frame{rgb, width, height};
    // blit_digits(number, size, gap, pos): digits left to right, each after the last plus gap.
    const auto blit_digits = [&](int number, const image::Sprite* digits, int gap, int x, int y) {
      for (char c : std::to_string(number)) {
        const image::Image& img = *digits[c - '0'];
        image::Blit(frame, img, x, y);
        x += img.width + gap;
      }
    };
    // centred_x(width) = (SCREEN_SIZE[0] - width) // 2 // ART_PIXEL * ART_PIXEL, floor
    // divisions (>> on a negative int is one in C++20).
    const auto centred_x = [](int w) { return ((kScreenWidth - w) >> 1 >> 2) * 4; };
    image::Fill(frame, {196, 216, 158});  // FELT_COLOR
    // DEALER_LABEL_POS (40, 32), LABEL_DIGIT_GAP 12, SMALL_DIGIT_GAP 4.
    image::Blit(frame, *sprites_.label_dealer, 40, 32);
    blit_digits(dealer_.first, sprites_.small_digits, 4, 40 + sprites_.label_dealer->width + 12,
                32);
    image::Blit(frame, *sprites_.card, 96, 72);           // DEALER_CARD_POS
    image::Blit(frame, *sprites_.card_back, 208, 72);     // HIDDEN_CARD_POS
    image::Blit(frame, *sprites_.label_player, 40, 208);  // PLAYER_LABEL_POS
    const bool usable = player_.UsableAce();
    const int player_sum = usable ? player_.sum + 10 : player_.sum;
    const int num_digits = static_cast<int>(std::to_string(player_sum).size());
    // BIG_DIGIT_GAP 12, PLAYER_SUM_TOP 248.
    const int sum_width = num_digits * sprites_.big_digits[0]->width + (num_digits - 1) * 12;
    blit_digits(player_sum, sprites_.big_digits, 12, centred_x(sum_width), 248);
    if (usable) {  // USABLE_ACE_TOP 328
      image::Blit(frame, *sprites_.label_usable_ace, centred_x(sprites_.label_usable_ace->width),
                  328);
    }
  }

 private:
  static constexpr int kScreenWidth = 384;  // SCREEN_SIZE
  static constexpr int kScreenHeight = 376;

  struct Sprites {
    bool felt_loaded = false;
    image::Sprite small_digits[10], big_digits[10], label_dealer, label_player, label_usable_ace,
        card_back, card;
    std::string card_name;
  };

  // What the reference's helpers read from a hand (a list of card values).
  struct Hand {
    int sum = 0;       // sum(hand)
    int cards = 0;     // len(hand)
    bool ace = false;  // 1 in hand
    int first = 0;     // hand[0]

    void Add(int card) {
      if (cards == 0) first = card;
      sum += card;
      ++cards;
      ace = ace || card == 1;
    }
    bool UsableAce() const { return ace && sum + 10 <= 21; }
    int SumHand() const { return UsableAce() ? sum + 10 : sum; }
    bool IsBust() const { return SumHand() > 21; }
    int Score() const { return IsBust() ? 0 : SumHand(); }
    // sorted(hand) == [1, 10]: two cards, an ace and a ten-valued card.
    bool IsNatural() const { return cards == 2 && ace && sum == 11; }
  };

  // draw_card: int(np_random.choice(deck)), deck = [1, 2, ..., 9, 10, 10, 10, 10].
  int DrawCard() {
    static constexpr int kDeck[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10};
    return kDeck[rng().ChoiceIndex(13)];
  }

  bool natural_;
  bool sab_;
  std::string assets_dir_;
  Hand dealer_;
  Hand player_;
  char dealer_suit_ = 'C';  // dealer_top_card_suit
  char dealer_face_ = 'A';  // dealer_top_card_value_str ("A", "2".."9", "J", "Q", "K")
  Sprites sprites_;
};

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_BLACKJACK_H_
