#pragma once
// A kind's own parameters (a routing policy's, a congestion control's) held by value in a few
// bytes inline: the row that parses them stores its own struct, the code on the packet path
// reads it back with no indirection and no allocation. The struct must be trivially copyable.
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace clustersim {

template <std::size_t Bytes>
class InlineKnobs {
  public:
    template <class T>
    void set(const T& value) {
        static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= Bytes,
                      "knobs must be trivially copyable and fit the inline storage");
        std::memcpy(bytes_.data(), &value, sizeof(T));
    }
    template <class T>
    T get() const {
        static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= Bytes);
        T value{};
        std::memcpy(&value, bytes_.data(), sizeof(T));
        return value;
    }

  private:
    alignas(8) std::array<std::byte, Bytes> bytes_{};
};

}  // namespace clustersim
