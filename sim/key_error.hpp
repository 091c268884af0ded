#pragma once
// A request a builder cannot satisfy, naming the scenario key at fault, so that the loader can
// point at where the user set it (`FILE:LINE:COL: key: message`).
#include <stdexcept>
#include <string>

namespace clustersim {

class KeyError : public std::runtime_error {
  public:
    KeyError(std::string key, const std::string& what)
        : std::runtime_error(what), key_(std::move(key)) {}
    const std::string& key() const { return key_; }

  private:
    std::string key_;
};

}  // namespace clustersim
