// cpp/core/output_blocks.h: the layout of a block, and the arena's acquire / recycle / lease
// cycle (a block leased to Python is never handed out again until its lease ends, and a lease
// keeps the arena alive after its pool let go of it).
// GCC 12 sees `if (--refs_ == 0) delete this;` inlined into a test that goes on using the
// arena and warns of a use after free that cannot happen (refs_ > 1 there).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif

#include "core/output_blocks.h"

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "check.h"
#include "core/spec.h"

namespace envfleet {
namespace {

size_t RoundUp64(size_t n) { return (n + 63) / 64 * 64; }

std::vector<ArraySpec> SomeKeys() {
  return {Box("flag", DType::kBool, {}, {}, {}), Box("x", DType::kFloat64, {3}, {}, {}),
          Box("img", DType::kUint8, {7, 5}, {}, {}), Box("id", DType::kInt32, {}, {}, {})};
}

TEST(BlockLayout, RowsAreSpecBytesAndArraysStartOnCacheLines) {
  for (size_t batch : {1, 3, 64, 100}) {
    const BlockLayout layout(SomeKeys(), batch);
    REQUIRE_EQ(layout.keys.size(), 4u);
    REQUIRE_EQ(layout.row_bytes.size(), 4u);
    REQUIRE_EQ(layout.offsets.size(), 4u);
    CHECK_EQ(layout.batch_size, batch);
    CHECK_EQ(layout.row_bytes[0], 1u);
    CHECK_EQ(layout.row_bytes[1], 24u);
    CHECK_EQ(layout.row_bytes[2], 35u);
    CHECK_EQ(layout.row_bytes[3], 4u);
    size_t end = 0;
    for (size_t k = 0; k < 4; ++k) {
      CHECK_EQ(layout.offsets[k], RoundUp64(end));  // packed, each array on a new cache line
      end = layout.offsets[k] + layout.row_bytes[k] * batch;
    }
    CHECK_EQ(layout.total_bytes, RoundUp64(end));
  }
}

TEST(BlockLayout, NoKeysMeansAnEmptyBlock) {
  const BlockLayout layout({}, 8);
  CHECK_EQ(layout.total_bytes, 0u);
  CHECK(layout.offsets.empty());
}

TEST(BlockArena, AcquireAllocatesOnlyWhenNoBlockIsFree) {
  auto* arena = new BlockArena(BlockLayout(SomeKeys(), 3));
  CHECK_EQ(arena->num_blocks(), 0u);
  Block* a = arena->Acquire();
  Block* b = arena->Acquire();
  CHECK(a != b);
  CHECK_EQ(arena->num_blocks(), 2u);
  arena->Recycle(a);
  CHECK(arena->Acquire() == a);  // reused, not allocated
  CHECK_EQ(arena->num_blocks(), 2u);
  Block* c = arena->Acquire();
  CHECK(c != a && c != b);
  CHECK_EQ(arena->num_blocks(), 3u);
  arena->Release();
}

TEST(BlockArena, BlocksAreZeroedAlignedAndTheirKeyBasesPointIntoThem) {
  auto* arena = new BlockArena(BlockLayout(SomeKeys(), 5));
  const BlockLayout& layout = arena->layout();
  std::set<const char*> memories;
  for (int i = 0; i < 3; ++i) {
    Block* block = arena->Acquire();
    CHECK(block->arena == arena);
    REQUIRE(block->memory != nullptr);
    CHECK_EQ(reinterpret_cast<uintptr_t>(block->memory) % 64, 0u);
    REQUIRE_EQ(block->key_bases.size(), layout.keys.size());
    for (size_t k = 0; k < layout.keys.size(); ++k) {
      CHECK(block->key_bases[k] == block->memory + layout.offsets[k]);
    }
    size_t nonzero = 0;
    for (size_t byte = 0; byte < layout.total_bytes; ++byte) nonzero += block->memory[byte] != 0;
    CHECK_EQ(nonzero, 0u);
    memories.insert(block->memory);
    std::memset(block->memory, 0xAB, layout.total_bytes);  // every byte is writable
  }
  CHECK_EQ(memories.size(), 3u);
  arena->Release();
}

TEST(BlockArena, ALeasedBlockIsNotHandedOutAgainUntilItsLeaseEnds) {
  auto* arena = new BlockArena(BlockLayout(SomeKeys(), 2));
  Block* leased = arena->Acquire();
  arena->AddRef();  // as PyPool does when it hands the block to Python
  std::set<Block*> handed_out;
  for (int i = 0; i < 5; ++i) {
    Block* block = arena->Acquire();
    CHECK(block != leased);
    handed_out.insert(block);
    arena->Recycle(block);
  }
  CHECK_EQ(handed_out.size(), 1u);  // the one free block, recycled each time
  arena->EndLease(leased);
  Block* first = arena->Acquire();
  CHECK(first == leased);  // the free list is LIFO: the block whose lease just ended
  arena->Release();
}

TEST(BlockArena, ALeaseKeepsTheArenaAliveAfterThePoolReleasesIt) {
  // Arrays may outlive their pool: the pool's reference goes first, the last lease frees the
  // arena. (Run under ENVFLEET_SANITIZE=address to catch a premature free.)
  auto* arena = new BlockArena(BlockLayout(SomeKeys(), 4));
  Block* a = arena->Acquire();
  Block* b = arena->Acquire();
  arena->AddRef();
  arena->AddRef();
  arena->Release();  // the pool
  std::memset(a->memory, 1, arena->layout().total_bytes);
  arena->EndLease(a);
  CHECK_EQ(b->arena->num_blocks(), 2u);
  std::memset(b->memory, 2, b->arena->layout().total_bytes);
  CHECK_EQ(b->key_bases[0][0], 2);
  b->arena->EndLease(b);  // the last reference: frees everything
}

TEST(Block, PrepareClearsTheStateOfThePreviousUse) {
  auto* arena = new BlockArena(BlockLayout(SomeKeys(), 4));
  Block* block = arena->Acquire();
  block->written.store(4);
  block->failed.store(true);
  block->failed_env = 3;
  block->error = "boom";
  block->Prepare(1);
  CHECK_EQ(block->first_row, 1);
  CHECK_EQ(block->written.load(), 1);  // rows before first_row count as written
  CHECK(!block->failed.load());
  CHECK_EQ(block->failed_env, -1);
  CHECK(block->error.empty());
  CHECK(!block->ready.TryWait());
  arena->Release();
}

}  // namespace
}  // namespace envfleet
