#pragma once
// A family of named kinds (topology kinds, routing policies, congestion controls, workload
// kinds): its rows in table order, looked up by name. Rows are any type with a `name`.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim {

inline constexpr std::uint32_t kNoEntry = UINT32_MAX;

template <class Entry>
class Registry {
  public:
    explicit Registry(std::vector<Entry> rows) : rows_(std::move(rows)) {}
    std::span<const Entry> rows() const { return rows_; }
    const Entry& operator[](std::uint32_t i) const { return rows_[i]; }
    std::uint32_t index_of(std::string_view name) const {
        for (std::uint32_t i = 0; i < rows_.size(); ++i)
            if (rows_[i].name == name) return i;
        return kNoEntry;
    }
    const Entry* find(std::string_view name) const {
        const std::uint32_t i = index_of(name);
        return i == kNoEntry ? nullptr : &rows_[i];
    }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& r : rows_) out.emplace_back(r.name);
        return out;
    }

  private:
    std::vector<Entry> rows_;
};

}  // namespace clustersim
