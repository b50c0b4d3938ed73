#include "mha/model/layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "mha/attention_head.hpp"
#include "mha/matmul.hpp"
#include "mha/softmax.hpp"

namespace mha::model {

double log_positive(double x) {
    // x = m · 2^e with m in [√½, √2), then ln m = 2·atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.172:
    // the series Σ s^(2k+1)/(2k+1) reaches double precision in 12 terms.
    int e = 0;
    while (x >= 1.4142135623730951) { x *= 0.5; ++e; }
    while (x < 0.7071067811865476) { x *= 2.0; --e; }
    const double s = (x - 1.0) / (x + 1.0), s2 = s * s;
    double term = s, series = 0.0;
    for (int k = 0; k < 13; ++k) {
        series += term / (2 * k + 1);
        term *= s2;
    }
    return 2.0 * series + e * 0.6931471805599453;
}

// --- Embeddings -----------------------------------------------------------------------------------

void embedding_forward(float* x, const std::int32_t* tokens, const float* tok, const float* pos, std::size_t B, std::size_t T,
                       std::size_t C) {
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            const float* token_row = tok + static_cast<std::size_t>(tokens[b * T + t]) * C;
            float* out = x + (b * T + t) * C;
            for (std::size_t c = 0; c < C; ++c) out[c] = token_row[c] + pos[t * C + c];
        }
}

void embedding_backward(float* d_tok, float* d_pos, const float* d_x, const std::int32_t* tokens, std::size_t B, std::size_t T,
                        std::size_t C) {
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            const float* d = d_x + (b * T + t) * C;
            float* token_row = d_tok + static_cast<std::size_t>(tokens[b * T + t]) * C;
            for (std::size_t c = 0; c < C; ++c) {
                token_row[c] += d[c];
                d_pos[t * C + c] += d[c];
            }
        }
}

// --- LayerNorm ------------------------------------------------------------------------------------

void layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gain, const float* bias, std::size_t N,
                       std::size_t C) {
    constexpr float eps = 1e-5f;
    for (std::size_t n = 0; n < N; ++n) {
        const float* x = in + n * C;
        float m = 0.0f;
        for (std::size_t c = 0; c < C; ++c) m += x[c];
        m /= static_cast<float>(C);
        float var = 0.0f;
        for (std::size_t c = 0; c < C; ++c) var += (x[c] - m) * (x[c] - m);
        var /= static_cast<float>(C);
        const float r = 1.0f / std::sqrt(var + eps);  // sqrt is exact in IEEE arithmetic: the same everywhere
        float* y = out + n * C;
        for (std::size_t c = 0; c < C; ++c) y[c] = (x[c] - m) * r * gain[c] + bias[c];
        mean[n] = m;
        rstd[n] = r;
    }
}

void layernorm_backward(float* d_in, float* d_gain, float* d_bias, const float* d_out, const float* in, const float* gain,
                        const float* mean, const float* rstd, std::size_t N, std::size_t C) {
    for (std::size_t n = 0; n < N; ++n) {
        const float* x = in + n * C;
        const float* dy = d_out + n * C;
        float* dx = d_in + n * C;
        // The two means the normalisation's Jacobian needs: of dŷ and of dŷ ⊙ x̂.
        float d_norm_mean = 0.0f, d_norm_dot = 0.0f;
        for (std::size_t c = 0; c < C; ++c) {
            const float norm = (x[c] - mean[n]) * rstd[n];
            const float d_norm = gain[c] * dy[c];
            d_norm_mean += d_norm;
            d_norm_dot += d_norm * norm;
        }
        d_norm_mean /= static_cast<float>(C);
        d_norm_dot /= static_cast<float>(C);
        for (std::size_t c = 0; c < C; ++c) {
            const float norm = (x[c] - mean[n]) * rstd[n];
            const float d_norm = gain[c] * dy[c];
            d_bias[c] += dy[c];
            d_gain[c] += norm * dy[c];
            dx[c] += (d_norm - d_norm_mean - norm * d_norm_dot) * rstd[n];
        }
    }
}

// --- Linear ---------------------------------------------------------------------------------------

void linear_forward(float* out, const float* in, const float* W, const float* b, std::size_t N, std::size_t K, std::size_t M) {
    gemm(N, K, M, {in, static_cast<std::ptrdiff_t>(K)}, {W, static_cast<std::ptrdiff_t>(M)}, out, static_cast<std::ptrdiff_t>(M), b);
}

void linear_backward(float* d_in, float* dW, float* db, const float* d_out, const float* in, const float* W, std::size_t N,
                     std::size_t K, std::size_t M, std::vector<float>& scratch) {
    const auto k = static_cast<std::ptrdiff_t>(K), m = static_cast<std::ptrdiff_t>(M);
    if (scratch.size() < std::max(N * K, K * M)) scratch.resize(std::max(N * K, K * M));
    if (d_in) {  // d_in += d_out·Wᵀ // [N, M] · [K, M]ᵀ → [N, K]
        gemm(N, M, K, {d_out, m}, {W, 1, m}, scratch.data(), k);
        for (std::size_t i = 0; i < N * K; ++i) d_in[i] += scratch[i];
    }
    // dW += inᵀ·d_out // [N, K]ᵀ · [N, M] → [K, M]
    gemm(K, N, M, {in, 1, k}, {d_out, m}, scratch.data(), m);
    for (std::size_t i = 0; i < K * M; ++i) dW[i] += scratch[i];
    if (db)
        for (std::size_t r = 0; r < N; ++r)
            for (std::size_t j = 0; j < M; ++j) db[j] += d_out[r * M + j];
}

// --- Attention ------------------------------------------------------------------------------------

// Each head with the kernel every pass uses (attention_head.hpp); the weights are kept for the
// backward pass, [B, H, T, T].
void attention_forward(float* concat, float* weights, const float* keep, const float* q, const float* k, const float* v,
                       const AttentionShape& s, std::vector<float>& scratch) {
    const std::size_t T = s.T, C = s.C, D = C / s.H;
    const auto ld = static_cast<std::ptrdiff_t>(C);
    const KeyMask mask{s.causal, {}, T};
    if (scratch.size() < T * T) scratch.resize(T * T);
    for (std::size_t b = 0; b < s.B; ++b)
        for (std::size_t h = 0; h < s.H; ++h) {
            const std::size_t at = b * T * C + h * D, head_at = (b * s.H + h) * T * T;
            const HeadInput head{T, T, D, q + at, ld, k + at, ld, v + at, ld};
            const HeadMask head_mask{mask, b, 0};
            head_weights(head, head_mask, weights + head_at);
            // The values mixed by the weights, after dropout in training. // [T, D] of concat
            head_context(head, head_mask, weights + head_at, keep ? keep + head_at : nullptr, concat + at, ld, scratch.data());
        }
}

void attention_backward(float* dq, float* dk, float* dv, const float* d_concat, const float* weights, const float* keep,
                        const float* q, const float* k, const float* v, const AttentionShape& s, std::vector<float>& scratch) {
    const std::size_t T = s.T, C = s.C, D = C / s.H;
    const auto ld = static_cast<std::ptrdiff_t>(C);
    const KeyMask mask{s.causal, {}, T};
    if (scratch.size() < 2 * T * T) scratch.resize(2 * T * T);
    for (std::size_t b = 0; b < s.B; ++b)
        for (std::size_t h = 0; h < s.H; ++h) {
            const std::size_t at = b * T * C + h * D, head_at = (b * s.H + h) * T * T;
            const HeadInput head{T, T, D, q + at, ld, k + at, ld, v + at, ld};
            head_backward(head, {mask, b, 0}, weights + head_at, keep ? keep + head_at : nullptr, d_concat + at, ld,
                          {dq + at, ld, dk + at, ld, dv + at, ld}, scratch.data());
        }
}

void dropout_mask(float* keep, std::size_t count, float p, Mulberry32& rng) {
    const float scale = 1.0f / (1.0f - p);
    for (std::size_t i = 0; i < count; ++i) {
        const float u = static_cast<float>(rng.next() >> 8) * (1.0f / 16777216.0f);  // uniform in [0, 1)
        keep[i] = u < p ? 0.0f : scale;
    }
}

// --- ReLU and the residual ------------------------------------------------------------------------

void relu_forward(float* out, const float* in, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

void relu_backward(float* d_in, const float* d_out, const float* in, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) d_in[i] += in[i] > 0.0f ? d_out[i] : 0.0f;
}

void residual_forward(float* out, const float* a, const float* b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// --- Cross-entropy --------------------------------------------------------------------------------

double crossentropy_forward(float* probs, const float* logits, const std::int32_t* targets, std::size_t N, std::size_t V,
                            std::size_t& correct, std::size_t& counted) {
    double loss = 0.0;
    correct = 0;
    counted = 0;
    for (std::size_t n = 0; n < N; ++n) {
        const float* row = logits + n * V;
        softmax_row(row, probs + n * V, V);
        if (targets[n] < 0) continue;
        // −log p_target = log Σ e^(l − max) − (l_target − max): finite even where p underflows.
        const float row_max = *std::max_element(row, row + V);
        double sum = 0.0;
        for (std::size_t j = 0; j < V; ++j) sum += exp_nonpositive(row[j] - row_max);
        loss += log_positive(sum) - static_cast<double>(row[targets[n]] - row_max);
        correct += static_cast<std::size_t>(std::max_element(row, row + V) - row) == static_cast<std::size_t>(targets[n]);
        ++counted;
    }
    return counted ? loss / static_cast<double>(counted) : 0.0;
}

void crossentropy_backward(float* d_logits, const float* probs, const std::int32_t* targets, std::size_t N, std::size_t V,
                           std::size_t counted) {
    const float share = counted ? 1.0f / static_cast<float>(counted) : 0.0f;
    for (std::size_t n = 0; n < N; ++n) {
        float* d = d_logits + n * V;
        if (targets[n] < 0) {
            std::fill(d, d + V, 0.0f);
            continue;
        }
        for (std::size_t j = 0; j < V; ++j) d[j] = (probs[n * V + j] - (static_cast<std::int32_t>(j) == targets[n] ? 1.0f : 0.0f)) * share;
    }
}

}  // namespace mha::model
