#pragma once
// The congestion controls this build has, as one list of types: the registry rows, the
// parameters a run carries (a variant) and the transport's paced senders all follow from it.
// Adding an algorithm is its header and one entry in CongestionControlList.
#include <algorithm>
#include <cstdint>
#include <variant>

#include "models/congestion/dcqcn.hpp"
#include "models/congestion/hpcc.hpp"
#include "models/congestion/swift.hpp"
#include "models/congestion/timely.hpp"
#include "sim/registry.hpp"

namespace clustersim {

template <CongestionControlAlgorithm... Cs>
struct CongestionControlTypes {
    /// A run's choice and parameters: monostate for none (senders pace at line rate).
    using Params = std::variant<std::monostate, typename Cs::Params...>;
    /// Per-algorithm state a transport keeps, `Holder<C>` for each (monostate for none).
    template <template <class> class Holder>
    using Each = std::variant<std::monostate, Holder<Cs>...>;
    static constexpr std::size_t kMaxStateBytes = std::max({sizeof(typename Cs::State)...});
    static std::vector<CongestionControlInfo> rows() {
        return {{"none", "senders pace at line rate; only flow control holds them back", {}},
                Cs::info()...};
    }
    /// The parameters of row `index` (0: none) from the scenario's values.
    static Params parse(std::uint32_t index, const KeyValues& v) {
        Params out;
        std::uint32_t i = 1;
        ((i++ == index ? (void)(out = Cs::parse(v)) : (void)0), ...);
        return out;
    }
    /// Makes `each` hold Holder<C>{C(params)} for the algorithm `p` chose, then calls
    /// `init(holder)`; leaves it monostate when `p` is none.
    template <template <class> class Holder, class Init>
    static void emplace(Each<Holder>& each, const Params& p, Init&& init) {
        std::uint32_t i = 1;
        ((i++ == p.index() ? (void)init(each.template emplace<Holder<Cs>>(
                                 Holder<Cs>{Cs(std::get<typename Cs::Params>(p)), {}}))
                           : (void)0),
         ...);
    }
    static CcTraits traits(const Params& p) {
        CcTraits t;
        std::uint32_t i = 1;
        ((i++ == p.index() ? (void)(t = Cs::kTraits) : (void)0), ...);
        return t;
    }
};

using CongestionControlList = CongestionControlTypes<DcqcnControl, HpccControl, SwiftControl, TimelyControl>;
using CongestionControlParams = CongestionControlList::Params;

/// The family's rows, in the order `check --schema` lists them ("none" first).
const Registry<CongestionControlInfo>& congestion_controls();

}  // namespace clustersim
