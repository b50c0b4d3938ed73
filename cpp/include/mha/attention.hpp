#pragma once
/// @file attention.hpp
/// @brief The attention of every head, steps 12–16 of the walkthrough: scores, scale, mask,
///        softmax and the weighted sum of the values, one (batch row, head) at a time.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config.hpp"
#include "error.hpp"
#include "recorder.hpp"

namespace mha {

/// Which keys each query may look at: a causal mask hides the keys after the query (aligned
/// top-left when Tq ≠ Tk, as PyTorch's triu(ones(Tq, Tk), 1)), a padding mask the keys from
/// keyLengths[b] on.
struct KeyMask {
    bool causal = false;
    std::vector<std::int64_t> key_lengths;  ///< empty: no padding mask
    std::size_t Tk = 0;

    KeyMask(const Config& config, const Dims& dims);
    /// The first key that query i of batch row b may not look at (Tk when it sees them all).
    std::size_t first_masked(std::size_t b, std::size_t i) const;
    /// Whether any query of these sizes has a key hidden.
    bool masks_a_key(const Dims& dims) const;
};

/// The projections the heads read: q [B, T, H·D], k and v [B, Tk, Hkv·D], row-major.
struct Projections {
    const float* q;
    const float* k;
    const float* v;
};

/// @brief Steps 12–16 for every head. Writes head h's context into columns h·D … h·D + D − 1 of
///        `concat` [B, T, C] and records the scores-sized steps (scores, scaled, masked,
///        weights) as the recorder asks. A query whose keys are all masked gets zero weights and
///        a warning (PyTorch gives NaN).
void attend(const Dims& dims, const KeyMask& mask, Projections in, float* concat, Recorder& recorder,
            std::vector<Warning>& warnings);

/// @brief One warning per run of consecutive fully masked queries of a batch row, from
///        `fully_masked` [B, T] (shared by every algorithm, so that they warn alike).
void warn_fully_masked(const std::vector<bool>& fully_masked, const Dims& dims, std::vector<Warning>& warnings);

}  // namespace mha
