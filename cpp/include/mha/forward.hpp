#pragma once
/// @file forward.hpp
/// @brief The multi-head attention forward pass, step by step.

#include "config.hpp"
#include "trace.hpp"

namespace mha {

/// @brief Validates `config`, then computes X → Q/K/V → heads → scores → softmax → context →
///        concat → output, recording a snapshot of every step (unless config.snapshots is false).
/// @throws MhaError before any work if the config is invalid.
Trace forward(const Config& config);

/// @brief The same, taking the config's explicit weights over into the trace instead of copying them.
Trace forward(Config&& config);

}  // namespace mha
