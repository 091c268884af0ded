#pragma once
// Reader for htsim's connection-matrix text format (.cm), so htsim users can replay the files
// they have. Header: `Nodes N`, `Connections C`, optional `Triggers T`. Connections:
// `SRC->DST [id I] (start PICOSECONDS | trigger T) size BYTES [send_done_trigger T]
// [recv_done_trigger T] [prio P]`. Triggers: `trigger id T (oneshot | multishot | barrier count
// K)`.
// `#` lines are comments. Anything else is an InputError with its line and column.
#include <cstdint>
#include <istream>
#include <string>

#include "models/dag/workload.hpp"

namespace clustersim {

struct ConnectionMatrix {
    std::uint32_t nodes = 0;
    Workload workload;
};

ConnectionMatrix read_connection_matrix(std::istream& in, const std::string& file_name);
ConnectionMatrix read_connection_matrix_file(const std::string& path);

}  // namespace clustersim
