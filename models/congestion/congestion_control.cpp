#include "models/congestion/congestion_controls.hpp"

namespace clustersim {

const Registry<CongestionControlInfo>& congestion_controls() {
    static const Registry<CongestionControlInfo> rows(CongestionControlList::rows());
    return rows;
}

}  // namespace clustersim
