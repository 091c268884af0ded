#include "models/congestion_control.hpp"

#include <array>

namespace clustersim {
namespace {
constexpr std::array kControls = {
    CongestionControlInfo{"none", "senders pace at line rate; only flow control holds them back"},
};
}  // namespace

std::span<const CongestionControlInfo> congestion_controls() {
    return kControls;
}

}  // namespace clustersim
