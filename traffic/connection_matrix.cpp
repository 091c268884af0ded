#include "traffic/connection_matrix.hpp"

#include "traffic/trace_numbers.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/input/input_error.hpp"
#include "sim/input/input_file.hpp"

namespace clustersim {

namespace {
// Later start times would leave no room in 64-bit picoseconds for the run itself.
constexpr double kMaxStartPs = 1e18;
}  // namespace

namespace {

struct Token {
    std::string_view text;
    std::uint32_t column = 0;  // 1-based
};

std::vector<Token> tokenize(std::string_view line) {
    std::vector<Token> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
        if (i > start)
            out.push_back(
                Token{line.substr(start, i - start), static_cast<std::uint32_t>(start + 1)});
    }
    return out;
}

class Parser {
  public:
    Parser(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}

    ConnectionMatrix parse() {
        std::string line;
        while (std::getline(in_, line)) {
            ++line_no_;
            toks_ = tokenize(line);
            if (toks_.empty() || toks_[0].text.front() == '#') continue;
            const std::string_view head = toks_[0].text;
            if (head == "Nodes") {
                cm_.nodes = header_value();
            } else if (head == "Connections") {
                declared_connections_ = header_value();
            } else if (head == "Triggers") {
                declared_triggers_ = header_value();
            } else if (head == "Failures") {
                fail(toks_[0],
                     "Failures are not supported yet (faults are not modelled); "
                     "remove the Failures section");
            } else if (head == "failure") {
                fail(toks_[0], "failure lines are not supported yet (faults are not modelled)");
            } else if (head == "trigger") {
                parse_trigger();
            } else if (head.find("->") != std::string_view::npos) {
                parse_connection();
            } else {
                fail(toks_[0], fmt::format("unknown line '{}' (expected Nodes, Connections, "
                                           "Triggers, SRC->DST ... or trigger ...)",
                                           head));
            }
        }
        finish();
        return std::move(cm_);
    }

  private:
    [[noreturn]] void fail(const Token& t, const std::string& msg) const {
        throw InputError(file_, line_no_, t.column, {}, msg);
    }
    [[noreturn]] void fail_line(std::uint32_t line, const std::string& msg) const {
        throw InputError(file_, line, 1, {}, msg);
    }

    // Integers as the CSV reader reads them (trace_numbers.hpp); ids and sizes to 2^53.
    std::uint64_t integer(const Token& t, const char* what, std::uint64_t max = kMaxTraceId) const {
        const auto v = trace_integer(t.text, max);
        if (!v)
            fail(t, fmt::format("'{}' is not a valid {} (expected an integer from 0 to {}, "
                                "decimal digits only)",
                                t.text, what, max));
        return *v;
    }
    const Token& value_after(std::size_t& i, const char* what) const {
        if (i + 1 >= toks_.size())
            fail(toks_[i], fmt::format("'{}' needs a value (expected {})", toks_[i].text, what));
        return toks_[++i];
    }
    std::uint32_t header_value() const {
        if (toks_.size() != 2)
            fail(toks_[0], fmt::format("'{}' takes exactly one number", toks_[0].text));
        const auto v = integer(toks_[1], "count");
        if (v > UINT32_MAX) fail(toks_[1], "count too large");
        return static_cast<std::uint32_t>(v);
    }
    std::uint32_t trigger_ref(const Token& t) {
        const auto id = integer(t, "trigger id");
        if (id == 0) fail(t, "trigger id 0 is not allowed (expected an id of 1 or more)");
        return trigger_index(id);
    }
    // The trigger's index, created on first mention (a connection may name it before its line).
    std::uint32_t trigger_index(std::uint64_t id) {
        auto it = trigger_index_.find(id);
        if (it != trigger_index_.end()) return it->second;
        JoinSpec spec;
        spec.label = id;
        const std::uint32_t idx = cm_.workload.add_join(spec);
        trigger_index_.emplace(id, idx);
        trigger_defined_.push_back(std::nullopt);
        trigger_first_use_.push_back(line_no_);
        return idx;
    }

    void parse_connection() {
        const Token& head = toks_[0];
        const auto arrow = head.text.find("->");
        MessageSpec m;
        {
            Token s{head.text.substr(0, arrow), head.column};
            Token d{head.text.substr(arrow + 2),
                    head.column + static_cast<std::uint32_t>(arrow) + 2};
            if (s.text.empty() || d.text.empty()) fail(head, "expected SRC->DST");
            const std::uint64_t src = integer(s, "source node");
            const std::uint64_t dst = integer(d, "destination node");
            if (cm_.nodes == 0) fail(head, "connection before the 'Nodes N' header line");
            if (src >= cm_.nodes)
                fail(s, fmt::format("source {} is not below Nodes {}", src, cm_.nodes));
            if (dst >= cm_.nodes)
                fail(d, fmt::format("destination {} is not below Nodes {}", dst, cm_.nodes));
            m.src = static_cast<std::uint32_t>(src);
            m.dst = static_cast<std::uint32_t>(dst);
            if (src == dst)
                fail(d, fmt::format("{}->{} is a flow to itself, which never crosses the network "
                                    "(expected a destination other than the source)",
                                    src, dst));
        }
        bool has_start = false, has_trigger = false, has_size = false;
        std::uint32_t start_trigger = kNone, send_done = kNone, recv_done = kNone;
        for (std::size_t i = 1; i < toks_.size(); ++i) {
            const std::string_view key = toks_[i].text;
            if (key == "id") {
                const Token& v = value_after(i, "a flow id");
                m.label = integer(v, "flow id");
                if (m.label == 0) fail(v, "flow id 0 is not allowed (expected 1 or more)");
                if (const auto [it, fresh] = flow_id_line_.emplace(m.label, line_no_); !fresh)
                    fail(v, fmt::format("flow id {} is used twice, first on line {} (expected "
                                        "unique flow ids)",
                                        m.label, it->second));
            } else if (key == "start") {
                const Token& v = value_after(i, "a start time in picoseconds");
                double ps = 0;
                const auto [p, ec] =
                    std::from_chars(v.text.data(), v.text.data() + v.text.size(), ps);
                if (ec != std::errc() || p != v.text.data() + v.text.size() || !(ps >= 0) ||
                    !(ps <= kMaxStartPs))
                    fail(v, fmt::format("'{}' is not a valid start time (expected picoseconds "
                                        "from 0 to 1e18, about 11.6 days)",
                                        v.text));
                m.start = Time::from_ps(static_cast<std::int64_t>(std::llround(ps)));
                has_start = true;
            } else if (key == "trigger") {
                start_trigger = trigger_ref(value_after(i, "a trigger id"));
                has_trigger = true;
            } else if (key == "size") {
                const Token& v = value_after(i, "a size in bytes");
                m.bytes = integer(v, "size", kMaxTraceBytes);
                if (m.bytes == 0)
                    fail(v,
                         "size 0 (an unbounded flow in htsim) is not supported (expected bytes > "
                         "0)");
                has_size = true;
            } else if (key == "send_done_trigger") {
                send_done = trigger_ref(value_after(i, "a trigger id"));
            } else if (key == "recv_done_trigger") {
                recv_done = trigger_ref(value_after(i, "a trigger id"));
            } else if (key == "prio") {
                integer(value_after(i, "a priority"), "priority");  // accepted; one class for now
            } else {
                fail(toks_[i], fmt::format("unknown token '{}' (expected id, start, trigger, size, "
                                           "send_done_trigger, recv_done_trigger or prio)",
                                           key));
            }
        }
        if (!has_size) fail(head, "connection has no size (expected 'size BYTES')");
        if (has_start && has_trigger) fail(head, "connection has both a start time and a trigger");
        if (!has_start && !has_trigger)
            fail(head,
                 "connection has no start method (expected 'start PICOSECONDS' or 'trigger T')");
        const std::uint32_t idx = cm_.workload.add_message(m);
        if (m.label == 0) cm_.workload.set_label(idx, idx + 1);
        Workload& w = cm_.workload;
        const TaskRef me{TaskKind::Transfer, idx};
        if (has_trigger) w.depend({TaskKind::Join, start_trigger}, Completion::Done, me);
        if (send_done != kNone) w.depend(me, Completion::Sent, {TaskKind::Join, send_done});
        if (recv_done != kNone) w.depend(me, Completion::Done, {TaskKind::Join, recv_done});
        ++connections_;
    }

    void parse_trigger() {
        std::optional<std::uint64_t> id;
        std::optional<JoinKind> kind;
        std::optional<std::uint32_t> count;
        for (std::size_t i = 1; i < toks_.size(); ++i) {
            const std::string_view key = toks_[i].text;
            auto set_kind = [&](JoinKind k) {
                if (kind) fail(toks_[i], "trigger has more than one type");
                kind = k;
            };
            if (key == "id") {
                const Token& v = value_after(i, "a trigger id");
                id = integer(v, "trigger id");
                if (*id == 0) fail(v, "trigger id 0 is not allowed (expected 1 or more)");
            } else if (key == "oneshot") {
                set_kind(JoinKind::First);
            } else if (key == "multishot") {
                set_kind(JoinKind::Sequence);
            } else if (key == "barrier") {
                set_kind(JoinKind::All);
            } else if (key == "count") {
                const Token& v = value_after(i, "a count");
                const std::uint64_t n = integer(v, "count");
                if (n > UINT32_MAX) fail(v, "count too large (expected at most 4294967295)");
                count = static_cast<std::uint32_t>(n);
            } else {
                fail(toks_[i], fmt::format("unknown token '{}' (expected id, oneshot, multishot, "
                                           "barrier or count)",
                                           key));
            }
        }
        if (!id) fail(toks_[0], "trigger has no id (expected 'trigger id T ...')");
        if (!kind) fail(toks_[0], "trigger has no type (expected oneshot, multishot or barrier)");
        if (*kind == JoinKind::All && (!count || *count == 0))
            fail(toks_[0], "barrier trigger needs 'count K' with K >= 1");
        const std::uint32_t idx = trigger_index(*id);
        if (trigger_defined_[idx]) fail(toks_[0], fmt::format("trigger {} is defined twice", *id));
        trigger_defined_[idx] = line_no_;
        auto& spec = cm_.workload.joins[idx];
        spec.kind = *kind;
        spec.count = count.value_or(1);
        ++triggers_;
    }

    void finish() {
        if (cm_.nodes == 0)
            throw InputError(
                file_, 1, 1, {},
                "no 'Nodes N' header line (expected Nodes N with N >= 1 before the connections)");
        if (declared_connections_ != connections_)
            fail_line(line_no_,
                      fmt::format("'Connections {}' declared but {} connection lines found",
                                  declared_connections_, connections_));
        if (declared_triggers_ != triggers_)
            fail_line(line_no_, fmt::format("'Triggers {}' declared but {} trigger lines found",
                                            declared_triggers_, triggers_));
        for (std::size_t t = 0; t < trigger_defined_.size(); ++t)
            if (!trigger_defined_[t])
                fail_line(trigger_first_use_[t],
                          fmt::format("trigger {} is used but never defined (expected a line "
                                      "'trigger id {} oneshot|multishot|barrier count K')",
                                      cm_.workload.joins[t].label, cm_.workload.joins[t].label));
    }

    std::istream& in_;
    std::string file_;
    std::map<std::uint64_t, std::uint32_t> flow_id_line_;  // explicit flow ids: where first given
    std::uint32_t line_no_ = 0;
    std::vector<Token> toks_;
    ConnectionMatrix cm_;
    std::uint32_t declared_connections_ = 0, declared_triggers_ = 0;
    std::uint32_t connections_ = 0, triggers_ = 0;
    std::map<std::uint64_t, std::uint32_t> trigger_index_;
    std::vector<std::optional<std::uint32_t>> trigger_defined_;
    std::vector<std::uint32_t> trigger_first_use_;
};

}  // namespace

ConnectionMatrix read_connection_matrix(std::istream& in, const std::string& file_name) {
    return Parser(in, file_name).parse();
}

ConnectionMatrix read_connection_matrix_file(const std::string& path) {
    std::ifstream in = open_input_file(path, "the connection-matrix file", "a readable .cm file");
    return read_connection_matrix(in, path);
}

}  // namespace clustersim
