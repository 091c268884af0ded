#include "traffic/deepep_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/hardware/embedded_data.hpp"

namespace clustersim {

namespace {

const std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>>& chunk_table() {
    static const auto table = [] {
        const std::string_view text = embedded_file("deepep.yaml");
        if (text.empty()) throw std::logic_error("missing built-in data file deepep.yaml");
        std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> out;
        for (const auto& row : YAML::Load(std::string(text))["normal_rdma_chunk_tokens"])
            out[row["ranks"].as<std::uint32_t>()] = {row["dispatch"].as<std::uint32_t>(),
                                                     row["combine"].as<std::uint32_t>()};
        if (out.empty()) throw std::logic_error("deepep.yaml has no normal_rdma_chunk_tokens");
        return out;
    }();
    return table;
}

}  // namespace

NormalKernelConfig deepep_normal_config(std::uint32_t ranks, std::uint32_t comm_sms) {
    const auto& table = chunk_table();
    auto it = table.upper_bound(ranks);  // the first row past `ranks`
    if (it != table.begin()) --it;
    NormalKernelConfig c;
    c.channels = std::max<std::uint32_t>(1, comm_sms / 2);
    c.dispatch_chunk_tokens = it->second.first;
    c.combine_chunk_tokens = it->second.second;
    return c;
}

}  // namespace clustersim
