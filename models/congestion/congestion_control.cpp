#include "models/congestion/congestion_control.hpp"

#include <array>

namespace clustersim {
namespace {
constexpr std::array kControls = {
    CongestionControlInfo{"none", "senders pace at line rate; only flow control holds them back"},
    CongestionControlInfo{"dcqcn",
                          "RoCE's rate control: ECN marks at switch queues, CNPs from the "
                          "receiver, rate cut by alpha / 2 and timer/byte-counter recovery "
                          "(Zhu et al., SIGCOMM 2015; models/dcqcn.hpp)"},
    CongestionControlInfo{"hpcc",
                          "window from in-band telemetry: per-hop queue and tx rate in every "
                          "ACK, target utilisation eta (Li et al., SIGCOMM 2019; models/hpcc.hpp)"},
    CongestionControlInfo{"swift",
                          "delay-based window: round trips held near a target delay (Kumar et "
                          "al., SIGCOMM 2020; models/swift.hpp)"},
};
}  // namespace

std::span<const CongestionControlInfo> congestion_controls() {
    return kControls;
}

}  // namespace clustersim
