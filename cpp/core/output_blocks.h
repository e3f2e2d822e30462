// Output blocks: where environments write their results, and what NumPy arrays view.
//
// A block holds batch_size rows of every output key (reward, terminated, truncated, env_id,
// elapsed_step, then the env's obs and info keys). Workers claim rows with one atomic
// fetch_add on a global sequence number: row = seq % batch_size of logical block
// seq / batch_size. A small ring maps logical blocks to physical ones. Physical blocks come
// from a free list: recv() hands a block to Python, Python's arrays keep it leased, and the
// lease ends in the capsule destructor when the last array is freed. A block is therefore
// never overwritten while a user holds an array that views it, and in steady state no block
// is allocated. The free list has a lock of its own: leases end under the GIL, but the pool's
// plain-C callers (env.xla()'s handlers, cpp/bind/pool_api.h) take and return blocks without
// it, on XLA's threads, while Python threads may be freeing arrays of the same pool.
#ifndef ENVFLEET_CORE_OUTPUT_BLOCKS_H_
#define ENVFLEET_CORE_OUTPUT_BLOCKS_H_

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/semaphore.h"
#include "core/spec.h"

namespace envfleet {

struct BlockLayout {
  std::vector<ArraySpec> keys;
  std::vector<size_t> row_bytes;
  std::vector<size_t> offsets;  // byte offset of each key's array inside a block
  size_t batch_size = 0;
  size_t total_bytes = 0;

  BlockLayout(std::vector<ArraySpec> all_keys, size_t batch) : keys(std::move(all_keys)) {
    batch_size = batch;
    for (const ArraySpec& key : keys) {
      total_bytes = (total_bytes + 63) & ~size_t{63};  // each array starts on a cache line
      offsets.push_back(total_bytes);
      row_bytes.push_back(key.NumBytes());
      total_bytes += key.NumBytes() * batch;
    }
    total_bytes = (total_bytes + 63) & ~size_t{63};
  }
};

class BlockArena;

struct Block {
  BlockArena* arena = nullptr;
  char* memory = nullptr;
  std::vector<char*> key_bases;
  // Rows written so far; the writer that completes the block posts `ready`.
  std::atomic<int64_t> written{0};
  Semaphore ready{0};
  // First row that holds a result: > 0 only for a block sealed early by a partial step/reset.
  int64_t first_row = 0;
  // The first exception thrown by an env while producing this block.
  std::atomic<bool> failed{false};
  int32_t failed_env = -1;
  std::string error;

  void Prepare(int64_t first) {
    first_row = first;
    written.store(first, std::memory_order_relaxed);
    failed.store(false, std::memory_order_relaxed);
    failed_env = -1;
    error.clear();
  }
};

// Owns every block of one pool. Reference-counted by hand (the pool holds one reference and
// every leased block one more) so that arrays may outlive the pool that made them.
class BlockArena {
 public:
  explicit BlockArena(BlockLayout layout) : layout_(std::move(layout)) {}
  ~BlockArena() {
    for (auto& block : blocks_) std::free(block->memory);
  }

  const BlockLayout& layout() const { return layout_; }

  // The pool's caller: the Python thread, or a plain-C caller holding the pool's lock.
  Block* Acquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) Grow();
    Block* block = free_.back();
    free_.pop_back();
    return block;
  }
  // A block whose results were dropped, or never handed out.
  void Recycle(Block* block) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(block);
  }

  // A lease keeps the arena alive; ending the last lease of a closed pool frees everything.
  void AddRef() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // Called from the NumPy capsule destructor (GIL held) when the last array is freed.
  void EndLease(Block* block) {
    Recycle(block);
    Release();
  }

  size_t num_blocks() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return blocks_.size();
  }

 private:
  // mutex_ held.
  void Grow() {
    auto block = std::make_unique<Block>();
    block->arena = this;
    block->memory = static_cast<char*>(std::aligned_alloc(64, layout_.total_bytes));
    if (block->memory == nullptr) throw std::bad_alloc();
    std::memset(block->memory, 0, layout_.total_bytes);  // touch every page once, up front
    for (size_t offset : layout_.offsets) block->key_bases.push_back(block->memory + offset);
    free_.push_back(block.get());
    blocks_.push_back(std::move(block));
  }

  BlockLayout layout_;
  mutable std::mutex mutex_;  // guards blocks_ and free_
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<Block*> free_;
  std::atomic<int64_t> refs_{1};
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_OUTPUT_BLOCKS_H_
