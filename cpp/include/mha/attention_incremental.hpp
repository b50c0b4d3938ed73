#pragma once
/// @file attention_incremental.hpp
/// @brief Incremental decoding with a KV cache, as a language model generates text: the tokens of
///        x one at a time, each projected to its own q, k and v, k and v appended to the cache,
///        the one query attending over the cache, and the output's row t. Causal self-attention
///        only (a token never sees a later one), and the output equals the causal forward pass's.

#include <vector>

#include "attention.hpp"
#include "config.hpp"
#include "error.hpp"
#include "recorder.hpp"

namespace mha {

/// @brief Decodes x [B, T, C] token by token: at step t, q_t = x_t·Wq + bq [B, H, 1, D] and k_t,
///        v_t [B, Hkv, 1, D]; the caches grow to [B, Hkv, t+1, D]; scores and weights
///        [B, H, 1, t+1]; the context [B, H, 1, D]; y_t = concat(o_t)·Wo + bo, row t of `output`
///        [B, T, C]. Records the decoding steps as the recorder asks: every step's values in a
///        whole run's snapshots, or one step as it was at step t (then decoding stops there).
///        A query whose keys are all masked (a padding length of 0) gets zero weights and the
///        same warning as in attend().
void decode(const Dims& dims, const KeyMask& mask, const float* x, const Weights& weights, Recorder& recorder,
            std::vector<float>& output, std::vector<Warning>& warnings);

}  // namespace mha
