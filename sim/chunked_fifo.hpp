#pragma once
// A FIFO whose storage is borrowed from a shared pool in fixed chunks and given back as soon as
// the chunks empty: the queues of a large fabric together hold about what is queued at the
// moment, not the sum of each queue's own peak (rings per port, each grown to its peak and never
// shrunk, held 85 MB more at the 2,048-GPU step: docs/performance.md). Freed chunks are
// taken again last-in first, so the few a busy partition cycles through stay in its caches.
// Each partition of a windowed run has its own pool; a queue always uses its port's.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace clustersim {

template <class T>
class ChunkedFifo {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    static constexpr std::size_t kChunkBytes = 512;  // eight cache lines

  public:
    struct alignas(64) Chunk {
        static constexpr std::uint32_t kItems =
            static_cast<std::uint32_t>((kChunkBytes - 2 * sizeof(void*)) / sizeof(T));
        std::array<T, kItems> items;
        Chunk* next;  // toward the back; the free list's link while pooled
        Chunk* prev;  // toward the front (the item before the back may be in it)
    };
    static_assert(sizeof(Chunk) == kChunkBytes && Chunk::kItems < 65536);

    /// Chunks for the queues of one partition. Grows (during warm-up) in blocks that never
    /// move; never shrinks.
    class Pool {
      public:
        Pool() = default;
        Pool(const Pool&) = delete;
        Pool& operator=(const Pool&) = delete;
        Pool(Pool&&) = default;
        Pool& operator=(Pool&&) = default;

        Chunk* take() {
            if (!free_) [[unlikely]]
                add_block();
            Chunk* c = free_;
            free_ = c->next;
            return c;
        }
        void give(Chunk* c) {
            c->next = free_;
            free_ = c;
        }
        /// Chunks ever made (the pool's high-water mark), and their bytes.
        std::size_t chunks() const { return blocks_.size() * kBlock; }
        std::size_t bytes() const { return chunks() * sizeof(Chunk); }

      private:
        static constexpr std::size_t kBlock = 64;  // 32 KiB
        void add_block() {
            blocks_.push_back(std::make_unique<Chunk[]>(kBlock));
            Chunk* block = blocks_.back().get();
            for (std::size_t i = kBlock; i-- > 0;) give(&block[i]);
        }
        Chunk* free_ = nullptr;
        std::vector<std::unique_ptr<Chunk[]>> blocks_;
    };

    ChunkedFifo() = default;
    // A queue holds chunks of a pool it does not own: it is moved, never copied, and must be
    // emptied (into its pool) before it goes.
    ChunkedFifo(const ChunkedFifo&) = delete;
    ChunkedFifo& operator=(const ChunkedFifo&) = delete;
    ChunkedFifo(ChunkedFifo&& o) noexcept { *this = std::move(o); }
    ChunkedFifo& operator=(ChunkedFifo&& o) noexcept {
        head_ = std::exchange(o.head_, nullptr);
        tail_ = std::exchange(o.tail_, nullptr);
        head_at_ = std::exchange(o.head_at_, 0);
        tail_at_ = std::exchange(o.tail_at_, 0);
        count_ = std::exchange(o.count_, 0);
        return *this;
    }

    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    const T& front() const { return head_->items[head_at_]; }
    T& front() { return head_->items[head_at_]; }
    T& back() { return tail_->items[tail_at_ - 1]; }
    /// The item queued just before the back one (size() >= 2).
    T& before_back() {
        return tail_at_ >= 2 ? tail_->items[tail_at_ - 2] : tail_->prev->items[Chunk::kItems - 1];
    }

    void push_back(const T& v, Pool& pool) {
        if (tail_at_ == Chunk::kItems || !tail_) [[unlikely]]
            extend(pool);
        tail_->items[tail_at_++] = v;
        ++count_;
    }
    T pop_front(Pool& pool) {
        const T v = head_->items[head_at_];
        --count_;
        if (++head_at_ == Chunk::kItems || count_ == 0) [[unlikely]]
            retire(pool);
        return v;
    }

  private:
    void extend(Pool& pool) {
        Chunk* c = pool.take();
        c->next = nullptr;
        c->prev = tail_;
        if (tail_)
            tail_->next = c;
        else
            head_ = c;
        tail_ = c;
        tail_at_ = 0;
    }
    // The head chunk is used up (or the queue is empty): back to the pool.
    void retire(Pool& pool) {
        Chunk* c = head_;
        if (count_ == 0) {
            head_ = tail_ = nullptr;
            tail_at_ = 0;
        } else {
            head_ = c->next;
        }
        head_at_ = 0;
        pool.give(c);
    }

    Chunk* head_ = nullptr;
    Chunk* tail_ = nullptr;
    std::uint16_t head_at_ = 0;  // index of the front item in head_
    std::uint16_t tail_at_ = 0;  // items written into tail_
    std::uint32_t count_ = 0;
};

static_assert(sizeof(ChunkedFifo<std::uint64_t>) == 24);  // as the ring it replaced in ports

}  // namespace clustersim
