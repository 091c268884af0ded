#include "tools/scenario/output_files.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "sim/input/input_error.hpp"

namespace clustersim {

void write_file_atomically(const std::string& path, const std::string& content) {
    write_stream_atomically(path, [&](std::ostream& out) { out << content; });
}

void write_stream_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write) {
    const std::filesystem::path target(path);
    std::string tmp_name =
        target.filename().string();  // built by append: GCC 12 misfires on "." + s
    tmp_name.insert(0, 1, '.');
    tmp_name.append(".tmp.").append(std::to_string(getpid()));
    const std::filesystem::path tmp = target.parent_path() / tmp_name;
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw InputError(path, "cannot write it (expected a writable folder for --out)");
        write(out);
        out.flush();
        if (!out) {
            std::filesystem::remove(tmp);
            throw InputError(path, "cannot write it (expected a writable folder for --out)");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, target, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);  // no stray temporary file
        throw InputError(path,
                         "cannot replace it with the run's output (expected a file or "
                         "nothing at that path)");
    }
}

}  // namespace clustersim
