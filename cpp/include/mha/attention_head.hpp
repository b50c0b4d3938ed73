#pragma once
/// @file attention_head.hpp
/// @brief One head's attention, the walkthrough's steps 12–16, and its backward: the one kernel
///        every pass computes attention with. The naive forward pass and its backward run it head
///        by head, incremental decoding runs it for one query over the cache, the trainer's
///        blocks run it with dropout, and the tiled pass scores and masks each of its tiles with
///        `score_block` and `mask_block`.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "matmul.hpp"

namespace mha {

/// Which keys each query of a batch row may look at: a causal mask hides the keys after the query
/// (aligned top-left when Tq ≠ Tk, as PyTorch's triu(ones(Tq, Tk), 1)), a padding mask the keys
/// from keyLengths[b] on. Keys appended after the source's (add_bias_kv's learned key) are seen
/// by every query, as PyTorch pads its masks with a column of zeros for them.
struct KeyMask {
    bool causal = false;
    std::vector<std::int64_t> key_lengths;  ///< empty: no padding mask
    std::size_t Tk = 0;        ///< the source's keys, which the mask may hide
    std::size_t appended = 0;  ///< keys after them, never hidden
    /// attnMask and keyPaddingMask as values added to the scaled scores (−∞ where a boolean mask
    /// hides a key), read through strides so that a broadcast mask is never expanded:
    /// element (b, h, i, j) of `added` is added[b·stride_b + h·stride_h + i·stride_q + j·stride_k].
    std::vector<float> added;
    std::ptrdiff_t stride_b = 0, stride_h = 0, stride_q = 0, stride_k = 0;
    std::vector<float> padding;  ///< keyPaddingMask as values added, [B, Tk] (empty: none)
    bool general() const { return !added.empty() || !padding.empty(); }

    /// The first key that query i of batch row b may not look at (Tk when it sees them all).
    std::size_t first_masked(std::size_t b, std::size_t i) const;
    /// Whether any query of a run with Tk keys has a key hidden.
    bool masks_a_key() const;
};

/// One head's view of the mask: its query r is query `first_query + r` of batch row `batch`.
struct HeadMask {
    const KeyMask& mask;
    std::size_t batch = 0;
    std::size_t first_query = 0;
    std::size_t head = 0;
    /// Of the source's keys, none from visible(r) on may be looked at by query r (causal and
    /// keyLengths; attnMask and keyPaddingMask may hide more before it).
    std::size_t visible(std::size_t r) const { return mask.first_masked(batch, first_query + r); }
    /// One past the last key query r may look at (an appended key, when there is one).
    std::size_t reach(std::size_t r) const {
        return mask.appended || mask.general() ? mask.Tk + mask.appended : visible(r);
    }
    /// The keys before this are seen by query r with nothing added (0 under attnMask and
    /// keyPaddingMask, which may touch any key).
    std::size_t clear(std::size_t r) const { return mask.general() ? 0 : visible(r); }
};

/// One head's operands: q [Tq, D], k and v [Tk, D], each row `ld_*` floats after the last (a
/// head of a [B, T, H·D] projection is a strided matrix of it; nothing is copied).
struct HeadInput {
    std::size_t Tq, Tk, D;
    const float* q;
    std::ptrdiff_t ld_q;
    const float* k;
    std::ptrdiff_t ld_k;
    const float* v;
    std::ptrdiff_t ld_v;
};

/// Where a caller wants to see one head's [Tq, Tk] matrices as the kernel makes them (null: not
/// wanted). Forward: scores, scaled, masked, weights. Backward: the gradients of weights, masked,
/// scaled and scores, in that order (d_weights, d_masked, d_scaled, d_scores).
struct HeadSteps {
    float* steps[4] = {nullptr, nullptr, nullptr, nullptr};
    bool any() const { return steps[0] || steps[1] || steps[2] || steps[3]; }
};

/// @brief Scores of a block of queries against a block of keys, scaled: S [rows, cols] (rows
///        `ld_s` apart) = Q[r0 …]·K[c0 …]ᵀ / √D.
void score_block(const HeadInput& in, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols, float* S,
                 std::ptrdiff_t ld_s);

/// @brief −∞ where query r0 + r may not look at key c0 + c, for the block S [rows, cols]
///        (appended keys are never hidden).
void mask_block(const HeadMask& mask, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols, float* S,
                std::ptrdiff_t ld_s);

/// @brief Steps 12–15: A [Tq, Tk] = softmax over the keys of mask(Q·Kᵀ / √D). Subtracting each
///        row's maximum keeps e^x finite; a query that sees no key gets zero weights (not the NaN
///        of 0/0) and 1 in `fully_masked` (Tq flags, or null). Under a mask the scores a
///        query cannot see are not computed, only overwritten with −∞ (unless `seen` shows them).
void head_weights(const HeadInput& in, const HeadMask& mask, float* A, const HeadSteps& seen = {},
                  std::uint8_t* fully_masked = nullptr);

/// @brief Step 16: out [Tq, D] (rows `ld_out` apart) = (A ⊙ keep)·V, where `keep` (dropout in
///        training: 0 or 1/(1−p) per weight, [Tq, Tk]) may be null. The sum of each output skips
///        the keys after the last one its block of queries sees, whose weights are exactly 0,
///        which leaves it bit for bit the same. With `keep`, `work` holds Tq·Tk floats.
void head_context(const HeadInput& in, const HeadMask& mask, const float* A, const float* keep, float* out,
                  std::ptrdiff_t ld_out, float* work = nullptr);

/// Where one head's gradients go (overwritten): dq [Tq, D], dk and dv [Tk, D], rows `ld_*` apart.
struct HeadGradients {
    float* dq;
    std::ptrdiff_t ld_dq;
    float* dk;
    std::ptrdiff_t ld_dk;
    float* dv;
    std::ptrdiff_t ld_dv;
};

/// @brief Steps 16–12 backwards for one head, from the gradient dO [Tq, D] (rows `ld_do` apart)
///        of its context and its weights A as head_weights made them: dA = dO·Vᵀ (⊙ keep),
///        dS = A ⊙ (dA − rowsum(dA ⊙ A)), 0 where masked, / √D; then dQ = dS·K, dK = dSᵀ·Q and
///        dV = (A ⊙ keep)ᵀ·dO. `work` holds 2·Tq·Tk floats.
void head_backward(const HeadInput& in, const HeadMask& mask, const float* A, const float* keep, const float* dO,
                   std::ptrdiff_t ld_do, const HeadGradients& out, float* work, const HeadSteps& seen = {});

/// @brief dS = A ⊙ (dA − Σ_k A_k·dA_k) over one row of n keys: the softmax's Jacobian applied to
///        dA. `d_scores` may be `d_weights`. A row of zero weights (every key masked) gets zeros.
void softmax_backward_row(const float* weights, const float* d_weights, float* d_scores, std::size_t n);

}  // namespace mha
