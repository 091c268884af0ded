#pragma once
// A request a builder cannot satisfy, naming the scenario key at fault, so that the loader can
// point at where the user set it (`FILE:LINE:COL: key: message`). Where several keys conflict,
// the others are listed too, and the loader blames the one the user actually set.
#include <stdexcept>
#include <string>
#include <vector>

namespace clustersim {

class KeyError : public std::runtime_error {
  public:
    KeyError(std::string key, const std::string& what, std::vector<std::string> also = {})
        : std::runtime_error(what), key_(std::move(key)), also_(std::move(also)) {}
    const std::string& key() const { return key_; }
    /// Other keys in the conflict, in the order to blame them when `key` was left at its default.
    const std::vector<std::string>& also() const { return also_; }

  private:
    std::string key_;
    std::vector<std::string> also_;
};

}  // namespace clustersim
