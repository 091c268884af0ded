#pragma once
// Reader for a plain message list: a CSV with header `src,dst,bytes,start_us` and an optional
// `id` column, one message per line. The same columns `clustersim run --out` writes.
#include <istream>
#include <string>

#include "models/workload.hpp"

namespace clustersim {

struct MessageList {
    std::uint32_t nodes = 0;  // 1 + the largest endpoint named
    Workload workload;
};

MessageList read_message_csv(std::istream& in, const std::string& file_name);
MessageList read_message_csv_file(const std::string& path);

}  // namespace clustersim
