#include "tools/scenario/step_store.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <variant>

#include "tools/scenario/build_info.hpp"
#include "tools/scenario/digest.hpp"
#include "tools/scenario/output_files.hpp"
#include "tools/scenario/results_json.hpp"

namespace clustersim {
namespace {

constexpr std::string_view kFormat = "clustersim step store 2";

// A file's bytes, digested (empty when it cannot be read).
std::string file_digest(const std::string& path) {
    Digest d;
    std::ifstream in(path, std::ios::binary);
    std::array<char, 1 << 16> buffer{};
    std::uint64_t total = 0;
    while (in) {
        in.read(buffer.data(), buffer.size());
        const auto got = static_cast<std::size_t>(in.gcount());
        d.bytes(std::string_view(buffer.data(), got));
        total += got;
    }
    return total == 0 ? std::string() : fmt::format("{:016x} {} bytes", d.value(), total);
}

// The running binary's bytes but its commit's name: a rebuild that changes any model changes
// every key, one that changes only the commit (docs, tests) none. Where it cannot be read, the
// build's identity.
const std::string& binary_digest() {
    static const std::string digest = [] {
        const BuildInfo& b = build_info();
        std::ifstream in("/proc/self/exe", std::ios::binary);
        const std::string bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
        return bytes.empty() ? fmt::format("build {} {} {}", b.version, b.commit, b.build)
                             : "binary " + program_digest(bytes, b.commit);
    }();
    return digest;
}

// One warning a process, however many stores fail to write.
std::atomic<bool> warned{false};

std::string value_text(const ResolvedValue& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
                return "s" + x;
            else if constexpr (std::is_same_v<T, bool>)
                return x ? "btrue" : "bfalse";
            else if constexpr (std::is_same_v<T, double>)
                return fmt::format("d{}", x);
            else
                return fmt::format("u{}", x);
        },
        v);
}

Json key_json(const StoredStepKey& k) {
    return {{"what", k.what},
            {"size", k.size},
            {"context", k.context},
            {"with_kv", k.with_kv},
            {"faults_present", k.faults.present},
            {"faults_transient", k.faults.transient}};
}

Json run_json(const StepSimulation& r) {
    return {{"what", r.what},
            {"size", r.size},
            {"context", r.context},
            {"kv_bytes", r.kv_bytes},
            {"time_ms", r.time_ms},
            {"instance_ms", r.instance_ms},
            {"window_us", r.window_us},
            {"dispatch_us", r.dispatch_us},
            {"combine_us", r.combine_us},
            {"kv_stream_gbps", r.kv_stream_gbps},
            {"events", r.events},
            {"faults_present", r.faults.present},
            {"faults_transient", r.faults.transient},
            {"completed", r.completed}};
}

StepSimulation run_of(const Json& j) {
    StepSimulation r;
    r.what = j.at("what").get<std::string>();
    r.size = j.at("size").get<std::uint64_t>();
    r.context = j.at("context").get<std::uint64_t>();
    r.kv_bytes = j.at("kv_bytes").get<std::uint64_t>();
    r.time_ms = j.at("time_ms").get<double>();
    r.instance_ms = j.at("instance_ms").get<std::vector<double>>();
    r.window_us = j.at("window_us").get<double>();
    r.dispatch_us = j.at("dispatch_us").get<double>();
    r.combine_us = j.at("combine_us").get<double>();
    r.kv_stream_gbps = j.at("kv_stream_gbps").get<double>();
    r.events = j.at("events").get<std::uint64_t>();
    r.faults.present = j.at("faults_present").get<std::uint64_t>();
    r.faults.transient = j.at("faults_transient").get<std::uint64_t>();
    r.completed = j.at("completed").get<bool>();
    return r;
}

}  // namespace

std::string program_digest(std::string bytes, std::string_view commit) {
    auto blank = [&](std::string_view what, std::size_t skip, std::size_t count) {
        if (what.empty()) return;
        for (auto at = bytes.find(what); at != std::string::npos;
             at = bytes.find(what, at + what.size()))
            if (at + skip + count <= bytes.size()) bytes.replace(at + skip, count, count, '\0');
    };
    blank(commit, 0, commit.size());
    // The linker's build ID (an ELF note: name size 4, descriptor size 20, type 3, "GNU", then
    // 20 bytes) is a hash of the rest, the commit's name included.
    constexpr std::string_view kBuildIdNote{"\x04\0\0\0\x14\0\0\0\x03\0\0\0GNU\0", 16};
    blank(kBuildIdNote, kBuildIdNote.size(), 20);
    Digest d;
    d.bytes(bytes);
    return fmt::format("{:016x} {} bytes", d.value(), bytes.size());
}

bool outside_step_runs(std::string_view path) {
    for (const std::string_view p :
         {"serving.arrival", "serving.prompt_tokens", "serving.output_tokens", "serving.slo",
          "serving.duration_s", "serving.timeline_s", "serving.step_cache", "name", "seed",
          "sim.replicates", "cost"})
        if (path.starts_with(p) && (path.size() == p.size() || path[p.size()] == '.')) return true;
    return false;
}

StepStore::StepStore(std::string dir, const Scenario& s) : dir_(std::move(dir)) {
    Digest d;
    d.part(kFormat);
    d.part(binary_digest());
    for (const auto& [path, value] : s.resolved) {
        if (outside_step_runs(path)) continue;
        d.part(path);
        d.part(value_text(value));
    }
    // Set after loading (--seed, a sweep's seeds), so not always in `resolved`.
    d.part(fmt::format("seed {}", s.seed));
    // A file a step reads: its bytes, not its name (`resolved` holds the name as written).
    if (!s.workload.expert_load_file.empty())
        d.part("expert loads " + file_digest(s.workload.expert_load_file));
    scenario_part_ = fmt::format("{:016x}", d.value());
}

std::string StepStore::path_of(const StoredStepKey& k) const {
    Digest d;
    d.part(scenario_part_);
    d.part(key_json(k).dump());
    return (std::filesystem::path(dir_) / fmt::format("{:016x}.json", d.value())).string();
}

std::optional<StepSimulation> StepStore::find(const StoredStepKey& k) const {
    std::ifstream in(path_of(k), std::ios::binary);
    if (!in) return std::nullopt;
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const Json j = Json::parse(text, nullptr, false);
    // A file edited by hand, or a digest that two keys share: not this run.
    try {
        if (j.is_discarded() || !j.is_object() || j.at("format") != Json(std::string(kFormat)) ||
            j.at("scenario_digest") != Json(scenario_part_) || j.at("key") != key_json(k))
            return std::nullopt;
        return run_of(j.at("run"));
    } catch (const Json::exception&) {
        return std::nullopt;
    }
}

void StepStore::keep(const StoredStepKey& k, const StepSimulation& r) const {
    const Json j = {{"format", kFormat},
                    {"scenario_digest", scenario_part_},
                    {"key", key_json(k)},
                    {"run", run_json(r)}};
    try {
        write_file_atomically(path_of(k), j.dump(1) + "\n");
    } catch (const std::exception&) {
        if (!warned.exchange(true))
            fmt::print(stderr,
                       "clustersim: cannot write into the step store {}: step runs are not "
                       "kept\n",
                       InputError::printable(dir_));
    }
}

void prepare_step_store(const std::string& dir, const std::string& option) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
        throw InputError(option, fmt::format("cannot create the folder '{}': {} (expected a "
                                             "writable folder)",
                                             dir, ec ? ec.message() : "not a folder"));
}

}  // namespace clustersim
