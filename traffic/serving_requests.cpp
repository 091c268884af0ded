#include "traffic/serving_requests.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/input/input_file.hpp"
#include "traffic/trace_numbers.hpp"

namespace clustersim {

std::vector<ServingRequest> poisson_requests(double rate_per_s, double duration_s,
                                             const KvLengthDistribution& prompt,
                                             const KvLengthDistribution& output,
                                             std::uint64_t seed) {
    RandomStream gaps(seed, "serving-arrivals"), prompts(seed, "serving-prompts"),
        outputs(seed, "serving-outputs");
    std::vector<ServingRequest> out;
    double t_s = 0;
    for (;;) {
        t_s += -std::log(1.0 - gaps.uniform()) / rate_per_s;
        if (t_s >= duration_s) break;
        ServingRequest r;
        r.arrival = Time::from_us(t_s * 1e6);
        r.prompt_tokens = static_cast<std::uint32_t>(draw_length(prompt, prompts));
        r.output_tokens = static_cast<std::uint32_t>(draw_length(output, outputs));
        out.push_back(r);
    }
    return out;
}

std::vector<ServingRequest> read_request_trace(const std::string& path, double duration_us) {
    std::ifstream in = open_input_file(path, "the request trace",
                                       "a CSV of arrival_us,prompt_tokens,output_tokens lines");
    std::vector<ServingRequest> out;
    std::string line;
    std::uint32_t line_no = 0;
    std::uint64_t last_us = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line_no > 10'000'000)
            throw InputError(path, line_no, 1, {}, "more than 10 million lines");
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        if (line.compare(first, 10, "arrival_us") == 0) continue;
        std::uint64_t field[3] = {};
        std::size_t at = 0;
        for (int k = 0; k < 3; ++k) {
            const std::size_t end = k < 2 ? line.find(',', at) : line.size();
            if (end == std::string::npos)
                throw InputError(path, line_no, static_cast<std::uint32_t>(line.size() + 1), {},
                                 "expected arrival_us,prompt_tokens,output_tokens");
            std::string_view text(line.data() + at, end - at);
            while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
                text.remove_prefix(1);
            while (!text.empty() &&
                   (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
                text.remove_suffix(1);
            static constexpr const char* kWhat[3] = {"an arrival time in whole microseconds",
                                                     "a prompt length in tokens, 1 or more",
                                                     "an output length in tokens, 1 or more"};
            const std::uint64_t max = k == 0 ? std::uint64_t{1} << 50 : 100'000'000;
            const std::optional<std::uint64_t> v = trace_integer(text, max);
            if (!v || (k > 0 && *v == 0))
                throw InputError(path, line_no, static_cast<std::uint32_t>(at + 1), {},
                                 fmt::format("'{}' is not {} (expected an integer up to {})",
                                             std::string(text.substr(0, 40)), kWhat[k], max));
            field[k] = *v;
            at = end + 1;
        }
        if (field[0] < last_us)
            throw InputError(path, line_no, 1, {},
                             fmt::format("arrival {} us is before the line above's {} us "
                                         "(expected arrivals in order)",
                                         field[0], last_us));
        last_us = field[0];
        if (duration_us > 0 && static_cast<double>(field[0]) >= duration_us) continue;
        out.push_back(ServingRequest{Time::from_ps(static_cast<std::int64_t>(field[0]) * 1'000'000),
                                     static_cast<std::uint32_t>(field[1]),
                                     static_cast<std::uint32_t>(field[2])});
    }
    if (out.empty())
        throw InputError(path,
                         "holds no request (expected arrival_us,prompt_tokens,"
                         "output_tokens lines)");
    return out;
}

}  // namespace clustersim
