#pragma once
/// @file layers.hpp
/// @brief The tiny transformer's operations, each forward beside its backward (as llm.c's
///        train_gpt2.c): embeddings, LayerNorm, linear layers, causal or full self-attention with
///        dropout on its weights, ReLU, the residual add, and softmax cross-entropy. Every tensor is
///        float32 and row-major; every loop sums in a fixed order and every function used (exp,
///        log, sqrt) is the engine's own or exact, so native, wasm-under-Node and Chromium runs give
///        the same bits. A backward function *adds* into the gradients of its inputs and
///        parameters (they start at zero each step), because a tensor used twice (the residual
///        stream) gathers a gradient from each use.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../seeded.hpp"

namespace mha::model {

/// ln(x) for x > 0 in double, from its exponent and a series (only + − × ÷): the same bits
/// natively and in WebAssembly, unlike each platform's libm.
double log_positive(double x);

// --- Embeddings: x[b, t] = tok[tokens[b, t]] + pos[t] // [B, T, C] -------------------------------
void embedding_forward(float* x, const std::int32_t* tokens, const float* tok, const float* pos, std::size_t B, std::size_t T,
                       std::size_t C);
void embedding_backward(float* d_tok, float* d_pos, const float* d_x, const std::int32_t* tokens, std::size_t B, std::size_t T,
                        std::size_t C);

// --- LayerNorm over C, with gain and bias // [N, C] → [N, C]; mean and 1/σ kept per row [N] ------
void layernorm_forward(float* out, float* mean, float* rstd, const float* in, const float* gain, const float* bias, std::size_t N,
                       std::size_t C);
void layernorm_backward(float* d_in, float* d_gain, float* d_bias, const float* d_out, const float* in, const float* gain,
                        const float* mean, const float* rstd, std::size_t N, std::size_t C);

// --- Linear: out = in·W + b // [N, K] · [K, M] + [M] → [N, M] (the engine's GEMM) ---------------
void linear_forward(float* out, const float* in, const float* W, const float* b, std::size_t N, std::size_t K, std::size_t M);
/// d_in += d_out·Wᵀ (if d_in), dW += inᵀ·d_out, db += Σ_rows d_out (if db). `scratch` holds
/// max(N·K, K·M) floats.
void linear_backward(float* d_in, float* dW, float* db, const float* d_out, const float* in, const float* W, std::size_t N,
                     std::size_t K, std::size_t M, std::vector<float>& scratch);

// --- Self-attention of H heads over q, k, v [B, T, C] → concat [B, T, C] ----------------------------
struct AttentionShape {
    std::size_t B, T, C, H;
    bool causal;
};
/// weights [B, H, T, T] = softmax(mask(Q·Kᵀ/√D)); with `keep` (dropout in training: 0 or 1/(1−p)
/// per weight, [B, H, T, T]) the values are mixed by weights ⊙ keep. `keep` may be null.
void attention_forward(float* concat, float* weights, const float* keep, const float* q, const float* k, const float* v,
                       const AttentionShape& s, std::vector<float>& scratch);
/// dq, dk, dv [B, T, C] (overwritten) from d_concat; the weights as the forward kept them.
void attention_backward(float* dq, float* dk, float* dv, const float* d_concat, const float* weights, const float* keep,
                        const float* q, const float* k, const float* v, const AttentionShape& s, std::vector<float>& scratch);
/// Dropout on the attention weights: each kept with probability 1 − p and scaled by 1/(1 − p).
void dropout_mask(float* keep, std::size_t count, float p, Mulberry32& rng);

// --- ReLU, and the residual add ----------------------------------------------------------------------
void relu_forward(float* out, const float* in, std::size_t n);
void relu_backward(float* d_in, const float* d_out, const float* in, std::size_t n);
void residual_forward(float* out, const float* a, const float* b, std::size_t n);

// --- Softmax cross-entropy over the vocabulary, averaged over the positions that have a target ---
/// logits [N, V], targets [N] (−1: no target). Writes probs [N, V]; returns the mean loss over
/// the targets (0 if there are none) and counts the targets the argmax gets right in `correct`.
double crossentropy_forward(float* probs, const float* logits, const std::int32_t* targets, std::size_t N, std::size_t V,
                            std::size_t& correct, std::size_t& counted);
/// d_logits = (probs − onehot) / count at positions with a target, 0 elsewhere.
void crossentropy_backward(float* d_logits, const float* probs, const std::int32_t* targets, std::size_t N, std::size_t V,
                           std::size_t counted);

}  // namespace mha::model
