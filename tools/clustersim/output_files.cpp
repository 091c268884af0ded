#include "tools/clustersim/output_files.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace clustersim {

void write_file_atomically(const std::string& path, const std::string& content) {
    const std::filesystem::path target(path);
    std::string tmp_name =
        target.filename().string();  // built by append: GCC 12 misfires on "." + s
    tmp_name.insert(0, 1, '.');
    tmp_name.append(".tmp.").append(std::to_string(getpid()));
    const std::filesystem::path tmp = target.parent_path() / tmp_name;
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write " + tmp.string());
        out << content;
        out.flush();
        if (!out) {
            std::filesystem::remove(tmp);
            throw std::runtime_error("cannot write " + tmp.string());
        }
    }
    std::filesystem::rename(tmp, target);
}

}  // namespace clustersim
