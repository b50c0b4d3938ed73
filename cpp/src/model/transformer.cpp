#include "mha/model/transformer.hpp"

#include <algorithm>
#include <cmath>

#include "mha/model/layers.hpp"

namespace mha::model {

ParamLayout layout_of(const ModelShape& s) {
    ParamLayout p;
    const std::size_t C = s.C, V = s.vocab, F = 4 * C;
    auto add = [&](const std::string& name, std::size_t size, std::size_t fan_in, ParamTensor::Kind kind) {
        p.tensors.push_back({name, p.total, size, fan_in, kind});
        p.total += size;
        return p.tensors.back().offset;
    };
    p.tok = add("tok", V * C, 1, ParamTensor::embedding);
    p.pos = add("pos", s.T * C, 1, ParamTensor::embedding);
    for (std::size_t l = 0; l < s.layers; ++l) {
        const std::string at = "layer" + std::to_string(l) + ".";
        LayerParams L{};
        L.ln1_gain = s.layernorm ? add(at + "ln1.gain", C, 1, ParamTensor::gain) : absent;
        L.ln1_bias = s.layernorm ? add(at + "ln1.bias", C, 1, ParamTensor::shift) : absent;
        L.Wq = add(at + "Wq", C * C, C, ParamTensor::weight);
        L.bq = add(at + "bq", C, C, ParamTensor::bias);
        L.Wk = add(at + "Wk", C * C, C, ParamTensor::weight);
        L.bk = add(at + "bk", C, C, ParamTensor::bias);
        L.Wv = add(at + "Wv", C * C, C, ParamTensor::weight);
        L.bv = add(at + "bv", C, C, ParamTensor::bias);
        L.Wo = add(at + "Wo", C * C, C, ParamTensor::weight);
        L.bo = add(at + "bo", C, C, ParamTensor::bias);
        L.ln2_gain = s.mlp && s.layernorm ? add(at + "ln2.gain", C, 1, ParamTensor::gain) : absent;
        L.ln2_bias = s.mlp && s.layernorm ? add(at + "ln2.bias", C, 1, ParamTensor::shift) : absent;
        L.W1 = s.mlp ? add(at + "W1", C * F, C, ParamTensor::weight) : absent;
        L.b1 = s.mlp ? add(at + "b1", F, C, ParamTensor::bias) : absent;
        L.W2 = s.mlp ? add(at + "W2", F * C, F, ParamTensor::weight) : absent;
        L.b2 = s.mlp ? add(at + "b2", C, F, ParamTensor::bias) : absent;
        p.layers.push_back(L);
    }
    p.lnf_gain = s.layernorm ? add("lnf.gain", C, 1, ParamTensor::gain) : absent;
    p.lnf_bias = s.layernorm ? add("lnf.bias", C, 1, ParamTensor::shift) : absent;
    p.Wu = add("unembed", C * V, C, ParamTensor::weight);
    p.bu = add("unembed_bias", V, C, ParamTensor::bias);
    return p;
}

std::vector<float> initial_parameters(const ModelShape&, const ParamLayout& layout, std::uint32_t seed) {
    std::vector<float> params(layout.total);
    for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
        const ParamTensor& t = layout.tensors[i];
        // Streams 100, 101, …: apart from the attention walkthrough's seeded tensors (1–10).
        Mulberry32 rng(seed ^ (static_cast<std::uint32_t>(100 + i) * 0x9E3779B9u));
        const float bound = t.kind == ParamTensor::embedding ? std::sqrt(3.0f) : 1.0f / std::sqrt(static_cast<float>(t.fan_in));
        for (std::size_t j = 0; j < t.size; ++j) {
            float& value = params[t.offset + j];
            if (t.kind == ParamTensor::gain) value = 1.0f;
            else if (t.kind == ParamTensor::shift) value = 0.0f;
            else value = rng.uniform() * bound;
        }
    }
    return params;
}

namespace {

void ensure(std::vector<float>& v, std::size_t n) {
    if (v.size() != n) v.assign(n, 0.0f);
}

}  // namespace

ForwardResult forward(const ModelShape& s, const ParamLayout& p, const std::vector<float>& params, Activations& a, float dropout,
                      Mulberry32* rng) {
    const std::size_t B = a.B, T = s.T, C = s.C, H = s.heads, V = s.vocab, F = 4 * C, N = B * T;
    const float* W = params.data();
    a.layers.resize(s.layers);
    const bool drop = dropout > 0.0f && rng;
    const AttentionShape shape{B, T, C, H, s.causal};
    std::vector<float> scratch;

    // 1. Embeddings: each token's row plus its position's row. // [B, T, C]
    std::vector<float> x(N * C);
    embedding_forward(x.data(), a.tokens.data(), W + p.tok, W + p.pos, B, T, C);

    for (std::size_t l = 0; l < s.layers; ++l) {
        const LayerParams& P = p.layers[l];
        LayerActivations& L = a.layers[l];
        L.in = std::move(x);  // [B, T, C]
        // 2. Pre-LayerNorm (or the residual stream as it is). // [B, T, C]
        const float* h = L.in.data();
        if (s.layernorm) {
            ensure(L.ln1, N * C); ensure(L.ln1_mean, N); ensure(L.ln1_rstd, N);
            layernorm_forward(L.ln1.data(), L.ln1_mean.data(), L.ln1_rstd.data(), h, W + P.ln1_gain, W + P.ln1_bias, N, C);
            h = L.ln1.data();
        }
        // 3. The attention block of the walkthrough: Q, K, V, softmax(Q·Kᵀ/√D) [B, H, T, T], A·V, Wo.
        ensure(L.q, N * C); ensure(L.k, N * C); ensure(L.v, N * C);
        linear_forward(L.q.data(), h, W + P.Wq, W + P.bq, N, C, C);
        linear_forward(L.k.data(), h, W + P.Wk, W + P.bk, N, C, C);
        linear_forward(L.v.data(), h, W + P.Wv, W + P.bv, N, C, C);
        ensure(L.weights, B * H * T * T);
        if (drop) {
            ensure(L.keep, B * H * T * T);
            dropout_mask(L.keep.data(), L.keep.size(), dropout, *rng);
        } else {
            L.keep.clear();
        }
        ensure(L.concat, N * C);
        attention_forward(L.concat.data(), L.weights.data(), drop ? L.keep.data() : nullptr, L.q.data(), L.k.data(), L.v.data(), shape,
                          scratch);
        ensure(L.attn, N * C);
        linear_forward(L.attn.data(), L.concat.data(), W + P.Wo, W + P.bo, N, C, C);
        // 4. Residual. // [B, T, C]
        ensure(L.mid, N * C);
        residual_forward(L.mid.data(), L.in.data(), L.attn.data(), N * C);
        // 5. MLP: (LayerNorm →) C → 4C → ReLU → C, and its residual.
        if (s.mlp) {
            const float* h2 = L.mid.data();
            if (s.layernorm) {
                ensure(L.ln2, N * C); ensure(L.ln2_mean, N); ensure(L.ln2_rstd, N);
                layernorm_forward(L.ln2.data(), L.ln2_mean.data(), L.ln2_rstd.data(), h2, W + P.ln2_gain, W + P.ln2_bias, N, C);
                h2 = L.ln2.data();
            }
            ensure(L.fc, N * F); ensure(L.fc_relu, N * F); ensure(L.mlp_out, N * C);
            linear_forward(L.fc.data(), h2, W + P.W1, W + P.b1, N, C, F);  // [B, T, 4C]
            relu_forward(L.fc_relu.data(), L.fc.data(), N * F);
            linear_forward(L.mlp_out.data(), L.fc_relu.data(), W + P.W2, W + P.b2, N, F, C);  // [B, T, C]
            ensure(L.out, N * C);
            residual_forward(L.out.data(), L.mid.data(), L.mlp_out.data(), N * C);
            x = L.out;
        } else {
            x = L.mid;
        }
    }

    // 6. Final LayerNorm, the unembedding to V logits and cross-entropy. // [B, T, V]
    const float* h = x.data();
    if (s.layernorm) {
        ensure(a.lnf, N * C); ensure(a.lnf_mean, N); ensure(a.lnf_rstd, N);
        layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), h, W + p.lnf_gain, W + p.lnf_bias, N, C);
    } else {
        a.lnf = x;
    }
    ensure(a.logits, N * V); ensure(a.probs, N * V);
    linear_forward(a.logits.data(), a.lnf.data(), W + p.Wu, W + p.bu, N, C, V);
    ForwardResult r;
    r.loss = crossentropy_forward(a.probs.data(), a.logits.data(), a.targets.data(), N, V, r.correct, r.counted);
    return r;
}

void backward(const ModelShape& s, const ParamLayout& p, const std::vector<float>& params, const Activations& a, std::vector<float>& grads,
              long d_attention_of, std::vector<float>* d_attention) {
    const std::size_t B = a.B, T = s.T, C = s.C, V = s.vocab, F = 4 * C, N = B * T;
    const float* W = params.data();
    grads.assign(p.total, 0.0f);
    float* G = grads.data();
    const AttentionShape shape{B, T, C, s.heads, s.causal};
    std::vector<float> scratch, attention_scratch;

    // 6. Cross-entropy, the unembedding and the final LayerNorm, backwards. // [B, T, V] → [B, T, C]
    std::vector<float> d_logits(N * V);
    std::size_t counted = 0;
    for (std::size_t n = 0; n < N; ++n) counted += a.targets[n] >= 0;
    crossentropy_backward(d_logits.data(), a.probs.data(), a.targets.data(), N, V, counted);
    std::vector<float> d_lnf(N * C, 0.0f);
    linear_backward(d_lnf.data(), G + p.Wu, G + p.bu, d_logits.data(), a.lnf.data(), W + p.Wu, N, C, V, scratch);
    // d_x: the gradient of the residual stream, carried down through the layers.
    std::vector<float> d_x(N * C, 0.0f);
    const std::vector<float>& last = s.layers == 0 ? a.lnf : s.mlp ? a.layers.back().out : a.layers.back().mid;
    if (s.layernorm)
        layernorm_backward(d_x.data(), G + p.lnf_gain, G + p.lnf_bias, d_lnf.data(), last.data(), W + p.lnf_gain, a.lnf_mean.data(),
                           a.lnf_rstd.data(), N, C);
    else
        d_x = d_lnf;

    std::vector<float> d_h(N * C), d_concat(N * C), dq(N * C), dk(N * C), dv(N * C), d_fc(N * F), d_relu(N * F);
    for (std::size_t l = s.layers; l-- > 0;) {
        const LayerParams& P = p.layers[l];
        const LayerActivations& L = a.layers[l];
        // 5. The MLP's residual: d_x reaches the MLP's output and, unchanged, the stream below it.
        if (s.mlp) {
            std::fill(d_relu.begin(), d_relu.end(), 0.0f);
            linear_backward(d_relu.data(), G + P.W2, G + P.b2, d_x.data(), L.fc_relu.data(), W + P.W2, N, F, C, scratch);
            std::fill(d_fc.begin(), d_fc.end(), 0.0f);
            relu_backward(d_fc.data(), d_relu.data(), L.fc.data(), N * F);
            const float* h2 = s.layernorm ? L.ln2.data() : L.mid.data();
            if (s.layernorm) {
                std::fill(d_h.begin(), d_h.end(), 0.0f);
                linear_backward(d_h.data(), G + P.W1, G + P.b1, d_fc.data(), h2, W + P.W1, N, C, F, scratch);
                layernorm_backward(d_x.data(), G + P.ln2_gain, G + P.ln2_bias, d_h.data(), L.mid.data(), W + P.ln2_gain, L.ln2_mean.data(),
                                   L.ln2_rstd.data(), N, C);
            } else {
                linear_backward(d_x.data(), G + P.W1, G + P.b1, d_fc.data(), h2, W + P.W1, N, C, F, scratch);
            }
        }
        // 4–3. The attention's residual, and the attention block backwards (backward.hpp's steps):
        // Wo, then A·V, softmax, mask, scale and Q·Kᵀ per head, then Wq, Wk, Wv.
        if (d_attention && static_cast<long>(l) == d_attention_of) *d_attention = d_x;
        std::fill(d_concat.begin(), d_concat.end(), 0.0f);
        linear_backward(d_concat.data(), G + P.Wo, G + P.bo, d_x.data(), L.concat.data(), W + P.Wo, N, C, C, scratch);
        attention_backward(dq.data(), dk.data(), dv.data(), d_concat.data(), L.weights.data(), L.keep.empty() ? nullptr : L.keep.data(),
                           L.q.data(), L.k.data(), L.v.data(), shape, attention_scratch);
        const float* h = s.layernorm ? L.ln1.data() : L.in.data();
        float* d_into = s.layernorm ? d_h.data() : d_x.data();  // without LayerNorm, straight into the stream
        if (s.layernorm) std::fill(d_h.begin(), d_h.end(), 0.0f);
        linear_backward(d_into, G + P.Wq, G + P.bq, dq.data(), h, W + P.Wq, N, C, C, scratch);
        linear_backward(d_into, G + P.Wk, G + P.bk, dk.data(), h, W + P.Wk, N, C, C, scratch);
        linear_backward(d_into, G + P.Wv, G + P.bv, dv.data(), h, W + P.Wv, N, C, C, scratch);
        // 2. Pre-LayerNorm, backwards, into the stream (whose own path adds the identity).
        if (s.layernorm)
            layernorm_backward(d_x.data(), G + P.ln1_gain, G + P.ln1_bias, d_h.data(), L.in.data(), W + P.ln1_gain, L.ln1_mean.data(),
                               L.ln1_rstd.data(), N, C);
    }
    // 1. Embeddings: each position's gradient to its token's row and to its position's row.
    embedding_backward(G + p.tok, G + p.pos, d_x.data(), a.tokens.data(), B, T, C);
}

}  // namespace mha::model
