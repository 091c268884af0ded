#include <catch2/catch.hpp>

#include <algorithm>

#include "support.hpp"
#include "tools/scenario/build.hpp"
#include "tools/scenario/estimate.hpp"
#include "traffic/moe_step_size.hpp"

using namespace clustersim;
using namespace clustersim::test;

// The size a MoE step is refused by comes from its formula, before gating draws a token: the
// formula must bound what StepBuilder then builds, and stay close enough (2x) that the memory
// estimate it feeds is a useful one.

namespace {

struct Built {
    std::uint64_t messages = 0, dependencies = 0, computes = 0, joins = 0, packets = 0, largest = 0;
};

Built count(const Workload& w, std::uint64_t mtu) {
    Built b;
    b.messages = w.messages.size();
    b.dependencies = w.dependencies.size();
    b.computes = w.computes.size();
    b.joins = w.joins.size();
    for (const auto& m : w.messages) {
        b.packets += (m.bytes + mtu - 1) / mtu;
        b.largest = std::max(b.largest, m.bytes);
    }
    return b;
}

void check_formula(const std::string& scenario, const std::vector<Override>& sets) {
    const Scenario s = load_scenario(source_path(scenario), sets);
    const std::uint32_t gpus = s.workload.ep_size * s.workload.ep_groups;
    const MoeRun run = build_moe(s, gpus);
    const std::uint64_t mtu = s.network.mtu_bytes;
    const Built b = count(run.workload, mtu);
    const MoeStepSize f = moe_step_size(moe_step_shape(s), mtu);
    INFO(scenario << " messages " << b.messages << " <= " << f.workload.messages << ", packets "
                  << b.packets << " <= " << f.packets << ", dependencies " << b.dependencies
                  << " <= " << f.workload.dependencies << ", joins " << b.joins
                  << " <= " << f.workload.joins);
    CHECK(b.messages <= f.workload.messages);
    CHECK(b.dependencies <= f.workload.dependencies);
    CHECK(b.computes <= f.workload.computes);
    CHECK(b.joins <= f.workload.joins);
    CHECK(b.packets <= f.packets);
    CHECK(b.largest <= f.workload.message_bytes);
    // Close: what dominates memory (messages in low-latency mode, packets in normal mode)
    // within 2x of the formula.
    if (s.workload.normal_mode)
        CHECK(f.packets <= 2 * b.packets);
    else
        CHECK(f.workload.messages <= 2 * b.messages);
    CHECK(f.workload.dependencies <= 2 * b.dependencies + 16 * gpus * f.all_to_alls);
}

}  // namespace

TEST_CASE("a MoE step's size formula bounds what StepBuilder builds, within 2x",
          "[moe][estimate]") {
    const std::string decode = "scenarios/deepseek-v3-decode.yaml";
    SECTION("low-latency decode as shipped") {
        check_formula(decode, {});
    }
    SECTION("three GPUs: a token's experts share GPUs, each still its own write") {
        check_formula(decode, {{"workload.ep_size", "3"},
                               {"topology.endpoints", "8"},
                               {"workload.tokens_per_gpu", "16"}});
    }
    SECTION("remote shared experts, three micro-batches, two groups") {
        check_formula(decode, {{"workload.shared_expert_remote", "true"},
                               {"workload.micro_batches", "3"},
                               {"workload.ep_size", "72"},
                               {"workload.ep_groups", "2"},
                               {"workload.tokens_per_gpu", "32"}});
    }
    SECTION("normal-mode prefill, its SMs held") {
        check_formula("scenarios/moe/deepseek-v3-prefill.yaml",
                      {{"workload.tokens_per_gpu", "256"}, {"workload.comm_sms", "20"}});
    }
    SECTION("normal-mode training, forward and backward") {
        check_formula("scenarios/moe/deepseek-v3-training.yaml",
                      {{"workload.tokens_per_gpu", "128"}});
    }
}

TEST_CASE("a MoE step is refused by its size before a token is drawn", "[moe][estimate]") {
    // 10^9 tokens per GPU would take hours to gate; the estimate refuses it at once.
    const Scenario s = load_scenario(source_path("scenarios/deepseek-v3-decode.yaml"),
                                     {{"workload.tokens_per_gpu", "1000000000"}});
    try {
        (void)estimate_scenario(s);
        FAIL("estimate_scenario accepted 10^9 tokens per GPU");
    } catch (const InputError& e) {
        CHECK(e.key() == "workload.tokens_per_gpu");
        CHECK(std::string(e.what()).find("expert scores") != std::string::npos);
    }
    // A memory limit below the step's size: refused by the formula, nothing built.
    const Scenario big =
        load_scenario(source_path("scenarios/moe/deepseek-v3-decode-2048-ft3.yaml"),
                      {{"sim.max_memory_gb", "0.5"}});
    try {
        (void)estimate_scenario(big);
        FAIL("estimate_scenario accepted a 1 GB step under a 0.5 GB limit");
    } catch (const InputError& e) {
        CHECK(e.key() == "sim.max_memory_gb");
    }
}
