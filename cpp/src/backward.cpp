#include "mha/backward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mha/matmul.hpp"
#include "mha/softmax.hpp"
#include "mha/tensor.hpp"

namespace mha {

namespace {

// Back through y = in·W: d_in = d_out·Wᵀ. // [rows, N] · [C, N]ᵀ → [rows, C]
void through_weights(const float* d_out, const std::vector<float>& W, std::size_t rows, std::size_t C, std::size_t N, float* d_in) {
    gemm(rows, N, C, {d_out, static_cast<std::ptrdiff_t>(N)}, {W.data(), 1, static_cast<std::ptrdiff_t>(N)}, d_in,
         static_cast<std::ptrdiff_t>(C));
}

// A weight's gradient, summed over every row (token): dW = inᵀ·d_out. // [rows, C]ᵀ · [rows, N] → [C, N]
std::vector<float> weight_gradient(const float* in, const float* d_out, std::size_t rows, std::size_t C, std::size_t N) {
    std::vector<float> dW(C * N);
    gemm(C, rows, N, {in, 1, static_cast<std::ptrdiff_t>(C)}, {d_out, static_cast<std::ptrdiff_t>(N)}, dW.data(),
         static_cast<std::ptrdiff_t>(N));
    return dW;
}

// A bias's gradient: d_out summed over every row, in row order. // [rows, N] → [N]
std::vector<float> bias_gradient(const float* d_out, std::size_t rows, std::size_t N) {
    std::vector<float> db(N, 0.0f);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t n = 0; n < N; ++n) db[n] += d_out[r * N + n];
    return db;
}

}  // namespace

void backward(const Dims& d, const KeyMask& mask, const Weights& w, ForwardTensors f, const float* dY, Recorder& rec,
              Gradients& g) {
    const std::size_t B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, Hkv = d.Hkv, D = d.D;
    const std::size_t HD = H * D, KD = Hkv * D, group = d.group();
    const auto ld_q = static_cast<std::ptrdiff_t>(HD), ld_kv = static_cast<std::ptrdiff_t>(KD), ld_c = static_cast<std::ptrdiff_t>(C);
    const auto ld_d = static_cast<std::ptrdiff_t>(D);
    const bool grouped = Hkv < H;

    // 19. The output projection, backwards: dY is given. // [B, Tq, C]
    rec.record("d_output", view_as<3>(const_cast<float*>(dY), {B, T, C}));
    // dO = dY·Woᵀ. // [B, Tq, C]; dWo = Oᵀ·dY [C, C] and dbo = Σ dY [C], recorded at the end
    tensor3 d_concat = xt::empty<float>({B, T, C});
    through_weights(dY, w.Wo, B * T, C, C, d_concat.data());
    g.weights.Wo = weight_gradient(f.concat, dY, B * T, C, C);
    if (d.bias) g.weights.bo = bias_gradient(dY, B * T, C);
    rec.record("d_concat", d_concat);

    // 18–17. Back to heads: the merge and the transpose only move values, so their gradients are
    // views of d_concat. // [B, Tq, H, D], then [B, H, Tq, D]
    auto d_context_t = view_as<4>(d_concat.data(), {B, T, H, D});
    rec.record("d_context_t", d_context_t);
    rec.record("d_context", permuted(d_context_t, {0, 2, 1, 3}));

    // 16–12, one head at a time, with the kernel the forward pass used. The head's weights A are
    // recomputed from q and k by the same operations (bit for bit the forward's), so nothing of
    // size [B, H, Tq, Tk] is kept unless a snapshot asks.
    std::vector<float> d_q(B * T * HD), d_k(B * Tk * KD), d_v(B * Tk * KD);
    const bool keep_shared = grouped && (rec.records("d_k_shared") || rec.records("d_v_shared") || rec.records("d_k_t"));
    std::vector<float> d_k_shared(keep_shared ? B * H * Tk * D : 0), d_v_shared(keep_shared ? B * H * Tk * D : 0);
    std::vector<float> A(T * Tk), work(2 * T * Tk), dk_head(grouped ? Tk * D : 0), dv_head(grouped ? Tk * D : 0);
    const shape_t per_head{T, Tk};
    const Recorder::Heads d_weights = rec.record_heads("d_weights", per_head), d_masked = rec.record_heads("d_masked", per_head),
                          d_scaled = rec.record_heads("d_scaled", per_head), d_scores = rec.record_heads("d_scores", per_head);
    const Projections projections{f.q, f.k, f.v};
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t h = 0; h < H; ++h) {
            const std::size_t kv_head = h / group;
            const HeadInput head = head_input(d, projections, b, h);
            const HeadMask head_mask{mask, b, 0, h};

            // 12–15 again: A = softmax(mask(Q·Kᵀ / √D)). // [Tq, Tk]
            head_weights(head, head_mask, A.data());

            // 16–12 backwards: dA = dO·Vᵀ, through the softmax, the mask and the scale to dS;
            // dQ = dS·K into head h's columns of d_q [Tq, D], dK = dSᵀ·Q and dV = Aᵀ·dO [Tk, D].
            float* dk_out = grouped ? dk_head.data() : d_k.data() + b * Tk * KD + kv_head * D;
            float* dv_out = grouped ? dv_head.data() : d_v.data() + b * Tk * KD + kv_head * D;
            const std::ptrdiff_t ld_out = grouped ? ld_d : ld_kv;
            const float* dO_h = d_concat.data() + b * T * C + h * D;  // [Tq, D], rows C apart
            head_backward(head, head_mask, A.data(), nullptr, dO_h, ld_c, {d_q.data() + b * T * HD + h * D, ld_q, dk_out, ld_out, dv_out, ld_out},
                          work.data(), {{d_weights.at(b, h), d_masked.at(b, h), d_scaled.at(b, h), d_scores.at(b, h)}});

            // GQA/MQA: K/V head kv_head served H/Hkv query heads, so its gradient is their sum,
            // added in head order.
            if (grouped) {
                float* dk_sum = d_k.data() + b * Tk * KD + kv_head * D;
                float* dv_sum = d_v.data() + b * Tk * KD + kv_head * D;
                const bool first = h % group == 0;
                for (std::size_t j = 0; j < Tk; ++j)
                    for (std::size_t e = 0; e < D; ++e) {
                        dk_sum[j * KD + e] = first ? dk_head[j * D + e] : dk_sum[j * KD + e] + dk_head[j * D + e];
                        dv_sum[j * KD + e] = first ? dv_head[j * D + e] : dv_sum[j * KD + e] + dv_head[j * D + e];
                    }
                if (keep_shared) {
                    std::copy(dk_head.begin(), dk_head.end(), d_k_shared.begin() + (b * H + h) * Tk * D);
                    std::copy(dv_head.begin(), dv_head.end(), d_v_shared.begin() + (b * H + h) * Tk * D);
                }
            }
        }
    }

    // 11. Kᵀ, backwards: a view of the per-query-head K gradient. // [B, H, D, Tk]
    auto d_k_split = view_as<4>(d_k.data(), {B, Tk, Hkv, D});
    auto d_v_split = view_as<4>(d_v.data(), {B, Tk, Hkv, D});
    if (grouped) {
        auto k_shared = view_as<4>(d_k_shared.data(), {B, H, Tk, D});
        rec.record("d_k_t", permuted(k_shared, {0, 1, 3, 2}));
        // –. The repeat of K/V heads, backwards: per query head, then summed over each group.
        rec.record("d_v_shared", view_as<4>(d_v_shared.data(), {B, H, Tk, D}));
        rec.record("d_k_shared", k_shared);
    } else {
        rec.record("d_k_t", permuted(d_k_split, {0, 2, 3, 1}));
    }

    // 10–8. The heads of dV, dK, dQ: views of their [B, T, heads·D] buffers. // [B, heads, T, D]
    rec.record("d_v_heads", permuted(d_v_split, {0, 2, 1, 3}));
    rec.record("d_k_heads", permuted(d_k_split, {0, 2, 1, 3}));
    auto d_q_split = view_as<4>(d_q.data(), {B, T, H, D});
    rec.record("d_q_heads", permuted(d_q_split, {0, 2, 1, 3}));
    // 7–5. Tokens first again, then the heads merged: the same buffers. // [B, T, heads, D], [B, T, heads·D]
    rec.record("d_v_split", d_v_split);
    rec.record("d_k_split", d_k_split);
    rec.record("d_q_split", d_q_split);
    rec.record("d_v", view_as<3>(d_v.data(), {B, Tk, KD}));
    rec.record("d_k", view_as<3>(d_k.data(), {B, Tk, KD}));
    rec.record("d_q", view_as<3>(d_q.data(), {B, T, HD}));

    // 4–2. The projections, backwards: each input row's gradient through each weight, and each
    // weight's gradient summed over every token.
    g.weights.Wq = weight_gradient(f.x, d_q.data(), B * T, C, HD);
    g.weights.Wk = weight_gradient(f.source, d_k.data(), B * Tk, C, KD);
    g.weights.Wv = weight_gradient(f.source, d_v.data(), B * Tk, C, KD);
    if (d.bias) {
        g.weights.bq = bias_gradient(d_q.data(), B * T, HD);
        g.weights.bk = bias_gradient(d_k.data(), B * Tk, KD);
        g.weights.bv = bias_gradient(d_v.data(), B * Tk, KD);
    }
    // K and V were computed from the source: dS_src = dK·Wkᵀ + dV·Wvᵀ. // [B, Tk, C]
    std::vector<float> from_k(B * Tk * C), from_v(B * Tk * C);
    through_weights(d_k.data(), w.Wk, B * Tk, C, KD, from_k.data());
    through_weights(d_v.data(), w.Wv, B * Tk, C, KD, from_v.data());
    for (std::size_t i = 0; i < from_k.size(); ++i) from_k[i] += from_v[i];
    // 1. dX = dQ·Wqᵀ, plus dK·Wkᵀ + dV·Wvᵀ in self-attention, where the source is X. // [B, T, C]
    g.x.resize(B * T * C);
    through_weights(d_q.data(), w.Wq, B * T, C, HD, g.x.data());
    if (d.cross) {
        g.kv = std::move(from_k);
        rec.record("d_source", view_as<3>(g.kv.data(), {B, Tk, C}));
    } else {
        for (std::size_t i = 0; i < g.x.size(); ++i) g.x[i] += from_k[i];
    }
    rec.record("d_x", view_as<3>(g.x.data(), {B, T, C}));

    // The parameters' gradients, in the layout of the config's weights.
    rec.record("d_wq", view_as<2>(g.weights.Wq.data(), {C, HD}));
    rec.record("d_wk", view_as<2>(g.weights.Wk.data(), {C, KD}));
    rec.record("d_wv", view_as<2>(g.weights.Wv.data(), {C, KD}));
    rec.record("d_wo", view_as<2>(g.weights.Wo.data(), {C, C}));
    if (d.bias) {
        rec.record("d_bq", view_as<1>(g.weights.bq.data(), {HD}));
        rec.record("d_bk", view_as<1>(g.weights.bk.data(), {KD}));
        rec.record("d_bv", view_as<1>(g.weights.bv.data(), {KD}));
        rec.record("d_bo", view_as<1>(g.weights.bo.data(), {C}));
    }
}

}  // namespace mha
