#pragma once
// Results are written to a temporary file beside the target and renamed into place, so a
// reader (or a crashed run) never sees half a file.
#include <string>

namespace clustersim {

void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace clustersim
