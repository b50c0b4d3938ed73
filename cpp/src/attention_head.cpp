#include "mha/attention_head.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mha/softmax.hpp"

namespace mha {
namespace {

constexpr float minus_inf = -std::numeric_limits<float>::infinity();

// Under a mask, the products go this many query rows at a time, each block only as far into the
// keys as its last row may look: a causal mask skips about half of both.
constexpr std::size_t row_block = 32;

float inverse_sqrt(std::size_t D) { return 1.0f / std::sqrt(static_cast<float>(D)); }

// Whether some query's keys end before the last key, so that the products can stop short.
bool masks_any(const HeadMask& mask, std::size_t Tq, std::size_t Tk) {
    for (std::size_t r = 0; r < Tq; ++r)
        if (mask.reach(r) < Tk) return true;
    return false;
}

}  // namespace

std::size_t KeyMask::first_masked(std::size_t b, std::size_t i) const {
    std::size_t first = causal ? std::min(i + 1, Tk) : Tk;
    if (!key_lengths.empty()) first = std::min(first, static_cast<std::size_t>(key_lengths[b]));
    return first;
}

bool KeyMask::masks_a_key() const {
    if (causal && Tk > 1) return true;
    if (general()) return true;  // attnMask and keyPaddingMask change the scores they touch
    return std::any_of(key_lengths.begin(), key_lengths.end(), [&](std::int64_t n) { return static_cast<std::size_t>(n) < Tk; });
}

void score_block(const HeadInput& in, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols, float* S,
                 std::ptrdiff_t ld_s) {
    gemm(rows, in.D, cols, {in.q + r0 * in.ld_q, in.ld_q}, {in.k + c0 * in.ld_k, 1, in.ld_k}, S, ld_s);
    const float scale = inverse_sqrt(in.D);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) S[r * ld_s + c] *= scale;
}

void mask_block(const HeadMask& mask, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols, float* S,
                std::ptrdiff_t ld_s) {
    // Only the source's keys can be hidden; the appended ones after them never are.
    const std::size_t source_end = mask.mask.Tk > c0 ? std::min(mask.mask.Tk - c0, cols) : 0;
    for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t visible = mask.visible(r0 + r);
        const std::size_t from = visible > c0 ? std::min(visible - c0, cols) : 0;
        if (from < source_end) std::fill(S + r * ld_s + from, S + r * ld_s + source_end, minus_inf);
    }
    if (!mask.mask.general()) return;
    // attnMask and keyPaddingMask, added (−∞ hides a key; −∞ plus anything finite stays −∞).
    const KeyMask& m = mask.mask;
    for (std::size_t r = 0; r < rows; ++r) {
        float* const row = S + r * ld_s;
        if (!m.added.empty()) {
            const float* const added = m.added.data() + static_cast<std::ptrdiff_t>(mask.batch) * m.stride_b +
                                       static_cast<std::ptrdiff_t>(mask.head) * m.stride_h +
                                       static_cast<std::ptrdiff_t>(mask.first_query + r0 + r) * m.stride_q;
            for (std::size_t c = 0; c < source_end; ++c) row[c] += added[static_cast<std::ptrdiff_t>(c0 + c) * m.stride_k];
        }
        if (!m.padding.empty()) {
            const float* const padding = m.padding.data() + mask.batch * m.Tk + c0;
            for (std::size_t c = 0; c < source_end; ++c) row[c] += padding[c];
        }
    }
}

void head_weights(const HeadInput& in, const HeadMask& mask, float* A, const HeadSteps& seen, std::uint8_t* fully_masked) {
    const std::size_t Tq = in.Tq, Tk = in.Tk;
    const auto ld = static_cast<std::ptrdiff_t>(Tk);
    auto show = [&](int step) {
        if (seen.steps[step]) std::copy_n(A, Tq * Tk, seen.steps[step]);
    };
    // Scores a query cannot see are only ever overwritten with −∞, so they are skipped unless a
    // snapshot shows them.
    const bool skip = masks_any(mask, Tq, Tk) && !seen.steps[0] && !seen.steps[1];

    // 12. Scores: every query against every key it may see. // [Tq, Tk]
    for (std::size_t r0 = 0; r0 < Tq; r0 += skip ? row_block : Tq) {
        const std::size_t rows = skip ? std::min(row_block, Tq - r0) : Tq;
        const std::size_t keys = skip ? mask.reach(r0 + rows - 1) : Tk;
        gemm(rows, in.D, keys, {in.q + r0 * in.ld_q, in.ld_q}, {in.k, 1, in.ld_k}, A + r0 * Tk, ld);
    }
    show(0);

    // 13. Scale by 1/√D, so that the scores' spread does not grow with D.
    const float scale = inverse_sqrt(in.D);
    for (std::size_t i = 0; i < Tq * Tk; ++i) A[i] *= scale;
    show(1);

    // 14. Mask: −∞ where a query may not look.
    mask_block(mask, 0, Tq, 0, Tk, A, ld);
    show(2);

    // 15. Softmax over the keys: each query's weights sum to 1.
    for (std::size_t r = 0; r < Tq; ++r) {
        const bool sees_a_key = softmax_row(A + r * Tk, A + r * Tk, Tk);
        if (fully_masked && !sees_a_key) fully_masked[r] = 1;
    }
    show(3);
}

void head_context(const HeadInput& in, const HeadMask& mask, const float* A, const float* keep, float* out,
                  std::ptrdiff_t ld_out, float* work) {
    const std::size_t Tq = in.Tq, Tk = in.Tk;
    const float* mix = A;
    if (keep) {  // dropout in training: the values are mixed by the weights that were kept
        for (std::size_t i = 0; i < Tq * Tk; ++i) work[i] = A[i] * keep[i];
        mix = work;
    }
    // 16. Each query's weighted sum of the values.
    const bool skip = masks_any(mask, Tq, Tk);
    for (std::size_t r0 = 0; r0 < Tq; r0 += skip ? row_block : Tq) {
        const std::size_t rows = skip ? std::min(row_block, Tq - r0) : Tq;
        const std::size_t keys = skip ? mask.reach(r0 + rows - 1) : Tk;
        gemm(rows, keys, in.D, {mix + r0 * Tk, static_cast<std::ptrdiff_t>(Tk)}, {in.v, in.ld_v}, out + r0 * ld_out, ld_out);
    }
}

void softmax_backward_row(const float* weights, const float* d_weights, float* d_scores, std::size_t n) {
    // Σ_k A_k·dA_k: how much the row's weighted gradient already is; each weight's share of the
    // gradient is what its own dA adds beyond it. Summed in key order, so every build agrees.
    float row_dot = 0.0f;
    for (std::size_t j = 0; j < n; ++j) row_dot += weights[j] * d_weights[j];
    for (std::size_t j = 0; j < n; ++j) d_scores[j] = weights[j] * (d_weights[j] - row_dot);
}

void head_backward(const HeadInput& in, const HeadMask& mask, const float* A, const float* keep, const float* dO,
                   std::ptrdiff_t ld_do, const HeadGradients& out, float* work, const HeadSteps& seen) {
    const std::size_t Tq = in.Tq, Tk = in.Tk, D = in.D;
    const auto ld = static_cast<std::ptrdiff_t>(Tk);
    float* const dS = work;
    float* const mixed = work + Tq * Tk;
    auto show = [&](int step) {
        if (seen.steps[step]) std::copy_n(dS, Tq * Tk, seen.steps[step]);
    };

    // 16. O = (A ⊙ keep)·V, backwards: dA = dO·Vᵀ (⊙ keep), and dV = (A ⊙ keep)ᵀ·dO.
    gemm(Tq, D, Tk, {dO, ld_do}, {in.v, 1, in.ld_v}, dS, ld);
    if (keep)
        for (std::size_t i = 0; i < Tq * Tk; ++i) {
            dS[i] *= keep[i];
            mixed[i] = A[i] * keep[i];
        }
    show(0);
    gemm(Tk, Tq, D, {keep ? mixed : A, 1, ld}, {dO, ld_do}, out.dv, out.ld_dv);

    // 15. Softmax, backwards: each row's Jacobian diag(A) − A·Aᵀ applied to dA. A fully masked
    // row has A = 0, so its gradient is 0.
    for (std::size_t r = 0; r < Tq; ++r) softmax_backward_row(A + r * Tk, dS + r * Tk, dS + r * Tk, Tk);
    show(1);

    // 14. The mask added a constant (0 or −∞): a masked key's score gets no gradient (A is 0
    // there already; this writes +0 where A·(…) may have left −0).
    const std::size_t source_end = std::min(mask.mask.Tk, Tk);
    for (std::size_t r = 0; r < Tq; ++r)
        std::fill(dS + r * Tk + std::min(mask.visible(r), source_end), dS + r * Tk + source_end, 0.0f);
    show(2);

    // 13. The scale by 1/√D, backwards: the same factor.
    const float scale = inverse_sqrt(D);
    for (std::size_t i = 0; i < Tq * Tk; ++i) dS[i] *= scale;
    show(3);

    // 12. S = Q·Kᵀ, backwards: dQ = dS·K and dK = dSᵀ·Q.
    gemm(Tq, Tk, D, {dS, ld}, {in.k, in.ld_k}, out.dq, out.ld_dq);
    gemm(Tk, Tq, D, {dS, 1, ld}, {in.q, in.ld_q}, out.dk, out.ld_dk);
}

}  // namespace mha
