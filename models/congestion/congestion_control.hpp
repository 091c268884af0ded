#pragma once
// Congestion controls a sending NIC can run: one table entry each (name, help). Today only
// `none` (senders pace at line rate, held back only by credits or pauses); DCQCN, HPCC and a
// delay-based scheme join this table with their rate or window state in the transport.
#include <span>
#include <string_view>

namespace clustersim {

struct CongestionControlInfo {
    std::string_view name;
    std::string_view help;
};

std::span<const CongestionControlInfo> congestion_controls();

}  // namespace clustersim
