#include "tools/scenario/messages_csv.hpp"

#include <fmt/format.h>

#include <vector>

#include "tools/scenario/csv_writer.hpp"

namespace clustersim {
namespace {

using Tag = MessageTag;

}  // namespace

std::vector<MessageTag> moe_message_tags(const MoeRun& run, std::size_t messages) {
    std::vector<Tag> tags(messages);
    for (const MoeAllToAllRange& a : run.all_to_alls) {
        const auto pass = static_cast<std::uint8_t>(a.backward ? 1 : a.mtp ? 2 : 0);
        const std::uint32_t layer = a.mtp ? a.layer - run.simulated_layers : a.layer;
        for (std::uint32_t i = a.dispatch_first; i < a.dispatch_last && i < messages; ++i)
            tags[i] = Tag{1, pass, layer, a.micro_batch};
        for (std::uint32_t i = a.combine_first; i < a.combine_last && i < messages; ++i)
            tags[i] = Tag{2, pass, layer, a.micro_batch};
    }
    return tags;
}

std::string_view message_phase_name(const MessageTag& t) {
    constexpr std::string_view kPhase[] = {"", "dispatch", "combine"};
    return kPhase[t.phase];
}

std::string_view message_pass_name(const MessageTag& t) {
    constexpr std::string_view kPass[] = {"forward", "backward", "mtp"};
    return t.phase == 0 ? std::string_view() : kPass[t.pass];
}

std::string_view message_path(const Workload& w, std::uint32_t m, const NodeLayout* layout) {
    if (!layout) return "network";
    const Message& s = w.messages[m];
    return layout->node_of_gpu(s.src) == layout->node_of_gpu(s.dst) && !w.sent_via_nic(m) ? "nvlink"
                                                                                          : "rdma";
}

MessagesWritten write_messages_csv(std::ostream& out, const Workload& w, const SimulationResult& r,
                                   const MoeRun* moe, const NodeLayout* layout,
                                   MessagesChoice choice) {
    MessagesWritten done;
    done.messages = w.messages.size();
    if (choice == MessagesChoice::Auto)
        choice = done.messages > kAllMessagesUpTo ? MessagesChoice::Sample : MessagesChoice::All;
    CsvWriter csv(out, {"id", "src", "dst", "bytes", "start_us", "end_us", "latency_us", "phase",
                        "pass", "layer", "micro_batch", "path"});
    if (choice == MessagesChoice::None) {
        done.what = "none (--messages none)";
        return done;
    }
    // The sample: node 0's GPUs (or the first 8 NICs), everything they send or receive.
    const std::uint32_t sample_gpus = layout ? layout->gpus_per_node : 8;
    auto in_sample = [&](const Message& m) { return m.src < sample_gpus || m.dst < sample_gpus; };
    done.sampled = choice == MessagesChoice::Sample;
    const std::vector<Tag> tags =
        moe ? moe_message_tags(*moe, w.messages.size()) : std::vector<Tag>{};
    for (std::uint32_t i = 0; i < w.messages.size(); ++i) {
        const Message& m = w.messages[i];
        if (done.sampled && !in_sample(m)) continue;
        const MessageState& st = r.messages[i];
        csv.integer(w.label_of(i)).integer(m.src).integer(m.dst).integer(m.bytes);
        if (st.started != Time::never())
            csv.fixed(st.started.us());
        else
            csv.empty();
        if (st.finished != Time::never())
            csv.fixed(st.finished.us()).fixed((st.finished - st.started).us());
        else
            csv.empty().empty();
        if (!tags.empty() && tags[i].phase != 0)
            csv.text(message_phase_name(tags[i]))
                .text(message_pass_name(tags[i]))
                .integer(tags[i].layer)
                .integer(tags[i].micro_batch);
        else
            csv.empty().empty().empty().empty();
        csv.text(message_path(w, static_cast<std::uint32_t>(i), layout));
        csv.end_row();
        ++done.rows;
    }
    done.what = done.sampled ? fmt::format(
                                   "a sample: the {} of {} messages that node 0's {} GPUs "
                                   "sent or received, every layer (--messages all: every one)",
                                   done.rows, done.messages, sample_gpus)
                             : "all";
    return done;
}

}  // namespace clustersim
