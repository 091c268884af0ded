#include "tools/scenario/serving_faults.hpp"

#include <fmt/format.h>

#include "tools/scenario/build.hpp"
#include "tools/scenario/faults.hpp"
#include "tools/scenario/scenario.hpp"

namespace clustersim {
namespace {

// The GPUs a GPU, node or NIC target holds (a NIC: its node's GPUs on its plane).
std::vector<std::uint32_t> gpus_of(const Scenario& s, const FaultSpec& f) {
    const std::uint32_t per = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
    const std::uint32_t nics = std::max<std::uint32_t>(1, s.cluster.nics_per_node);
    const std::uint32_t gpus = s.serving.deployment.gpus();
    const auto i = static_cast<std::uint32_t>(f.index);
    std::vector<std::uint32_t> out;
    auto outside = [&](const char* what, std::uint64_t limit) {
        return s.error_at(f.key + ".target",
                          fmt::format("{} {} is not in the deployment (expected 0 to {})", what,
                                      f.index, limit - 1));
    };
    switch (f.target) {
        case FaultTargetKind::Gpu:
            if (f.index >= gpus) throw outside("gpu", gpus);
            out.push_back(i);
            break;
        case FaultTargetKind::Node:
            if (f.index >= (gpus + per - 1) / per) throw outside("node", (gpus + per - 1) / per);
            for (std::uint32_t g = i * per; g < std::min(gpus, i * per + per); ++g)
                out.push_back(g);
            break;
        case FaultTargetKind::Nic: {
            const std::uint64_t limit = std::uint64_t{(gpus + per - 1) / per} * nics;
            if (f.index >= limit) throw outside("nic", limit);
            const std::uint32_t node = i / nics, plane = i % nics;
            for (std::uint32_t g = node * per; g < std::min(gpus, node * per + per); ++g)
                if ((g % per) * nics / per == plane) out.push_back(g);
            break;
        }
        default:
            break;
    }
    return out;
}

}  // namespace

ServingFaults serving_faults(const Scenario& s) {
    ServingFaults out;
    if (s.faults.empty()) return out;
    if (s.faults.size() > 64)
        throw s.error_at("faults", fmt::format("{} faults (expected at most 64 in a serving run)",
                                               s.faults.size()));
    const ServingDeployment& d = s.serving.deployment;
    const bool dis = d.kind == DeploymentKind::Disaggregated;
    // With faults, decode steps run where the deployment puts them, after the prefill GPUs;
    // the step model counts nodes from a step's first GPU, so that must start a node.
    const std::uint32_t per = std::max<std::uint32_t>(1, s.cluster.gpus_per_node);
    if (const std::uint32_t here = d.prefill_per_pod() * d.prefill.ep_size; dis && here % per != 0)
        throw s.error_at("serving.deployment.prefill.ep_size",
                         fmt::format("with faults, the {} prefill GPUs{} must fill whole nodes "
                                     "of {} (expected instances x ep_size{} a multiple of {})",
                                     here, d.pods > 1 ? " of a pod" : "", per,
                                     d.pods > 1 ? " / pods" : "", per));
    // Which instance a GPU is in: in each pod the prefill ones first (disaggregated), then
    // decode.
    auto place = [&](std::uint32_t g, ServingFault& f, bool& prefill) {
        const auto [is_prefill, i] = d.instance_of_gpu(g);
        prefill = is_prefill;
        std::vector<std::uint32_t>& list = prefill ? f.prefill_instances : f.decode_instances;
        if (list.empty() || list.back() != i) list.push_back(i);
    };
    // The fabric's faults, resolved on the whole deployment's fabric as the step runs will:
    // a target that names nothing is a located error before any step runs.
    Scenario fabric_faults = serving_fabric_scenario(s);
    fabric_faults.faults.clear();
    for (std::uint32_t k = 0; k < s.faults.size(); ++k) {
        const FaultSpec& spec = s.faults[k];
        ServingFault f;
        f.at = Time::from_us(spec.at_us);
        if (spec.ends()) f.until = Time::from_us(spec.until_us);
        switch (spec.kind) {
            case FaultKind::LinkFlap:
                throw s.error_at(spec.key + ".kind",
                                 "a flapping link is not built for serving runs: their faults "
                                 "are taken at step boundaries (expected link_down with "
                                 "until_us, or no serving: section)");
            case FaultKind::GpuSlow: {
                bool prefill = false;
                place(gpus_of(s, spec).front(), f, prefill);  // its instance's steps alone
                f.prefill_steps = prefill;
                f.decode_steps = !prefill;
                break;
            }
            case FaultKind::GpuHang:
            case FaultKind::NicDown: {
                bool prefill = false;
                for (const std::uint32_t g : gpus_of(s, spec)) place(g, f, prefill);
                f.effect = spec.kind == FaultKind::GpuHang && spec.ends()
                               ? ServingFaultEffect::Freezes
                               : ServingFaultEffect::Stops;
                if (spec.kind == FaultKind::NicDown) fabric_faults.faults.push_back(spec);
                break;
            }
            case FaultKind::GpuDown:
            case FaultKind::NodeDown: {
                bool prefill = false, mixed = false, first = true, kind = false;
                for (const std::uint32_t g : gpus_of(s, spec)) {
                    place(g, f, prefill);
                    mixed |= !first && prefill != kind;
                    kind = prefill;
                    first = false;
                }
                // Lost from the start and served from copies: the steady state after the loss,
                // on the one instance of its kind (the step runs lose its ranks).
                const bool one = (kind ? d.prefill.instances : d.decode.instances) == 1;
                if (spec.at_us == 0 && !s.workload.rank_loss_fails && one && !mixed) {
                    f.prefill_steps = kind;
                    f.decode_steps = !kind;
                } else {
                    f.effect = ServingFaultEffect::Stops;
                }
                break;
            }
            default:
                // Lost cables are routed around (after a delay); slowed or lossy ones are not.
                f.reacts = spec.kind == FaultKind::LinkDown || spec.kind == FaultKind::SwitchDown ||
                           spec.kind == FaultKind::PlaneDown;
                fabric_faults.faults.push_back(spec);
                break;
        }
        out.faults.push_back(std::move(f));
    }
    if (!fabric_faults.faults.empty()) {
        for (FaultSpec& f : fabric_faults.faults) {
            f.at_us = 0;
            f.until_us = -1;
        }
        const SimulatedFabric fabric = build_simulated_fabric(fabric_faults, d.gpus());
        (void)build_fault_plan(fabric_faults, fabric, nullptr);
    }
    return out;
}

namespace {
std::string target_text(const FaultSpec& f) {
    switch (f.target) {
        case FaultTargetKind::Link:
            return fmt::format("link {}-{} (index {})", f.a, f.b, f.cable);
        case FaultTargetKind::Tier:
            return fmt::format("{} cables of tier {}", f.count, f.tier);
        default:
            return fmt::format("{} {}", kFaultTargetNames[static_cast<std::size_t>(f.target)],
                               f.index);
    }
}
}  // namespace

Json serving_faults_json(const Scenario& s, const ServingFaults& faults,
                         const ServingOutcome& out) {
    Json list = Json::array();
    for (std::size_t k = 0; k < faults.faults.size(); ++k) {
        const FaultSpec& spec = s.faults[k];
        const ServingFault& f = faults.faults[k];
        const ServingFaultTally& t = out.faults[k];
        Json instances = Json::array();
        for (const std::uint32_t i : f.prefill_instances)
            instances.push_back(fmt::format("prefill {}", i));
        for (const std::uint32_t i : f.decode_instances)
            instances.push_back(fmt::format("decode {}", i));
        Json steps_of = Json::array();
        const bool changes_steps = f.effect == ServingFaultEffect::Steps;
        if (changes_steps && f.prefill_steps) steps_of.push_back("prefill");
        if (changes_steps && f.decode_steps) steps_of.push_back("decode");
        list.push_back(Json{
            {"key", spec.key},
            {"kind", std::string(kFaultKindNames[static_cast<std::size_t>(spec.kind)])},
            {"target", target_text(spec)},
            {"at_us", spec.at_us},
            {"until_us", spec.ends() ? Json(spec.until_us) : Json(nullptr)},
            {"effect", std::string(kServingFaultEffectNames[static_cast<std::size_t>(f.effect)])},
            {"instances", std::move(instances)},
            {"steps_of", std::move(steps_of)},
            {"steps", t.steps},
            {"transient_steps", t.transient_steps},
            {"failed_steps", t.failed_steps},
            {"instances_stopped", t.instances_stopped},
            {"requests_failed", t.requests_failed}});
    }
    return list;
}

}  // namespace clustersim
