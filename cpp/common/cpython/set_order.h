// The order in which CPython iterates a set, for references whose results depend on it.
// minigrid's WFC levels (cpp/families/minigrid/wfc_level.h) pick their start and goal by index
// into a list of graph nodes that networkx lists in the iteration order of a set of (row, col)
// tuples whenever the component kept is under half the graph (FilterAtlas.__iter__).
//
// Ports of CPython 3.x's (3.8 onwards: the xxHash-based tuple hash; the set table of 3.7 on)
//   Objects/tupleobject.c   tuplehash
//   Objects/setobject.c     set_add_entry, set_table_resize, set_insert_clean, set iteration
// for sets that only ever grow (no discard, hence no dummy entries), filled one element at a
// time (set.add, set(iterable) of a generator, {x}). Iteration is in table-slot order, and the
// table's layout depends on the order of insertion and on each resize, which is why both are
// replayed here rather than the contents alone. tests/core/test_cpython_set_order.py checks
// this against the running interpreter's own sets.
#ifndef ENVFLEET_COMMON_CPYTHON_SET_ORDER_H_
#define ENVFLEET_COMMON_CPYTHON_SET_ORDER_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace envfleet::cpython {

// hash((a, b)) of a tuple of two ints in [0, 2**61 - 1) (whose hash is the int itself): the
// xxHash-style tuplehash of CPython 3.8 and later, on 64-bit builds.
inline uint64_t PairHash(uint64_t a, uint64_t b) {
  constexpr uint64_t kPrime1 = 11400714785074694791ull;  // _PyHASH_XXPRIME_1
  constexpr uint64_t kPrime2 = 14029467366897019727ull;  // _PyHASH_XXPRIME_2
  constexpr uint64_t kPrime5 = 2870177450012600261ull;   // _PyHASH_XXPRIME_5
  uint64_t acc = kPrime5;
  for (const uint64_t lane : {a, b}) {
    acc += lane * kPrime2;
    acc = (acc << 31) | (acc >> 33);  // _PyHASH_XXROTATE
    acc *= kPrime1;
  }
  acc += 2 ^ (kPrime5 ^ 3527539ull);  // the length, "mangled to keep hash(()) historical"
  return acc == UINT64_MAX ? 1546275796ull : acc;  // -1 is reserved for errors
}

// A set of keys (the caller's ids: equal ids are equal elements) with their hashes, laid out
// as CPython lays out a set that receives the same adds in the same order. Sized once for at
// most `max_items` elements; Clear and Add then allocate nothing.
class Set {
 public:
  static constexpr int32_t kEmpty = -1;

  explicit Set(size_t max_items) {
    // The largest table max_items elements can grow: each resize asks for more than 4 * used.
    size_t capacity = kMinSize;
    while (capacity <= 4 * max_items) capacity <<= 1;
    keys_.assign(capacity, kEmpty);
    hashes_.assign(capacity, 0);
    old_keys_.assign(capacity, kEmpty);
    old_hashes_.assign(capacity, 0);
    Clear();
  }

  // set() (or set.clear()): an empty set with its small table of PySet_MINSIZE slots.
  void Clear() {
    mask_ = kMinSize - 1;
    fill_ = used_ = 0;
    for (size_t i = 0; i < kMinSize; ++i) keys_[i] = kEmpty;
  }

  // set.add(key): set_add_entry. Probes LINEAR_PROBES + 1 neighbouring slots where the table
  // has room for them, then jumps by the perturbed recurrence; grows the table once it is
  // 3/5 full to the smallest power of two above 4 * used.
  void Add(int32_t key, uint64_t hash) {
    const size_t mask = mask_;
    size_t i = hash & mask;
    uint64_t perturb = hash;
    while (true) {
      size_t probes = i + kLinearProbes <= mask ? kLinearProbes : 0;
      for (size_t slot = i;; ++slot) {
        if (keys_[slot] == kEmpty) {
          keys_[slot] = key;
          hashes_[slot] = hash;
          ++fill_;
          ++used_;
          if (fill_ * 5 >= mask * 3) Resize(used_ > 50000 ? used_ * 2 : used_ * 4);
          return;
        }
        if (hashes_[slot] == hash && keys_[slot] == key) return;  // already there
        if (probes-- == 0) break;
      }
      perturb >>= kPerturbShift;
      i = (i * 5 + 1 + perturb) & mask;
    }
  }

  size_t size() const { return used_; }

  // The elements in iteration order (for x in the_set).
  template <typename Visit>
  void ForEach(const Visit& visit) const {
    for (size_t slot = 0; slot <= mask_; ++slot) {
      if (keys_[slot] != kEmpty) visit(keys_[slot]);
    }
  }

 private:
  static constexpr size_t kMinSize = 8;       // PySet_MINSIZE
  static constexpr size_t kLinearProbes = 9;  // LINEAR_PROBES
  static constexpr int kPerturbShift = 5;     // PERTURB_SHIFT

  // set_table_resize: a fresh table of the smallest power of two above min_used, filled by
  // set_insert_clean from the old table's slots in order.
  void Resize(size_t min_used) {
    size_t size = kMinSize;
    while (size <= min_used) size <<= 1;
    if (size > keys_.size()) throw std::logic_error("cpython::Set: more items than sized for");
    const size_t old_size = mask_ + 1;
    for (size_t slot = 0; slot < old_size; ++slot) {
      old_keys_[slot] = keys_[slot];
      old_hashes_[slot] = hashes_[slot];
    }
    mask_ = size - 1;
    for (size_t slot = 0; slot < size; ++slot) keys_[slot] = kEmpty;
    for (size_t slot = 0; slot < old_size; ++slot) {
      if (old_keys_[slot] != kEmpty) InsertClean(old_keys_[slot], old_hashes_[slot]);
    }
  }

  // set_insert_clean: the first empty slot along the probe sequence (no equality tests).
  void InsertClean(int32_t key, uint64_t hash) {
    size_t i = hash & mask_;
    uint64_t perturb = hash;
    while (true) {
      const size_t probes = i + kLinearProbes <= mask_ ? kLinearProbes : 0;
      for (size_t slot = i; slot <= i + probes; ++slot) {
        if (keys_[slot] == kEmpty) {
          keys_[slot] = key;
          hashes_[slot] = hash;
          return;
        }
      }
      perturb >>= kPerturbShift;
      i = (i * 5 + 1 + perturb) & mask_;
    }
  }

  std::vector<int32_t> keys_;
  std::vector<uint64_t> hashes_;
  std::vector<int32_t> old_keys_;  // the table being resized
  std::vector<uint64_t> old_hashes_;
  size_t mask_ = kMinSize - 1;
  size_t fill_ = 0;
  size_t used_ = 0;
};

}  // namespace envfleet::cpython

#endif  // ENVFLEET_COMMON_CPYTHON_SET_ORDER_H_
