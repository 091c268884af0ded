#include "tools/scenario/output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <streambuf>

#include "sim/input/input_error.hpp"

namespace clustersim {
namespace {

// An ostream's buffer over a file descriptor this code opened itself, so the file written is the
// one created (reopening by name could follow a link swapped in meanwhile).
class FdBuffer : public std::streambuf {
  public:
    explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
    bool failed() const { return failed_; }
    int sync() override { return flush() ? 0 : -1; }

  protected:
    int_type overflow(int_type c) override {
        if (!flush()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }

  private:
    bool flush() {
        const char* p = pbase();
        while (p < pptr()) {
            const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                failed_ = true;
                break;
            }
            p += n;
        }
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        return !failed_;
    }
    int fd_;
    bool failed_ = false;
    std::array<char, 1 << 16> buffer_{};
};

// Closes the descriptor and removes the temporary file unless it was renamed into place.
struct TempFile {
    std::string path;
    int fd = -1;
    bool kept = false;
    ~TempFile() {
        if (fd >= 0) ::close(fd);
        if (!kept) ::unlink(path.c_str());
    }
};

[[noreturn]] void cannot_write(const std::string& path) {
    throw InputError(path, "cannot write it (expected a writable folder for --out)");
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
    write_stream_atomically(path, [&](std::ostream& out) { out << content; });
}

void write_stream_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write) {
    const std::filesystem::path target(path);
    // `.NAME.XXXXXX` beside the target: mkstemp picks an unguessable name and creates it with
    // O_CREAT | O_EXCL, so it never opens a file or link already there.
    std::string name = target.filename().string();  // built by append: GCC 12 misfires on "." + s
    name.insert(0, 1, '.');
    name.append(".XXXXXX");
    TempFile tmp{(target.parent_path() / name).string()};
    tmp.fd = ::mkostemp(tmp.path.data(), O_CLOEXEC);
    if (tmp.fd < 0) {
        tmp.kept = true;  // nothing was created
        cannot_write(path);
    }
    // A result file is as readable as any the user creates. Read once: two threads writing
    // files at once (a sweep's points) could otherwise leave the process's umask at 0.
    static const mode_t mask = [] {
        const mode_t m = ::umask(0);
        ::umask(m);
        return m;
    }();
    if (::fchmod(tmp.fd, 0666 & ~mask) != 0) cannot_write(path);
    {
        FdBuffer buffer(tmp.fd);
        std::ostream out(&buffer);
        write(out);
        out.flush();
        if (!out || buffer.failed()) cannot_write(path);
    }
    if (::close(tmp.fd) != 0) {
        tmp.fd = -1;
        cannot_write(path);
    }
    tmp.fd = -1;
    // rename replaces whatever is at the target, a link included, without following it.
    if (::rename(tmp.path.c_str(), target.c_str()) != 0)
        throw InputError(path,
                         "cannot replace it with the run's output (expected a file or "
                         "nothing at that path)");
    tmp.kept = true;
}

}  // namespace clustersim
