#pragma once
// Which clustersim made a result: its version, the git commit it was built from ("-dirty" with
// uncommitted changes, "unknown" outside git) and the build type. Written at build time by
// tools/build_info.cmake; results.json's `tool` and `clustersim --version` print it.
#include <string_view>

namespace clustersim {

struct BuildInfo {
    std::string_view version;
    std::string_view commit;
    std::string_view build;  // CMAKE_BUILD_TYPE
};

const BuildInfo& build_info();

}  // namespace clustersim
