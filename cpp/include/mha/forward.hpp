#pragma once
/// @file forward.hpp
/// @brief The multi-head attention forward pass, step by step.

#include "config.hpp"
#include "run_options.hpp"
#include "trace.hpp"

namespace mha {

/// @brief Validates `config`, then computes X → Q/K/V → heads → scores → softmax → context →
///        concat → output, recording the steps as config.snapshots and `options` ask.
/// @throws MhaError before any work if the config is invalid.
Trace forward(const Config& config, const RunOptions& options = {});

/// @brief The same, taking the config's explicit weights over into the trace instead of copying them.
Trace forward(Config&& config, const RunOptions& options = {});

/// @brief The parameters a run of `config` uses: its explicit weights, or seeded ones (uniform
///        in ±1/√C, as PyTorch's nn.Linear initialises them).
Weights resolve_weights(const Config& config, const Dims& dims);

}  // namespace mha
