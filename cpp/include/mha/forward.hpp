#pragma once
/// @file forward.hpp
/// @brief The multi-head attention forward pass, step by step.

#include <string>

#include "config.hpp"
#include "trace.hpp"

namespace mha {

/// @brief Validates `config`, then computes X → Q/K/V → heads → scores → softmax → context →
///        concat → output, recording a snapshot of every step (unless config.snapshots is false).
/// @throws MhaError before any work if the config is invalid.
Trace forward(const Config& config);

/// @brief The same, taking the config's explicit weights over into the trace instead of copying them.
Trace forward(Config&& config);

/// @brief Names what a run of `config` says apart from its values: the summary and every step's
///        id, title, formula, shapes, axes and strides. Runs whose keys are equal have equal
///        metadata (whatever their seed, tensors or weights), so a caller that holds it from one
///        run can ask the next for values only (Config::describe = false).
std::string metadata_key(const Config& config);

}  // namespace mha
