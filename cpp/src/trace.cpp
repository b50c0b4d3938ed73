#include "mha/trace.hpp"

#include "mha/error.hpp"

namespace mha {

const Snapshot& Trace::step(std::string_view id) const {
    for (const auto& snapshot : steps)
        if (snapshot.id == id) return snapshot;
    if (steps.empty()) throw MhaError("step", "unknown_step.no_snapshots", {{"step", std::string(id)}});
    std::string known;
    for (const auto& snapshot : steps) known += (known.empty() ? "" : ", ") + snapshot.id;
    throw MhaError("step", "unknown_step.in_run", {{"step", std::string(id)}, {"steps", known}});
}

}  // namespace mha
