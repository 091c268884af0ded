#pragma once
// Results are written to a temporary file beside the target and renamed into place, so a
// reader (or a crashed run) never sees half a file. The temporary file has an unguessable name
// and is created exclusively, so a link planted in the output folder is never followed.
#include <functional>
#include <ostream>
#include <string>

namespace clustersim {

void write_file_atomically(const std::string& path, const std::string& content);
/// The same for output produced as a stream (`write` fills it), never held whole in memory.
void write_stream_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write);

}  // namespace clustersim
