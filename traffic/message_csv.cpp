#include "traffic/message_csv.hpp"

#include "traffic/trace_numbers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "sim/input/input_error.hpp"
#include "sim/input/input_file.hpp"

namespace clustersim {
namespace {

struct Cell {
    std::string text;
    std::uint32_t column;
};

std::vector<Cell> split(const std::string& line) {
    std::vector<Cell> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= line.size(); ++i) {
        if (i == line.size() || line[i] == ',') {
            std::string t = line.substr(start, i - start);
            const auto b = t.find_first_not_of(" \t\r");
            const auto e = t.find_last_not_of(" \t\r");
            t = b == std::string::npos ? "" : t.substr(b, e - b + 1);
            out.push_back(Cell{t, static_cast<std::uint32_t>(start + 1)});
            start = i + 1;
        }
    }
    return out;
}

}  // namespace

MessageList read_message_csv(std::istream& in, const std::string& file) {
    std::string line;
    std::uint32_t line_no = 0;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
        for (auto& c : split(line)) header.push_back(c.text);
        break;
    }
    auto column = [&](const std::string& name) -> std::optional<std::size_t> {
        auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) return std::nullopt;
        return static_cast<std::size_t>(it - header.begin());
    };
    const auto src = column("src"), dst = column("dst"), bytes = column("bytes"),
               start = column("start_us");
    const auto id = column("id");
    const auto after = column("after");
    if (!src || !dst || !bytes || !start)
        throw InputError(file, line_no == 0 ? 1 : line_no, 1, {},
                         "missing CSV header (expected columns src,dst,bytes,start_us and "
                         "optionally id, after)");
    if (after && !id)
        throw InputError(file, line_no, 1, {},
                         "an 'after' column names messages by id (expected an 'id' column too)");
    MessageList out;
    struct Pending {
        std::uint32_t message, line, column;
        std::string ids;
    };
    std::vector<Pending> pending;  // 'after' cells, resolved once every id is known
    std::map<std::uint64_t, std::uint32_t> id_line;  // ids given: the line each first appears on
    while (std::getline(in, line)) {
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
        const auto cells = split(line);
        if (cells.size() != header.size())
            throw InputError(
                file, line_no, 1, {},
                fmt::format("{} fields where the header has {}", cells.size(), header.size()));
        auto number = [&](std::size_t col, const char* what, double max) {
            const Cell& c = cells[col];
            double v = 0;
            const auto [p, ec] = std::from_chars(c.text.data(), c.text.data() + c.text.size(), v);
            if (ec != std::errc() || p != c.text.data() + c.text.size() || !(v >= 0) || !(v <= max))
                throw InputError(file, line_no, c.column, {},
                                 fmt::format("'{}' is not a valid {} (expected a number from 0 "
                                             "to {:g})",
                                             c.text, what, max));
            return v;
        };
        // Integers as the .cm reader reads them (trace_numbers.hpp).
        auto integer = [&](std::size_t col, const char* what, std::uint64_t max) {
            const Cell& c = cells[col];
            const auto v = trace_integer(c.text, max);
            if (!v)
                throw InputError(file, line_no, c.column, {},
                                 fmt::format("'{}' is not a valid {} (expected an integer from 0 "
                                             "to {}, decimal digits only)",
                                             c.text, what, max));
            return *v;
        };
        MessageSpec m;
        m.src = static_cast<std::uint32_t>(integer(*src, "src", 4294967294u));
        m.dst = static_cast<std::uint32_t>(integer(*dst, "dst", 4294967294u));
        m.bytes = integer(*bytes, "bytes", kMaxTraceBytes);
        // Start times stop at 1e12 us (11.6 days), which leaves 64-bit picoseconds room for the
        // run (the .cm reader's 1e18 ps).
        m.start = Time::from_us(number(*start, "start_us", 1e12));
        if (id) m.label = integer(*id, "id", kMaxTraceId);
        // What the .cm reader accepts, this one accepts: bytes to move, between two endpoints,
        // under distinct ids.
        if (m.bytes == 0)
            throw InputError(file, line_no, cells[*bytes].column, {},
                             "0 bytes (expected a message of at least 1 byte)");
        if (m.src == m.dst)
            throw InputError(file, line_no, cells[*dst].column, {},
                             fmt::format("{} -> {} is a message to itself, which never crosses "
                                         "the network (expected dst other than src)",
                                         m.src, m.dst));
        if (id)
            if (const auto [it, fresh] = id_line.emplace(m.label, line_no); !fresh)
                throw InputError(file, line_no, cells[*id].column, {},
                                 fmt::format("id {} is used twice, first on line {} (expected "
                                             "unique ids)",
                                             m.label, it->second));
        const std::uint32_t idx = out.workload.add_message(m);  // no id: known by its index
        if (after && !cells[*after].text.empty())
            pending.push_back(Pending{idx, line_no, cells[*after].column, cells[*after].text});
        out.nodes = std::max({out.nodes, m.src + 1, m.dst + 1});
    }
    if (pending.empty()) return out;
    // Dependencies: a message with `after` ids starts once all of them have been received, its
    // start_us then being a delay after that (a join per such message).
    std::map<std::uint64_t, std::uint32_t> by_id;
    for (std::uint32_t i = 0; i < out.workload.messages.size(); ++i)
        if (!by_id.emplace(out.workload.label_of(i), i).second)
            throw InputError(file, 0, 0, {},
                             fmt::format("id {} is used twice (expected unique ids when an "
                                         "'after' column refers to them)",
                                         out.workload.label_of(i)));
    for (const Pending& p : pending) {
        std::vector<std::uint32_t> deps;
        std::string token;
        std::istringstream ids(p.ids);
        while (std::getline(ids, token, ';')) {
            std::istringstream words(token);
            for (std::string word; words >> word;) {
                std::uint64_t v = 0;
                const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
                auto it = ec == std::errc() && ptr == word.data() + word.size() ? by_id.find(v)
                                                                                : by_id.end();
                if (it == by_id.end())
                    throw InputError(file, p.line, p.column, {},
                                     fmt::format("'after' names '{}', which is no message id "
                                                 "(expected ids separated by ';' or spaces)",
                                                 word));
                if (it->second == p.message)
                    throw InputError(file, p.line, p.column, {},
                                     "a message cannot wait for itself");
                deps.push_back(it->second);
            }
        }
        const Time delay = out.workload.start_of(p.message);
        out.workload.start_after(p.message, deps, delay);
    }
    return out;
}

MessageList read_message_csv_file(const std::string& path) {
    std::ifstream in = open_input_file(path, "the message list", "a readable CSV file");
    return read_message_csv(in, path);
}

}  // namespace clustersim
