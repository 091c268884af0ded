#pragma once
// Reader for a plain message list: a CSV with header `src,dst,bytes,start_us` and optional
// `id` and `after` columns, one message per line (the first columns are what `clustersim run
// --out` writes). `after` lists ids (separated by ';' or spaces) that must have been received
// before the message starts; its start_us is then a delay after that.
#include <istream>
#include <string>

#include "models/dag/workload.hpp"

namespace clustersim {

struct MessageList {
    std::uint32_t nodes = 0;  // 1 + the largest endpoint named
    Workload workload;
};

MessageList read_message_csv(std::istream& in, const std::string& file_name);
MessageList read_message_csv_file(const std::string& path);

}  // namespace clustersim
