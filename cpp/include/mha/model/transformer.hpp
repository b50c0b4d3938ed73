#pragma once
/// @file transformer.hpp
/// @brief The tiny transformer: token and learned position embeddings, L blocks of (optional
///        pre-LayerNorm → multi-head self-attention → residual, then an optional pre-LayerNorm →
///        ReLU MLP of width 4C → residual), an optional final LayerNorm, an unembedding to V logits
///        and cross-entropy on the positions that have a target. Parameters live in one flat
///        float32 vector (ParamLayout says where each tensor is), in the walkthrough's convention
///        Q = X·Wq + bq, so one layer's attention is an mha::Config's weights as they are.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../seeded.hpp"

namespace mha::model {

struct ModelShape {
    std::size_t vocab = 16, T = 16, C = 32, heads = 1, layers = 1;
    bool mlp = false;        ///< a ReLU MLP (C → 4C → C) after each attention
    bool layernorm = true;   ///< pre-LayerNorm before each sublayer and before the unembedding
    bool causal = false;     ///< queries see only keys at or before their position
    std::size_t D() const { return C / heads; }
};

constexpr std::size_t absent = static_cast<std::size_t>(-1);

/// Where each tensor of a layer starts in the flat parameter vector (`absent` when not there).
struct LayerParams {
    std::size_t ln1_gain, ln1_bias, Wq, bq, Wk, bk, Wv, bv, Wo, bo;  ///< Wq … Wo [C, C], biases [C]
    std::size_t ln2_gain, ln2_bias, W1, b1, W2, b2;                    ///< W1 [C, 4C], b1 [4C], W2 [4C, C], b2 [C]
};

/// One named tensor of the layout, for initialisation and for the README's table.
struct ParamTensor {
    std::string name;  ///< "tok", "pos", "layer0.Wq", …, "unembed", "unembed_bias"
    std::size_t offset, size, fan_in;
    enum Kind { embedding, weight, bias, gain, shift } kind;
};

struct ParamLayout {
    std::size_t tok, pos;  ///< [V, C], [T, C]
    std::vector<LayerParams> layers;
    std::size_t lnf_gain, lnf_bias, Wu, bu;  ///< [C], [C], [C, V], [V]
    std::vector<ParamTensor> tensors;
    std::size_t total = 0;
};

ParamLayout layout_of(const ModelShape& shape);

/// @brief Seeded initial parameters: embeddings uniform with variance 1, each linear weight and
///        bias uniform in ±1/√fan_in (as nn.Linear), LayerNorm gains 1 and shifts 0. Tensor i
///        draws from its own mulberry32 stream.
std::vector<float> initial_parameters(const ModelShape& shape, const ParamLayout& layout, std::uint32_t seed);

/// What the forward pass keeps for the backward pass, for a batch of B sequences.
struct LayerActivations {
    std::vector<float> in, ln1, ln1_mean, ln1_rstd, q, k, v, weights, keep, concat, attn, mid;
    std::vector<float> ln2, ln2_mean, ln2_rstd, fc, fc_relu, mlp_out, out;
};
struct Activations {
    std::size_t B = 0;
    std::vector<std::int32_t> tokens, targets;  ///< [B, T]; a target of −1 is not scored
    std::vector<LayerActivations> layers;
    std::vector<float> lnf, lnf_mean, lnf_rstd, logits, probs;
};

struct ForwardResult {
    double loss = 0;
    std::size_t correct = 0, counted = 0;
};

/// @brief The forward pass over `tokens` [B, T]; with `dropout` > 0 and an rng, dropout on the
///        attention weights (training). Keeps what the backward pass needs in `acts`.
ForwardResult forward(const ModelShape& shape, const ParamLayout& layout, const std::vector<float>& params, Activations& acts,
                      float dropout, Mulberry32* rng);

/// @brief The gradient of the mean loss of the last forward pass with respect to every parameter,
///        into `grads` (same layout, overwritten). With `d_attention_of` ≥ 0, also copies the
///        gradient of that layer's attention output (the MHA block's dOutput) into `d_attention`.
void backward(const ModelShape& shape, const ParamLayout& layout, const std::vector<float>& params, const Activations& acts,
              std::vector<float>& grads, long d_attention_of = -1, std::vector<float>* d_attention = nullptr);

}  // namespace mha::model
