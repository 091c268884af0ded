#include "tools/scenario/csv_writer.hpp"

namespace clustersim {

std::string csv_cell(std::string_view v) {
    if (v.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(v);
    std::string out = "\"";
    for (char c : v) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

CsvWriter& CsvWriter::text(std::string_view v) {
    separate();
    if (v.find_first_of(",\"\r\n") == std::string_view::npos)
        buf_ += v;
    else
        buf_ += csv_cell(v);
    return *this;
}

void CsvWriter::end_row() {
    buf_ += '\n';
    first_ = true;
    if (out_ && buf_.size() >= (1u << 20)) flush();
}

void CsvWriter::flush() {
    if (!out_ || buf_.empty()) return;
    out_->write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
}

void CsvWriter::write_header(std::initializer_list<std::string_view> header) {
    for (std::string_view h : header) text(h);
    end_row();
}

}  // namespace clustersim
