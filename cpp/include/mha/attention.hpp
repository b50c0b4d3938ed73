#pragma once
/// @file attention.hpp
/// @brief Steps 12–16 of the walkthrough for every head of a run: one head at a time, with the
///        one kernel (attention_head.hpp), recorded as the recorder asks.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention_head.hpp"
#include "config.hpp"
#include "error.hpp"
#include "recorder.hpp"

namespace mha {

/// @brief The mask a validated config asks for: causal, padding (keyLengths), both or none.
KeyMask key_mask(const Config& config, const Dims& dims);

/// The projections the heads read: q [B, T, H·D], k and v [B, keys, Hkv·D], row-major (keys:
/// the source's Tk, and the appended key after them under add_bias_kv).
struct Projections {
    const float* q;
    const float* k;
    const float* v;
};

/// @brief Head h of batch row b as the kernel reads it: a strided matrix of q (of k and v: K/V
///        head h / (H/Hkv) under GQA/MQA).
HeadInput head_input(const Dims& dims, Projections in, std::size_t b, std::size_t h);

/// @brief Steps 12–16 for every head. Writes head h's context into columns h·D … h·D + D − 1 of
///        `concat` [B, T, C] and records the scores-sized steps (scores, scaled, masked,
///        weights) as the recorder asks. A query whose keys are all masked gets zero weights and
///        a warning (PyTorch gives NaN).
void attend(const Dims& dims, const KeyMask& mask, Projections in, float* concat, Recorder& recorder,
            std::vector<Warning>& warnings);

/// @brief One warning per run of consecutive fully masked queries of a batch row, from
///        `fully_masked` [B, T] (shared by every algorithm, so that they warn alike).
void warn_fully_masked(const std::vector<std::uint8_t>& fully_masked, const Dims& dims, std::vector<Warning>& warnings);

}  // namespace mha
