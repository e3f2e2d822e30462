// Blackjack-v1, a port of Gymnasium 1.4.0's gymnasium/envs/toy_text/blackjack.py
// (BlackjackEnv). Cards come from an infinite deck: draw_card is np_random.choice(deck) over
// 13 ranks, i.e. integers(0, 13). reset() also draws the dealer's face-up suit
// (choice of 4) and, for a ten-valued card, its face (choice of J/Q/K) for rendering; we make
// the same draws, and discard them, so the random streams stay aligned.
//
// Options (names and defaults as BlackjackEnv.__init__; note that Gymnasium registers
// Blackjack-v1 with sab=True, natural=False):
//   natural (false)  a winning natural blackjack pays 1.5 (ignored when sab)
//   sab     (false)  Sutton & Barto rules: a natural wins (1.0) unless the dealer has one too
// Observation: Tuple(Discrete(32), Discrete(11), Discrete(2)) as three int64 keys
// player_sum, dealer_card, usable_ace. Action: Discrete(2) (0 stick, 1 hit). No info.
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_BLACKJACK_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_BLACKJACK_H_

#include <cstdint>
#include <stdexcept>

#include "core/env.h"
#include "core/spec.h"

namespace envfleet::toy_text {

class BlackjackEnv : public Env {
 public:
  static Config DefaultConfig() { return {{"natural", false}, {"sab", false}}; }

  static EnvSpec Spec(const Config& config) {
    EnvSpec spec;
    spec.obs = {Discrete("player_sum", 32), Discrete("dealer_card", 11), Discrete("usable_ace", 2)};
    spec.obs_layout = ObsLayout::kTuple;
    spec.action = Discrete("action", 2);
    spec.reward_low = -1.0;
    const bool pays_natural = config.Get<bool>("natural") && !config.Get<bool>("sab");
    spec.reward_high = pays_natural ? 1.5 : 1.0;
    return spec;
  }

  BlackjackEnv(const Config& config, uint64_t seed)
      : Env(seed), natural_(config.Get<bool>("natural")), sab_(config.Get<bool>("sab")) {}

  void Reset() override {
    dealer_ = Hand();
    player_ = Hand();
    dealer_.Add(DrawCard());  // dealer = draw_hand(np_random)
    dealer_.Add(DrawCard());
    player_.Add(DrawCard());  // player = draw_hand(np_random)
    player_.Add(DrawCard());
    rng().ChoiceIndex(4);  // dealer_top_card_suit = np_random.choice(suits)
    if (dealer_.first == 10) rng().ChoiceIndex(3);  // np_random.choice(["J", "Q", "K"])
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

 private:
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
  Hand dealer_;
  Hand player_;
};

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_BLACKJACK_H_
