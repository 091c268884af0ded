#include "models/network/partitions.hpp"

#include <metis.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

namespace clustersim {

namespace {

struct UnionFind {
    std::vector<std::uint32_t> parent;
    explicit UnionFind(std::uint32_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
    std::uint32_t find(std::uint32_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    void join(std::uint32_t a, std::uint32_t b) {
        a = find(a);
        b = find(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the lower index leads
    }
};

Partitions single(std::uint32_t processes, std::string reason) {
    Partitions p;
    p.of_process.assign(processes + 1, 0);
    p.single_reason = std::move(reason);
    return p;
}

}  // namespace

Partitions partition_processes(const PortGraph& graph, const LogicalProcesses& lp,
                               std::span<const ProcessTie> ties, const std::string& shared_reason) {
    const std::uint32_t n = lp.count;
    if (!shared_reason.empty()) return single(n, shared_reason);
    // Ties first: processes a zero-delay dependency joins become one vertex.
    UnionFind together(n);
    for (const ProcessTie& t : ties) {
        if (t.from >= n || t.to >= n)  // the observer: it runs between windows, never tied
            return single(n, "a dependency without delay joins a task to the observer");
        together.join(t.from, t.to);
    }
    std::vector<std::uint32_t> vertex_of(n);
    std::uint32_t vertices = 0;
    for (std::uint32_t i = 0; i < n; ++i)
        vertex_of[i] = together.find(i) == i ? vertices++ : vertex_of[together.find(i)];
    const std::uint32_t target = std::min(vertices, partitions_for(n));
    if (target < 2) return single(n, "too few logical processes to cut");

    // The graph of vertices: weight = channels transmitted, edges = channels between them.
    const auto channels = graph.channels();
    std::vector<idx_t> vwgt(vertices, 0);
    std::vector<std::map<std::uint32_t, idx_t>> adj(vertices);
    for (const Channel& c : channels) {
        const std::uint32_t a = vertex_of[lp.of(c.from)], b = vertex_of[lp.of(c.to)];
        ++vwgt[a];
        if (a == b) continue;
        ++adj[a][b];
        ++adj[b][a];
    }
    for (idx_t& w : vwgt) w = std::max<idx_t>(w, 1);
    std::vector<idx_t> xadj{0}, adjncy, adjwgt;
    for (const auto& row : adj) {
        for (const auto& [to, w] : row) {
            adjncy.push_back(static_cast<idx_t>(to));
            adjwgt.push_back(w);
        }
        xadj.push_back(static_cast<idx_t>(adjncy.size()));
    }
    idx_t nv = static_cast<idx_t>(vertices), ncon = 1, nparts = static_cast<idx_t>(target);
    idx_t objval = 0;
    std::vector<idx_t> part(vertices, 0);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;  // the same cut on every machine
    options[METIS_OPTION_NUMBERING] = 0;
    const int rc = METIS_PartGraphKway(&nv, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                       adjwgt.data(), &nparts, nullptr, nullptr, options, &objval,
                                       part.data());
    if (rc != METIS_OK) throw std::runtime_error("METIS could not partition the processes");

    // Partitions numbered in order of their first process, empty ones dropped.
    Partitions p;
    std::vector<std::uint32_t> renumber(target, kNone);
    p.of_process.resize(n + 1);
    std::uint32_t used = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t& r = renumber[static_cast<std::uint32_t>(part[vertex_of[i]])];
        if (r == kNone) r = used++;
        p.of_process[i] = r;
    }
    p.count = used;
    if (p.count < 2) return single(n, "too few logical processes to cut");
    p.of_process[n] = p.count;  // the observer: between windows, apart from every partition
    p.cut.assign(channels.size(), false);
    p.weight.assign(p.count, 0);
    for (std::uint32_t c = 0; c < channels.size(); ++c) {
        const std::uint32_t from = p.of_process[lp.of(channels[c].from)];
        ++p.weight[from];
        if (from == p.of_process[lp.of(channels[c].to)]) continue;
        p.cut[c] = true;
        ++p.cut_channels;
        p.lookahead = std::min(p.lookahead, channels[c].propagation);
    }
    if (p.lookahead <= Time::zero()) return single(n, "a channel between partitions has no delay");
    return p;
}

}  // namespace clustersim
