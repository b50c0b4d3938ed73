#pragma once
/// @file run_options.hpp
/// @brief How a caller asks for a run to be recorded, apart from what the user configured: a lazy
///        run's later request for the values of one step, or of one head of a scores-sized step.

#include <cstdint>
#include <optional>
#include <string>

namespace mha {

/// The values of one step; for a scores-sized step (scores, scaled, masked, weights) or a tiled
/// step optionally of one batch row and head only, [1, 1, …]; for a decoding step optionally as
/// it was at decoding step t.
struct StepRequest {
    std::string id;
    std::optional<std::int64_t> batch;
    std::optional<std::int64_t> head;
    std::optional<std::int64_t> t = std::nullopt;  ///< incremental decoding: the step's tensor after token t
};

struct RunOptions {
    std::optional<StepRequest> only;  ///< record this step alone (with its values)
};

}  // namespace mha
