#pragma once
// The one writer of every CSV clustersim produces (links, nics, queues, tiers, GPU timelines,
// experts, messages, a sweep's results): RFC 4180 text cells (quoted when they hold a comma, a
// quote or a line break, quotes doubled), integers as integers, reals at a stated precision.
// Rows go to a stream in chunks (a 2,048-GPU messages.csv never sits in memory) or into a string.
#include <fmt/format.h>

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>

namespace clustersim {

class CsvWriter {
  public:
    /// Into a string (str()); the header written by the caller as a row.
    CsvWriter() = default;
    explicit CsvWriter(std::ostream& out) : out_(&out) {}
    /// Into a string (str()).
    explicit CsvWriter(std::initializer_list<std::string_view> header) { write_header(header); }
    /// Onto a stream, flushed every megabyte and at the end.
    CsvWriter(std::ostream& out, std::initializer_list<std::string_view> header) : out_(&out) {
        write_header(header);
    }
    CsvWriter(const CsvWriter&) = delete;
    CsvWriter& operator=(const CsvWriter&) = delete;
    ~CsvWriter() { flush(); }

    CsvWriter& text(std::string_view v);
    template <std::integral T>
    CsvWriter& integer(T v) {
        separate();
        fmt::format_to(std::back_inserter(buf_), "{}", v);
        return *this;
    }
    /// A real with `decimals` digits after the point (microseconds: 6 = picoseconds).
    CsvWriter& fixed(double v, int decimals = 6) {
        separate();
        fmt::format_to(std::back_inserter(buf_), "{:.{}f}", v, decimals);
        return *this;
    }
    /// A real in its shortest exact form.
    CsvWriter& real(double v) {
        separate();
        fmt::format_to(std::back_inserter(buf_), "{}", v);
        return *this;
    }
    CsvWriter& empty() {
        separate();
        return *this;
    }
    /// Many cells written by the caller at once (already CSV-safe: numbers, fixed words).
    CsvWriter& raw(std::string_view cells) {
        separate();
        buf_ += cells;
        return *this;
    }
    void end_row();
    void flush();
    /// What was written (string mode).
    const std::string& str() const { return buf_; }

  private:
    void write_header(std::initializer_list<std::string_view> header);
    void separate() {
        if (!first_) buf_ += ',';
        first_ = false;
    }
    std::ostream* out_ = nullptr;
    std::string buf_;
    bool first_ = true;
};

/// One RFC 4180 cell.
std::string csv_cell(std::string_view v);

}  // namespace clustersim
