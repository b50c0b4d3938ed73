#include "mha/trace.hpp"

#include "mha/error.hpp"

namespace mha {

const Snapshot& Trace::step(std::string_view id) const {
    for (const auto& snapshot : steps)
        if (snapshot.id == id) return snapshot;
    std::string known;
    for (const auto& snapshot : steps) known += (known.empty() ? "" : ", ") + snapshot.id;
    throw MhaError(ErrorCode::unknown_step, "step",
                   "There is no step \"" + std::string(id) + "\" in this run" +
                       (known.empty() ? " (it was computed without snapshots)." : ". Its steps are: " + known + "."));
}

}  // namespace mha
