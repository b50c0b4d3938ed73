#include "mha/forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "mha/matmul.hpp"
#include "mha/seeded.hpp"
#include "mha/tensor.hpp"

namespace mha {
namespace {

std::string shape_text(const shape_t& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
}

template <class E>
shape_t shape_of(const E& e) {
    return shape_t(e.shape().begin(), e.shape().end());
}

// Row-major contiguity, ignoring axes of extent 1 (xtensor gives those stride 0).
bool is_contiguous(const shape_t& shape, const strides_t& strides) {
    std::ptrdiff_t expected = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (shape[i] == 1) continue;
        if (strides[i] != expected) return false;
        expected *= static_cast<std::ptrdiff_t>(shape[i]);
    }
    return true;
}

// True if `produced` holds a value that `input` does not: what a reshape, transpose or repeat
// never does, and a projection or softmax always does.
bool has_new_values(const std::vector<float>& produced, const std::vector<float>& input) {
    std::vector<float> known(input);
    std::sort(known.begin(), known.end());
    return std::any_of(produced.begin(), produced.end(), [&](float value) {
        return !std::binary_search(known.begin(), known.end(), value);
    });
}

struct StepInfo {
    const char* id;
    const char* title;
    const char* op;
    std::string formula;
    std::vector<std::string> axes;
    const char* input_id = nullptr;  // the step whose values this one is compared with
    double flops = 0;
};

// Records snapshots into a trace, or nothing at all when snapshots are off.
class Recorder {
public:
    Recorder(Trace& trace, bool enabled) : trace_(trace), enabled_(enabled) {}

    // `produced` is the tensor as the step left it: a container, or a view whose strides are
    // those xtensor reports for that view.
    template <class E>
    void record(StepInfo info, const E& produced, const std::string& operands = "") {
        trace_.flops += info.flops;
        if (!enabled_) return;
        Snapshot s;
        s.id = info.id;
        s.title = info.title;
        s.op = info.op;
        s.formula = std::move(info.formula);
        s.shape = shape_of(produced);
        s.axes = std::move(info.axes);
        s.strides = strides_t(produced.strides().begin(), produced.strides().end());
        s.contiguous = is_contiguous(s.shape, s.strides);
        s.numel = produced.size();
        s.data.resize(s.numel);
        std::copy(produced.begin(), produced.end(), s.data.begin());  // row-major order of the shape
        s.bytes = s.numel * sizeof(float);
        s.flops = info.flops;
        s.shape_formula = operands.empty() ? shape_text(s.shape) : operands + " → " + shape_text(s.shape);
        s.changes_values = info.input_id && has_new_values(s.data, trace_.step(info.input_id).data);
        trace_.snapshot_bytes += s.bytes;
        trace_.steps.push_back(std::move(s));
    }

private:
    Trace& trace_;
    bool enabled_;
};

Weights resolve_weights(const Config& config, const Dims& d) {
    if (config.weights) return *config.weights;
    // Like PyTorch's nn.Linear, uniform in ±1/√C so that activations keep their scale.
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
    return w;
}

tensor3 as_tensor3(const std::vector<float>& values, std::size_t d0, std::size_t d1, std::size_t d2) {
    tensor3 t = xt::empty<float>({d0, d1, d2});
    std::copy(values.begin(), values.end(), t.begin());
    return t;
}

// [B, L, C_in] · [C_in, N] + [N] → [B, L, N]
tensor3 project(const tensor3& in, const std::vector<float>& W, const std::vector<float>& b, std::size_t N) {
    tensor3 out = xt::empty<float>({in.shape(0), in.shape(1), N});
    batched_matmul(in.data(), W.data(), out.data(), 1, in.shape(0) * in.shape(1), in.shape(2), N,
                   b.empty() ? nullptr : b.data());
    return out;
}

double projection_flops(std::size_t rows, std::size_t in, std::size_t out, bool bias) {
    return 2.0 * rows * in * out + (bias ? 1.0 * rows * out : 0.0);
}

// Query head h reads key/value head h / group: [B, Hkv, L, D] → [B, H, L, D], a copy.
tensor4 share_heads(const tensor4& kv_heads, std::size_t group) {
    const std::size_t B = kv_heads.shape(0), Hkv = kv_heads.shape(1), L = kv_heads.shape(2), D = kv_heads.shape(3);
    tensor4 shared = xt::empty<float>({B, Hkv * group, L, D});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < Hkv * group; ++h)
            std::copy_n(&kv_heads(b, h / group, 0, 0), L * D, &shared(b, h, 0, 0));
    return shared;
}

}  // namespace

Trace forward(const Config& config) {
    const Dims d = validate(config);
    const std::size_t B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, Hkv = d.Hkv, D = d.D;
    const std::string S = d.cross ? "S" : "X";  // the sequence K and V are computed from
    // K and V have their own head count only under GQA/MQA; in plain MHA their axes read H.
    const std::string Hk = Hkv < H ? "Hkv" : "H", HkD = Hk + "·D";

    Trace trace;
    trace.dims = d;
    trace.bias = config.bias;
    trace.mask = config.mask;
    if (config.key_lengths) trace.key_lengths = *config.key_lengths;
    trace.weights = resolve_weights(config, d);
    trace.parameter_count = parameter_count(d, config.bias);
    trace.kv_cache_bytes_per_token = kv_cache_bytes_per_token(d);
    const Weights& w = trace.weights;
    Recorder rec(trace, config.snapshots);
    const std::string b_or_nothing = config.bias ? " + b" : "";

    // 1. Input. // [B, T, C]
    tensor3 x = as_tensor3(config.x ? *config.x : seeded_values(config.seed, Stream::x, B * T * C, 1.0f), B, T, C);
    rec.record({"x", "Input X", "input", "X", {"B", "T", "C"}}, x);

    // Cross-attention reads K and V from a separate source sequence. // [B, Tk, C]
    tensor3 source;
    if (d.cross) {
        source = as_tensor3(config.kv ? *config.kv : seeded_values(config.seed, Stream::kv, B * Tk * C, 1.0f), B, Tk, C);
        rec.record({"source", "Source sequence S (cross-attention)", "input", "S", {"B", "Tk", "C"}}, source);
    }
    const tensor3& kv_in = d.cross ? source : x;
    const char* kv_in_id = d.cross ? "source" : "x";

    // 2. Projections. // q [B, T, H·D]; k, v [B, Tk, Hkv·D]
    tensor3 q = project(x, w.Wq, w.bq, H * D);
    tensor3 k = project(kv_in, w.Wk, w.bk, Hkv * D);
    tensor3 v = project(kv_in, w.Wv, w.bv, Hkv * D);
    const std::string wq_shape = shape_text({C, H * D}), wk_shape = shape_text({C, Hkv * D});
    auto bias_text = [&](std::size_t n) { return config.bias ? " + " + shape_text({n}) : std::string(); };
    rec.record({"q", "Query projection", "projection", "Q = X·Wq" + b_or_nothing + "q", {"B", "T", "H·D"}, "x",
                projection_flops(B * T, C, H * D, config.bias)},
               q, shape_text({B, T, C}) + " @ " + wq_shape + bias_text(H * D));
    rec.record({"k", "Key projection", "projection", "K = " + S + "·Wk" + b_or_nothing + "k", {"B", "Tk", HkD},
                kv_in_id, projection_flops(B * Tk, C, Hkv * D, config.bias)},
               k, shape_text({B, Tk, C}) + " @ " + wk_shape + bias_text(Hkv * D));
    rec.record({"v", "Value projection", "projection", "V = " + S + "·Wv" + b_or_nothing + "v", {"B", "Tk", HkD},
                kv_in_id, projection_flops(B * Tk, C, Hkv * D, config.bias)},
               v, shape_text({B, Tk, C}) + " @ " + wk_shape + bias_text(Hkv * D));

    // 3. Split the last axis into heads: a view of the same buffer. // [B, T, H, D], [B, Tk, Hkv, D]
    auto q_split = view_as<4>(q.data(), {B, T, H, D});
    auto k_split = view_as<4>(k.data(), {B, Tk, Hkv, D});
    auto v_split = view_as<4>(v.data(), {B, Tk, Hkv, D});
    rec.record({"q_split", "Split Q into heads", "reshape", "Q.view(B, T, H, D)", {"B", "T", "H", "D"}, "q"},
               q_split, shape_text({B, T, H * D}));
    rec.record({"k_split", "Split K into heads", "reshape", "K.view(B, Tk, " + Hk + ", D)", {"B", "Tk", Hk, "D"}, "k"},
               k_split, shape_text({B, Tk, Hkv * D}));
    rec.record({"v_split", "Split V into heads", "reshape", "V.view(B, Tk, " + Hk + ", D)", {"B", "Tk", Hk, "D"}, "v"},
               v_split, shape_text({B, Tk, Hkv * D}));

    // 4. Heads first, so that each head is a [T, D] matrix: a view with permuted strides. // [B, H, T, D]
    auto q_heads_view = permuted(q_split, {0, 2, 1, 3});
    auto k_heads_view = permuted(k_split, {0, 2, 1, 3});
    auto v_heads_view = permuted(v_split, {0, 2, 1, 3});
    rec.record({"q_heads", "Heads first: Q", "transpose", "Q.transpose(1, 2)", {"B", "H", "T", "D"}, "q_split"},
               q_heads_view, shape_text({B, T, H, D}));
    rec.record({"k_heads", "Heads first: K", "transpose", "K.transpose(1, 2)", {"B", Hk, "Tk", "D"}, "k_split"},
               k_heads_view, shape_text({B, Tk, Hkv, D}));
    rec.record({"v_heads", "Heads first: V", "transpose", "V.transpose(1, 2)", {"B", Hk, "Tk", "D"}, "v_split"},
               v_heads_view, shape_text({B, Tk, Hkv, D}));
    tensor4 q_heads = q_heads_view;  // contiguous copies for the matrix products
    tensor4 k_heads = k_heads_view;
    tensor4 v_heads = v_heads_view;

    // 5. GQA/MQA: each K/V head serves H/Hkv query heads. // [B, H, Tk, D]
    const char* k_for_scores = "k_heads";
    if (Hkv < H) {
        k_heads = share_heads(k_heads, d.group());
        v_heads = share_heads(v_heads, d.group());
        const std::string formula = ".repeat_interleave(H/Hkv = " + std::to_string(d.group()) + ", dim=1)";
        rec.record({"k_shared", "Share K heads across query heads", "repeat", "K" + formula, {"B", "H", "Tk", "D"}, "k_heads"},
                   k_heads, shape_text({B, Hkv, Tk, D}));
        rec.record({"v_shared", "Share V heads across query heads", "repeat", "V" + formula, {"B", "H", "Tk", "D"}, "v_heads"},
                   v_heads, shape_text({B, Hkv, Tk, D}));
        k_for_scores = "k_shared";
    }

    // 6. Kᵀ per head: a view again, the last two axes swapped. // [B, H, D, Tk]
    {
        auto k_view = view_as<4>(k_heads.data(), {B, H, Tk, D});
        if (Hkv < H) {
            rec.record({"k_t", "Transpose K", "transpose", "Kᵀ = K.transpose(-2, -1)", {"B", "H", "D", "Tk"}, k_for_scores},
                       permuted(k_view, {0, 1, 3, 2}), shape_text({B, H, Tk, D}));
        } else {  // the strides of a transpose of the heads-first view of k's own buffer
            rec.record({"k_t", "Transpose K", "transpose", "Kᵀ = K.transpose(-2, -1)", {"B", "H", "D", "Tk"}, k_for_scores},
                       permuted(k_heads_view, {0, 1, 3, 2}), shape_text({B, H, Tk, D}));
        }
    }
    tensor4 k_t = permuted(view_as<4>(k_heads.data(), {B, H, Tk, D}), {0, 1, 3, 2});

    // 7. Scores: every query against every key, per head. // [B, H, Tq, Tk]
    tensor4 scores = xt::empty<float>({B, H, T, Tk});
    batched_matmul(q_heads.data(), k_t.data(), scores.data(), B * H, T, D, Tk);
    const double score_flops = 2.0 * B * H * T * Tk * D;
    rec.record({"scores", "Attention scores Q·Kᵀ", "matmul", "Q·Kᵀ", {"B", "H", "Tq", "Tk"}, "q_heads", score_flops},
               scores, shape_text({B, H, T, D}) + " @ " + shape_text({B, H, D, Tk}));

    // 8. Scale by 1/√D so that the scores' spread does not grow with D. // [B, H, Tq, Tk]
    const float inv_sqrt_d = 1.0f / std::sqrt(static_cast<float>(D));
    tensor4 scaled = scores * inv_sqrt_d;
    rec.record({"scaled", "Scale by 1/√D", "scale", "Q·Kᵀ / √D", {"B", "H", "Tq", "Tk"}, "scores", 1.0 * scaled.size()},
               scaled, shape_text({B, H, T, Tk}) + " × 1/√" + std::to_string(D));

    // 9. Mask: −∞ where a query may not look (causal: a later key; padding: a key past keyLengths[b]).
    auto is_masked = [&](std::size_t b, std::size_t i, std::size_t j) {
        if (config.mask == MaskKind::causal && j > i) return true;
        return config.key_lengths && j >= static_cast<std::size_t>((*config.key_lengths)[b]);
    };
    constexpr float minus_inf = -std::numeric_limits<float>::infinity();
    tensor4 masked = scaled;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t i = 0; i < T; ++i)
                for (std::size_t j = 0; j < Tk; ++j)
                    if (is_masked(b, i, j)) masked(b, h, i, j) = minus_inf;
    // The mask's own shape, broadcast over the scores: causal [Tq, Tk], padding [B, 1, 1, Tk].
    const bool causal = config.mask == MaskKind::causal, padding = config.key_lengths.has_value();
    const std::string mask_text =
        causal && padding ? " + causal and padding mask " + shape_text({B, 1, T, Tk})
        : causal          ? " + causal mask " + shape_text({T, Tk})
        : padding         ? " + padding mask " + shape_text({B, 1, 1, Tk})
                          : " with no mask";
    rec.record({"masked", "Apply the mask", "mask", "S + M, M = −∞ where masked", {"B", "H", "Tq", "Tk"}, "scaled"},
               masked, shape_text({B, H, T, Tk}) + mask_text);

    // 10. Softmax over Tk: each query's weights over the keys sum to 1. // [B, H, Tq, Tk]
    // Subtracting the row maximum keeps exp() finite; a row whose keys are all masked (maximum −∞)
    // gets zero weights instead of the NaN of 0/0.
    tensor4 weights = xt::empty<float>({B, H, T, Tk});
    std::vector<bool> row_fully_masked(B * T, false);
    for (std::size_t row = 0; row < B * H * T; ++row) {
        const float* s = masked.data() + row * Tk;
        float* a = weights.data() + row * Tk;
        const float row_max = *std::max_element(s, s + Tk);
        if (row_max == minus_inf) {
            std::fill(a, a + Tk, 0.0f);
            row_fully_masked[(row / (H * T)) * T + row % T] = true;
            continue;
        }
        float sum = 0.0f;
        for (std::size_t j = 0; j < Tk; ++j) sum += (a[j] = std::exp(s[j] - row_max));
        for (std::size_t j = 0; j < Tk; ++j) a[j] /= sum;
    }
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < T; ++i)
            if (row_fully_masked[b * T + i])
                trace.warnings.push_back("Batch row " + std::to_string(b) + ", query " + std::to_string(i) +
                                         ": every key is masked, so its attention weights are all 0 "
                                         "(PyTorch returns NaN for such a row).");
    rec.record({"weights", "Softmax over keys", "softmax", "A = softmax(S, over Tk)", {"B", "H", "Tq", "Tk"}, "masked",
                4.0 * weights.size()},
               weights, "softmax over Tk of " + shape_text({B, H, T, Tk}));

    // 11. Context: each query's weighted sum of the values. // [B, H, Tq, D]
    tensor4 context = xt::empty<float>({B, H, T, D});
    batched_matmul(weights.data(), v_heads.data(), context.data(), B * H, T, Tk, D);
    rec.record({"context", "Weighted sum of values A·V", "matmul", "O = A·V", {"B", "H", "Tq", "D"}, "weights",
                2.0 * B * H * T * Tk * D},
               context, shape_text({B, H, T, Tk}) + " @ " + shape_text({B, H, Tk, D}));

    // 12. Tokens first again: a view with permuted strides, not contiguous. // [B, Tq, H, D]
    auto context_t = permuted(context, {0, 2, 1, 3});
    rec.record({"context_t", "Tokens first again", "transpose", "O.transpose(1, 2)", {"B", "Tq", "H", "D"}, "context"},
               context_t, shape_text({B, H, T, D}));

    // 13. Merge the heads: a transposed view cannot be reshaped in place, so this copies. // [B, Tq, C]
    tensor3 concat = xt::empty<float>({B, T, C});
    std::copy(context_t.begin(), context_t.end(), concat.begin());
    rec.record({"concat", "Merge heads (concat)", "merge", "O.contiguous().view(B, Tq, C)", {"B", "Tq", "C"}, "context_t"},
               concat, shape_text({B, T, H, D}));

    // 14. Output projection mixes the heads' features. // [B, Tq, C]
    tensor3 output = project(concat, w.Wo, w.bo, C);
    rec.record({"output", "Output projection", "projection", "Y = O·Wo" + b_or_nothing + "o", {"B", "Tq", "C"}, "concat",
                projection_flops(B * T, C, C, config.bias)},
               output, shape_text({B, T, C}) + " @ " + shape_text({C, C}) + bias_text(C));

    trace.output.assign(output.begin(), output.end());
    return trace;
}

}  // namespace mha
