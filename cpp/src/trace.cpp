#include "mha/trace.hpp"

#include "mha/catalogue.hpp"
#include "mha/error.hpp"

namespace mha {

std::vector<std::string> Snapshot::axes() const {
    const StepSpec& spec = *find_step(id);
    Dims dims{};
    dims.H = grouped ? 2 : 1;  // all axis_names asks of a run: whether Hkv < H
    dims.Hkv = 1;
    dims.appended = appended;
    return axis_names(spec, dims);
}

const Snapshot& Trace::step(std::string_view id) const {
    for (const auto& snapshot : steps)
        if (snapshot.id == id) return snapshot;
    if (steps.empty()) throw MhaError("step", "unknown_step.no_snapshots", {{"step", std::string(id)}});
    std::string known;
    for (const auto& snapshot : steps) known += (known.empty() ? "" : ", ") + std::string(snapshot.id);
    throw MhaError("step", "unknown_step.in_run", {{"step", std::string(id)}, {"steps", known}});
}

}  // namespace mha
