#pragma once
// A minimal observer list: models emit (message finished, packet dropped, ...) and statistics
// subscribe, so models never know who records what. Not for per-packet use in steady state.
#include <functional>
#include <utility>
#include <vector>

namespace clustersim {

template <class... Args>
class Signal {
  public:
    using Slot = std::function<void(Args...)>;
    void connect(Slot slot) { slots_.push_back(std::move(slot)); }
    bool connected() const { return !slots_.empty(); }
    void emit(Args... args) const {
        for (const auto& s : slots_) s(args...);
    }

  private:
    std::vector<Slot> slots_;
};

}  // namespace clustersim
