#include "mha/forward.hpp"

#include <cmath>

#include "mha/attention.hpp"
#include "mha/backward.hpp"
#include "mha/attention_incremental.hpp"
#include "mha/attention_tiled.hpp"
#include "mha/catalogue.hpp"
#include "mha/matmul.hpp"
#include "mha/recorder.hpp"
#include "mha/seeded.hpp"
#include "mha/tensor.hpp"

namespace mha {
namespace {

// [B, L, C] · [C, N] + [N] → [B, L, N]
tensor3 project(const float* in, std::size_t B, std::size_t L, std::size_t C, const std::vector<float>& W,
                const std::vector<float>& b, std::size_t N) {
    tensor3 out = xt::empty<float>({B, L, N});
    batched_matmul(in, W.data(), out.data(), 1, B * L, C, N, b.empty() ? nullptr : b.data());
    return out;
}

// Each batch row's K (or V) with the appended keys after its own, in PyTorch's order: add_bias_kv's
// learned row (torch.cat([k, bias_k.repeat(1, bsz, 1)])), then add_zero_attn's row of zeros.
// // [B, Tk, Hkv·D] → [B, Tk + appended, Hkv·D]
std::vector<float> append_key(const tensor3& projected, const std::vector<float>& row, const Dims& d) {
    const std::size_t KD = d.Hkv * d.D, keys = d.keys();
    std::vector<float> out(d.B * keys * KD, 0.0f);  // the zero key stays 0
    for (std::size_t b = 0; b < d.B; ++b) {
        std::copy_n(projected.data() + b * d.Tk * KD, d.Tk * KD, out.data() + b * keys * KD);
        if (d.bias_kv) std::copy(row.begin(), row.end(), out.data() + (b * keys + d.Tk) * KD);
    }
    return out;
}

// GQA/MQA: each K/V head copied for each of the H/Hkv query heads it serves. // [B, H, Tk, D]
template <class Heads>
tensor4 repeat_heads(const Heads& heads, const Dims& d) {
    tensor4 shared = xt::empty<float>({d.B, d.H, d.keys(), d.D});
    for (std::size_t h = 0; h < d.H; ++h)
        xt::view(shared, xt::all(), h, xt::all(), xt::all()) = xt::view(heads, xt::all(), h / d.group(), xt::all(), xt::all());
    return shared;
}

Trace start_trace(const Config& config, const Dims& d, Weights&& weights) {
    Trace trace;
    trace.dims = d;
    trace.bias = config.bias;
    trace.mask = config.mask;
    if (config.key_lengths) trace.key_lengths = *config.key_lengths;
    if (config.attn_mask) {
        trace.attn_mask_form = static_cast<double>(config.attn_mask->form);
        trace.attn_mask_shape = config.attn_mask->shape;
    }
    if (config.key_padding_mask) trace.key_padding_mask_form = static_cast<double>(config.key_padding_mask->form);
    trace.weights = std::move(weights);
    trace.parameter_count = parameter_count(d, config.bias);
    trace.kv_cache_bytes_per_token = kv_cache_bytes_per_token(d);
    trace.snapshot_bytes = snapshot_bytes(d);
    for (const StepSpec& step : catalogue())
        if (appears(step, d)) trace.flops += step_flops(step, d);
    return trace;
}

// The forward pass of a validated config whose parameters are resolved, in the README's numbered
// steps. Each step is computed, then handed to the recorder, which keeps what the caller asked for.
Trace forward_pass(const Config& config, const RunOptions& options, const Dims& d, Weights&& weights) {
    const std::size_t B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, Hkv = d.Hkv, D = d.D;
    Trace trace = start_trace(config, d, std::move(weights));
    const Weights& w = trace.weights;
    const KeyMask mask = key_mask(config, d);
    Recorder rec(trace, config, options, mask.masks_a_key());

    // 1. Input. // [B, T, C]
    const std::vector<float> seeded_x = config.x ? std::vector<float>() : seeded_values(config.seed, Stream::x, B * T * C, 1.0f);
    const float* x_values = config.x ? config.x->data() : seeded_x.data();
    rec.record("x", view_as<3>(const_cast<float*>(x_values), {B, T, C}));

    // –. Incremental decoding takes the tokens one at a time from here on (attention_incremental.cpp).
    if (d.algorithm == Algorithm::incremental) {
        decode(d, mask, x_values, w, rec, trace.output, trace.warnings);
        if (rec.done()) trace.output.clear();  // a request for one step stops decoding there
        return trace;
    }

    // –. Cross-attention reads K and V from a source sequence of its own. // [B, Tk, C]
    std::vector<float> seeded_source;
    if (d.cross && !config.kv) seeded_source = seeded_values(config.seed, Stream::kv, B * Tk * C, 1.0f);
    const float* source = !d.cross ? x_values : config.kv ? config.kv->data() : seeded_source.data();
    if (d.cross) rec.record("source", view_as<3>(const_cast<float*>(source), {B, Tk, C}));

    // 2–4. Projections. // q [B, T, H·D]; k, v [B, Tk, Hkv·D]
    const tensor3 q = project(x_values, B, T, C, w.Wq, w.bq, H * D);
    rec.record("q", q);
    const tensor3 k = project(source, B, Tk, C, w.Wk, w.bk, Hkv * D);
    rec.record("k", k);
    const tensor3 v = project(source, B, Tk, C, w.Wv, w.bv, Hkv * D);
    rec.record("v", v);

    // 5–7. Split the last axis into heads: a view of the same buffer. // [B, T, H, D], [B, Tk, Hkv, D]
    auto q_split = view_as<4>(const_cast<float*>(q.data()), {B, T, H, D});
    auto k_split = view_as<4>(const_cast<float*>(k.data()), {B, Tk, Hkv, D});
    auto v_split = view_as<4>(const_cast<float*>(v.data()), {B, Tk, Hkv, D});
    rec.record("q_split", q_split);
    rec.record("k_split", k_split);
    rec.record("v_split", v_split);

    // 8–10. Heads first, so that each head is a [T, D] matrix: a view with permuted strides; the
    // products below read each head straight out of q, k and v. // [B, H, T, D], [B, Hkv, Tk, D]
    auto q_heads = permuted(q_split, {0, 2, 1, 3});
    auto k_heads = permuted(k_split, {0, 2, 1, 3});
    auto v_heads = permuted(v_split, {0, 2, 1, 3});
    rec.record("q_heads", q_heads);
    rec.record("k_heads", k_heads);
    rec.record("v_heads", v_heads);

    // –. add_bias_kv: the learned key and value appended to every batch row, as key Tk, which every
    // query sees (the mask never hides it). K and V are copied one key longer. // [B, Hkv, Tk+1, D]
    const std::size_t keys = d.keys();
    const std::vector<float> k_appended = d.appended ? append_key(k, w.bias_k, d) : std::vector<float>();
    const std::vector<float> v_appended = d.appended ? append_key(v, w.bias_v, d) : std::vector<float>();
    const float* const k_data = d.appended ? k_appended.data() : k.data();
    const float* const v_data = d.appended ? v_appended.data() : v.data();
    // The heads attention reads: k_heads and v_heads, or the appended ones.
    auto k_seen = permuted(view_as<4>(const_cast<float*>(k_data), {B, keys, Hkv, D}), {0, 2, 1, 3});
    auto v_seen = permuted(view_as<4>(const_cast<float*>(v_data), {B, keys, Hkv, D}), {0, 2, 1, 3});
    if (d.appended) {
        rec.record("k_appended", k_seen);
        rec.record("v_appended", v_seen);
    }

    // –. GQA/MQA: each K/V head serves H/Hkv query heads. The products read head h / (H/Hkv) in
    // place; the repeated copy is made only for its snapshot (and for Kᵀ's). // [B, H, Tk, D]
    const bool grouped = Hkv < H;
    if (grouped && (rec.records("k_shared") || rec.records("v_shared") || rec.records("k_t"))) {
        const tensor4 k_shared = repeat_heads(k_seen, d);
        rec.record("k_shared", k_shared);
        if (rec.records("v_shared")) rec.record("v_shared", repeat_heads(v_seen, d));
        // 11. Kᵀ per head: the last two axes swapped, a view again. // [B, H, D, Tk]
        rec.record("k_t", permuted(k_shared, {0, 1, 3, 2}));
    } else if (!grouped) {
        rec.record("k_t", permuted(k_seen, {0, 1, 3, 2}));
    }
    if (rec.done()) return trace;

    // 12–16. Attention, one head at a time: scores, scale, mask, softmax and the weighted sum of
    // the values, each head's context written into its columns of concat (attention.cpp); or the
    // same computed tile by tile with an online softmax (attention_tiled.cpp).
    tensor3 concat = xt::empty<float>({B, T, C});
    if (d.algorithm == Algorithm::tiled)
        attend_tiled(d, mask, {q.data(), k_data, v_data}, concat.data(), rec, trace.warnings, trace.tiles);
    else
        attend(d, mask, {q.data(), k_data, v_data}, concat.data(), rec, trace.warnings);
    if (rec.done()) return trace;

    // 16. The context as its own tensor, heads first, for its snapshot (a tiled run recorded it as
    // tile_context). // [B, H, Tq, D]
    auto context_t = view_as<4>(concat.data(), {B, T, H, D});
    tensor4 context;
    if (rec.records("context") || rec.records("context_t")) context = permuted(context_t, {0, 2, 1, 3});
    rec.record("context", context);

    // 17. Tokens first again: a view with permuted strides, not contiguous. // [B, Tq, H, D]
    rec.record("context_t", permuted(context, {0, 2, 1, 3}));

    // 18. Merge the heads: a transposed view cannot be reshaped in place, so this copies (step 16
    // already wrote each head into its place). // [B, Tq, C]
    rec.record("concat", concat);

    // 19. The output projection mixes the heads' features. // [B, Tq, C]
    const tensor3 output = project(concat.data(), B, T, C, w.Wo, w.bo, C);
    rec.record("output", output);
    trace.output.assign(output.begin(), output.end());

    // 19 … 1 backwards, when dOutput is given (backward.cpp).
    if (d.backward)
        backward(d, mask, w, {x_values, source, q.data(), k.data(), v.data(), concat.data()}, config.d_output->data(), rec,
                 trace.gradients);
    return trace;
}

}  // namespace

Weights resolve_weights(const Config& config, const Dims& d) {
    if (config.weights) return *config.weights;
    const float bound = 1.0f / std::sqrt(static_cast<float>(d.C));
    const std::size_t HD = d.H * d.D, KD = d.Hkv * d.D;
    Weights w;
    w.Wq = seeded_values(config.seed, Stream::Wq, d.C * HD, bound);
    w.Wk = seeded_values(config.seed, Stream::Wk, d.C * KD, bound);
    w.Wv = seeded_values(config.seed, Stream::Wv, d.C * KD, bound);
    w.Wo = seeded_values(config.seed, Stream::Wo, d.C * d.C, bound);
    if (config.bias) {
        w.bq = seeded_values(config.seed, Stream::bq, HD, bound);
        w.bk = seeded_values(config.seed, Stream::bk, KD, bound);
        w.bv = seeded_values(config.seed, Stream::bv, KD, bound);
        w.bo = seeded_values(config.seed, Stream::bo, d.C, bound);
    }
    if (d.bias_kv) {
        w.bias_k = seeded_values(config.seed, Stream::bias_k, KD, bound);
        w.bias_v = seeded_values(config.seed, Stream::bias_v, KD, bound);
    }
    return w;
}

Trace forward(const Config& config, const RunOptions& options) {
    const Dims d = validate(config, options);
    return forward_pass(config, options, d, resolve_weights(config, d));
}

Trace forward(Config&& config, const RunOptions& options) {
    const Dims d = validate(config, options);
    // Explicit weights move into the trace instead of being copied (9 MiB at C=768).
    Weights weights = config.weights ? std::move(*config.weights) : resolve_weights(config, d);
    config.weights.reset();
    return forward_pass(config, options, d, std::move(weights));
}

}  // namespace mha
