#include "tools/scenario/expert_load_csv.hpp"

#include "tools/scenario/csv_writer.hpp"

namespace clustersim {

void write_expert_load_csv(std::ostream& out, const MoeRun& run) {
    CsvWriter csv(out, {"pass", "layer", "micro_batch", "group", "expert", "gpu", "tokens"});
    const auto& primary = run.spec.placement.gpu_of_expert;
    for (const MoeAllToAllRange& a : run.all_to_alls) {
        const char* pass = a.backward ? "backward" : a.mtp ? "mtp" : "forward";
        const std::uint32_t layer = a.mtp ? a.layer - run.simulated_layers : a.layer;
        for (std::uint32_t e = 0; e < a.expert_tokens.size(); ++e)
            csv.text(pass)
                .integer(layer)
                .integer(a.micro_batch)
                .integer(a.group)
                .integer(e)
                .integer(e < primary.size() ? primary[e] : 0)
                .integer(a.expert_tokens[e])
                .end_row();
    }
}

}  // namespace clustersim
