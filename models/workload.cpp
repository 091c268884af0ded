#include "models/workload.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace clustersim {

void Workload::start_after(std::uint32_t message, const std::vector<std::uint32_t>& after,
                           Time delay) {
    if (after.empty()) return;
    TriggerSpec t;
    t.kind = TriggerKind::Barrier;
    t.count = static_cast<std::uint32_t>(after.size());
    t.delay = delay;
    t.targets.push_back(message);
    const std::uint32_t id = add_trigger(t);
    for (std::uint32_t m : after) {
        if (messages[m].recv_done_trigger != kNone)
            throw std::logic_error("message already gates another barrier");
        messages[m].recv_done_trigger = id;
    }
    messages[message].start = Time::never();
    messages[message].start_trigger = id;
}

std::string Workload::validate(std::uint32_t endpoints) const {
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const auto& m = messages[i];
        if (m.src >= endpoints || m.dst >= endpoints)
            return fmt::format("message {} goes {}->{} but the topology has {} endpoints", m.label,
                               m.src, m.dst, endpoints);
        if (m.start == Time::never() && m.start_trigger == kNone)
            return fmt::format("message {} has neither a start time nor a trigger", m.label);
        for (std::uint32_t t : {m.start_trigger, m.send_done_trigger, m.recv_done_trigger})
            if (t != kNone && t >= triggers.size())
                return fmt::format("message {} names an undefined trigger", m.label);
    }
    for (const auto& t : triggers) {
        for (std::uint32_t m : t.targets)
            if (m >= messages.size()) return fmt::format("trigger {} targets no message", t.label);
        if (t.kind == TriggerKind::Barrier && t.count == 0)
            return fmt::format("barrier trigger {} needs a count of at least 1", t.label);
    }
    return {};
}

}  // namespace clustersim
