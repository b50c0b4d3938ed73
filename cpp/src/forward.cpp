#include "mha/forward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "mha/matmul.hpp"
#include "mha/seeded.hpp"
#include "mha/softmax.hpp"
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
template <class Shape, class Strides>
bool is_contiguous(const Shape& shape, const Strides& strides) {
    std::ptrdiff_t expected = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (shape[i] == 1) continue;
        if (strides[i] != expected) return false;
        expected *= static_cast<std::ptrdiff_t>(shape[i]);
    }
    return true;
}

// True if value == some data[i]: sixteen comparisons a step with no early exit inside, which
// vectorises (std::find, which stops at each element, scanned a 12 MiB step at a third the speed).
bool contains(const float* data, std::size_t n, float value) {
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        bool any = false;
        for (std::size_t j = 0; j < 16; ++j) any |= data[i + j] == value;
        if (any) return true;
    }
    for (; i < n; ++i)
        if (data[i] == value) return true;
    return false;
}

// True if `produced` (n values) holds a value that `input` (m values) does not: a projection or
// softmax always does. Exact, and cheap in the common cases: an elementwise step (scale, mask)
// that left every value alone is one comparison, and a value that differs from the input at its
// own index is looked up by a linear scan; only if the first few such values all occur in the
// input does it sort. `input_in_unit_range`: every input value is in [0, 1] (attention weights:
// each is exp(s − max) over a sum that includes it), so a value outside it is new without a scan.
bool has_new_values(const float* produced, std::size_t n, const float* input, std::size_t m,
                    bool input_in_unit_range = false) {
    if (n == m && std::equal(produced, produced + n, input)) return false;
    std::size_t probes = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (i < m && produced[i] == input[i]) continue;
        if (input_in_unit_range && !(produced[i] >= 0.0f && produced[i] <= 1.0f)) return true;
        if (!contains(input, m, produced[i])) return true;
        if (++probes == 8) break;
    }
    if (probes < 8) return false;  // every value was found
    std::vector<float> known(input, input + m);
    std::sort(known.begin(), known.end());
    return std::any_of(produced, produced + n, [&](float value) {
        return !std::binary_search(known.begin(), known.end(), value);
    });
}

bool has_new_values(const std::vector<float>& produced, const std::vector<float>& input, bool input_in_unit_range = false) {
    return has_new_values(produced.data(), produced.size(), input.data(), input.size(), input_in_unit_range);
}

// A reshape, transpose, repeat or merge only moves its input's values: it never holds a new one.
bool moves_values_only(const char* op) {
    const std::string_view kind = op;
    return kind == "reshape" || kind == "transpose" || kind == "repeat" || kind == "merge";
}

// A scale, mask or softmax maps each value to one at the same index: it changed a value if an
// element differs from its input's (almost always the first, so this costs one comparison).
bool elementwise(const char* op) {
    const std::string_view kind = op;
    return kind == "scale" || kind == "mask" || kind == "softmax";
}

// What the walkthrough says about a step: built only when the run describes its steps.
struct StepText {
    const char* title;
    std::string formula;
    std::vector<std::string> axes;
    std::string operands;  // the shapes that go in ("[2,4,8] @ [8,8]"); empty for an input
};

// A call of a caller's `[&] { return StepText{...}; }` that does not copy it: one small thunk per
// lambda, so that record() is compiled once per tensor type rather than once per step.
class TextFn {
public:
    template <class F>
    TextFn(F&& f) : object_(&f), call_([](const void* o) { return (*static_cast<const std::remove_reference_t<F>*>(o))(); }) {}
    StepText operator()() const { return call_(object_); }

private:
    const void* object_;
    StepText (*call_)(const void*);
};

struct StepInfo {
    const char* id;
    const char* op;
    const char* input_id = nullptr;  // the step whose values this one is compared with
    double flops = 0;
    // Whether the step holds new values when its input's values are not at hand (a lazy run):
    // false only for a scale by 1 or a mask that masks nothing.
    bool changes_without_values = true;
    // A step whose values are, by construction, the same numbers in the same row-major order as
    // an earlier step's (a reshape of a contiguous buffer, a mask that masks nothing): the
    // bindings hand them to JS once.
    const char* same_values_as = nullptr;
    // Set when the forward pass found changes_values itself (values streamed head by head): 0 or 1.
    int known_changes = -1;
    bool streamed = false;  // its values went to Config::head_values
};

// Records snapshots into a trace: all of them, none (snapshots off), only their metadata (a
// lazy run), or only the one step a lazy run asks for. Without `config.describe`, steps carry
// ids, values, shapes and changes_values but no titles or formulas (which cost more than the
// arithmetic at the toy size, and which the caller holds from an earlier run of the same key).
class Recorder {
public:
    explicit Recorder(Trace& trace, const Config& config)
        : trace_(trace),
          enabled_(config.snapshots || config.lazy || config.request),
          metadata_only_(config.lazy && !config.request),
          describe_(config.describe),
          copy_same_values_(config.copy_same_values),
          only_(config.request ? config.request->id : std::string()) {}

    // `produced` is the tensor as the step left it: a container, or a view whose strides are
    // those xtensor reports for that view. `text()` returns its StepText.
    template <class E>
    void record(StepInfo info, const E& produced, TextFn text) {
        trace_.flops += info.flops;
        if (!wants(info.id)) return;
        Snapshot& s = trace_.steps.emplace_back();  // in place: moving a snapshot moves ten members
        s.contiguous = is_contiguous(produced.shape(), produced.strides());
        s.numel = produced.size();
        if (describe_) {  // else the caller holds them (and two allocations a step add up at toy sizes)
            s.shape = shape_of(produced);
            s.strides.assign(produced.strides().begin(), produced.strides().end());
        }
        if (!metadata_only_ && !shares_values(info)) {
            if (s.contiguous) {  // one copy, without resize()'s zero fill first
                const float* first = produced.data() + produced.data_offset();
                s.data.assign(first, first + s.numel);
            } else {
                s.data.resize(s.numel);
                copy_row_major(produced, s.data.data());
            }
        }
        finish(s, info, text);
    }

    // A step whose values were computed straight into `data` (row-major, contiguous): the snapshot
    // takes the buffer over instead of copying it. `data` may be empty for metadata only.
    void record_owned(StepInfo info, std::vector<float>&& data, const shape_t& shape, TextFn text) {
        trace_.flops += info.flops;
        if (!wants(info.id)) return;
        Snapshot& s = trace_.steps.emplace_back();
        std::size_t numel = 1;
        for (const std::size_t extent : shape) numel *= extent;
        if (describe_) {
            s.shape = shape;
            s.strides.assign(shape.size(), 0);
            std::ptrdiff_t stride = 1;
            for (std::size_t i = shape.size(); i-- > 0;) {
                s.strides[i] = shape[i] == 1 ? 0 : stride;  // as xtensor reports an axis of length 1
                stride *= static_cast<std::ptrdiff_t>(shape[i]);
            }
        }
        s.contiguous = true;
        s.numel = numel;
        if (!metadata_only_ && !shares_values(info)) s.data = std::move(data);
        finish(s, info, text);
    }

    bool enabled() const { return enabled_; }
    /// Every step's values are kept (the full, eager trace).
    bool keeps_all_values() const { return enabled_ && !metadata_only_ && only_.empty(); }
    /// This step's values are kept.
    bool keeps_values(const char* id) const { return wants(id) && !metadata_only_; }
    /// The trace will hold these values under `same_values_as`, and not a copy of them here.
    bool shares_values(const StepInfo& info) const { return info.same_values_as && keeps_all_values() && !copy_same_values_; }

private:
    bool wants(const char* id) const { return enabled_ && (only_.empty() || only_ == id); }

    const Snapshot* find(std::string_view id) const {
        for (const Snapshot& step : trace_.steps)
            if (step.id == id) return &step;
        return nullptr;
    }

    // Completes the snapshot just placed at the end of the trace.
    void finish(Snapshot& s, const StepInfo& info, TextFn text) {
        s.id = info.id;
        s.bytes = s.numel * sizeof(float);
        s.flops = info.flops;
        if (info.same_values_as && keeps_all_values()) s.same_values_as = info.same_values_as;
        s.streamed = info.streamed;
        if (describe_) {
            s.op = info.op;
            StepText t = text();
            s.title = t.title;
            s.formula = std::move(t.formula);
            s.axes = std::move(t.axes);
            s.shape_formula = t.operands.empty() ? shape_text(s.shape) : t.operands + " → " + shape_text(s.shape);
        }
        if (info.input_id && !moves_values_only(info.op)) {
            const Snapshot* input = find(info.input_id);
            if (input && input->data.empty() && !input->same_values_as.empty()) input = find(input->same_values_as);
            if (info.known_changes >= 0) s.changes_values = info.known_changes == 1;
            else if (info.same_values_as) s.changes_values = false;  // the same values as its input, by construction
            else if (!input || s.data.empty() || input->data.empty()) s.changes_values = info.changes_without_values;
            else if (elementwise(info.op)) s.changes_values = s.data != input->data;
            else s.changes_values = has_new_values(s.data, input->data, input->id == "weights");
        }
        trace_.snapshot_bytes += s.bytes;
    }

    Trace& trace_;
    bool enabled_;
    bool metadata_only_;
    bool describe_;
    bool copy_same_values_;
    std::string only_;  // the one step a lazy run asks for, or empty for all
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
    std::copy(values.begin(), values.end(), t.data());
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

}  // namespace

namespace {
Trace forward_with(const Config& config, const Dims& d, Weights&& params);
}  // namespace

std::string metadata_key(const Config& c) {
    // Everything the summary and the step descriptions are computed from: the sizes, whether K
    // and V have a source of their own, bias, mask, the padding lengths and which steps are kept.
    const std::int64_t Tk = c.Tk.value_or(c.T);
    std::string key;
    for (const std::int64_t n : {c.B, c.T, Tk, c.C, c.H, c.Hkv.value_or(c.H)}) key += std::to_string(n) + ',';
    key += c.kv || Tk != c.T ? "cross," : "self,";
    key += c.bias ? "bias," : "no-bias,";
    key += c.mask == MaskKind::causal ? "causal," : "no-mask,";
    key += c.lazy ? "lazy" : c.snapshots ? "eager" : "output";
    if (c.key_lengths)
        for (const std::int64_t n : *c.key_lengths) key += ',' + std::to_string(n);
    return key;
}

Trace forward(const Config& config) {
    const Dims d = validate(config);
    return forward_with(config, d, resolve_weights(config, d));
}

Trace forward(Config&& config) {
    const Dims d = validate(config);
    // Explicit weights move into the trace instead of being copied (9 MiB at C=768).
    Weights weights = config.weights ? std::move(*config.weights) : resolve_weights(config, d);
    return forward_with(config, d, std::move(weights));
}

namespace {

// The forward pass of a validated config whose parameters are resolved.
Trace forward_with(const Config& config, const Dims& d, Weights&& params) {
    const std::size_t B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, Hkv = d.Hkv, D = d.D;
    const std::string S = d.cross ? "S" : "X";  // the sequence K and V are computed from
    // K and V have their own head count only under GQA/MQA; in plain MHA their axes read H.
    const std::string Hk = Hkv < H ? "Hkv" : "H", HkD = Hk + "·D";

    Trace trace;
    trace.steps.reserve(21);  // the most a run records; growing moved every snapshot so far each time
    trace.dims = d;
    trace.bias = config.bias;
    trace.mask = config.mask;
    if (config.key_lengths) trace.key_lengths = *config.key_lengths;
    trace.weights = std::move(params);
    trace.parameter_count = parameter_count(d, config.bias);
    trace.kv_cache_bytes_per_token = kv_cache_bytes_per_token(d);
    const Weights& w = trace.weights;
    Recorder rec(trace, config);
    const char* const b_or_nothing = config.bias ? " + b" : "";
    auto bias_text = [&](std::size_t n) { return config.bias ? " + " + shape_text({n}) : std::string(); };

    // 1. Input. // [B, T, C]
    tensor3 x = as_tensor3(config.x ? *config.x : seeded_values(config.seed, Stream::x, B * T * C, 1.0f), B, T, C);
    rec.record({"x", "input"}, x, [] { return StepText{"Input X", "X", {"B", "T", "C"}, ""}; });

    // Cross-attention reads K and V from a separate source sequence. // [B, Tk, C]
    tensor3 source;
    if (d.cross) {
        source = as_tensor3(config.kv ? *config.kv : seeded_values(config.seed, Stream::kv, B * Tk * C, 1.0f), B, Tk, C);
        rec.record({"source", "input"}, source,
                   [] { return StepText{"Source sequence S (cross-attention)", "S", {"B", "Tk", "C"}, ""}; });
    }
    const tensor3& kv_in = d.cross ? source : x;
    const char* kv_in_id = d.cross ? "source" : "x";

    // 2. Projections. // q [B, T, H·D]; k, v [B, Tk, Hkv·D]
    tensor3 q = project(x, w.Wq, w.bq, H * D);
    tensor3 k = project(kv_in, w.Wk, w.bk, Hkv * D);
    tensor3 v = project(kv_in, w.Wv, w.bv, Hkv * D);
    rec.record({"q", "projection", "x", projection_flops(B * T, C, H * D, config.bias)}, q, [&] {
        return StepText{"Query projection", "Q = X·Wq" + std::string(b_or_nothing) + "q", {"B", "T", "H·D"},
                        shape_text({B, T, C}) + " @ " + shape_text({C, H * D}) + bias_text(H * D)};
    });
    for (auto [id, tensor, name] : {std::tuple{"k", &k, "K"}, {"v", &v, "V"}}) {
        rec.record({id, "projection", kv_in_id, projection_flops(B * Tk, C, Hkv * D, config.bias)}, *tensor, [&, name = name] {
            const std::string letter = name == std::string_view("K") ? "k" : "v";
            return StepText{name == std::string_view("K") ? "Key projection" : "Value projection",
                            std::string(name) + " = " + S + "·W" + letter + b_or_nothing + letter, {"B", "Tk", HkD},
                            shape_text({B, Tk, C}) + " @ " + shape_text({C, Hkv * D}) + bias_text(Hkv * D)};
        });
    }

    // 3. Split the last axis into heads: a view of the same buffer. // [B, T, H, D], [B, Tk, Hkv, D]
    auto q_split = view_as<4>(q.data(), {B, T, H, D});
    auto k_split = view_as<4>(k.data(), {B, Tk, Hkv, D});
    auto v_split = view_as<4>(v.data(), {B, Tk, Hkv, D});
    rec.record({"q_split", "reshape", "q", 0.0, true, "q"}, q_split, [&] {
        return StepText{"Split Q into heads", "Q.view(B, T, H, D)", {"B", "T", "H", "D"}, shape_text({B, T, H * D})};
    });
    rec.record({"k_split", "reshape", "k", 0.0, true, "k"}, k_split, [&] {
        return StepText{"Split K into heads", "K.view(B, Tk, " + Hk + ", D)", {"B", "Tk", Hk, "D"}, shape_text({B, Tk, Hkv * D})};
    });
    rec.record({"v_split", "reshape", "v", 0.0, true, "v"}, v_split, [&] {
        return StepText{"Split V into heads", "V.view(B, Tk, " + Hk + ", D)", {"B", "Tk", Hk, "D"}, shape_text({B, Tk, Hkv * D})};
    });

    // 4. Heads first, so that each head is a [T, D] matrix: a view with permuted strides. // [B, H, T, D]
    // The matrix products below read each head straight out of q, k and v through strides, so
    // nothing here is copied unless it is recorded.
    auto q_heads_view = permuted(q_split, {0, 2, 1, 3});
    auto k_heads_view = permuted(k_split, {0, 2, 1, 3});
    auto v_heads_view = permuted(v_split, {0, 2, 1, 3});
    rec.record({"q_heads", "transpose", "q_split"}, q_heads_view, [&] {
        return StepText{"Heads first: Q", "Q.transpose(1, 2)", {"B", "H", "T", "D"}, shape_text({B, T, H, D})};
    });
    rec.record({"k_heads", "transpose", "k_split"}, k_heads_view, [&] {
        return StepText{"Heads first: K", "K.transpose(1, 2)", {"B", Hk, "Tk", "D"}, shape_text({B, Tk, Hkv, D})};
    });
    rec.record({"v_heads", "transpose", "v_split"}, v_heads_view, [&] {
        return StepText{"Heads first: V", "V.transpose(1, 2)", {"B", Hk, "Tk", "D"}, shape_text({B, Tk, Hkv, D})};
    });
    const auto HD = static_cast<std::ptrdiff_t>(H * D), KD = static_cast<std::ptrdiff_t>(Hkv * D);
    // Head h of batch row b: rows T (or Tk) apart by H·D (or Hkv·D) floats in q (or k, v).
    auto q_head = [&](std::size_t b, std::size_t h) { return q.data() + b * T * HD + h * D; };
    auto k_head = [&](std::size_t b, std::size_t h) { return k.data() + b * Tk * KD + (h / d.group()) * D; };
    auto v_head = [&](std::size_t b, std::size_t h) { return v.data() + b * Tk * KD + (h / d.group()) * D; };

    // 5. GQA/MQA: each K/V head serves H/Hkv query heads. // [B, H, Tk, D]
    // (The products read head h / group directly; the repeated copy exists only as a snapshot.)
    const char* k_for_scores = Hkv < H ? "k_shared" : "k_heads";
    tensor4 k_shared, v_shared;
    if (Hkv < H && rec.enabled()) {
        k_shared = xt::empty<float>({B, H, Tk, D});
        v_shared = xt::empty<float>({B, H, Tk, D});
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t h = 0; h < H; ++h)
                for (std::size_t j = 0; j < Tk; ++j) {
                    std::copy_n(k_head(b, h) + j * KD, D, &k_shared(b, h, j, 0));
                    std::copy_n(v_head(b, h) + j * KD, D, &v_shared(b, h, j, 0));
                }
        for (auto [id, tensor, input, name] : {std::tuple{"k_shared", &k_shared, "k_heads", "K"}, {"v_shared", &v_shared, "v_heads", "V"}}) {
            rec.record({id, "repeat", input}, *tensor, [&, name = name] {
                return StepText{name == std::string_view("K") ? "Share K heads across query heads" : "Share V heads across query heads",
                                name + (".repeat_interleave(H/Hkv = " + std::to_string(d.group()) + ", dim=1)"),
                                {"B", "H", "Tk", "D"}, shape_text({B, Hkv, Tk, D})};
            });
        }
    }

    // 6. Kᵀ per head: a view again, the last two axes swapped. // [B, H, D, Tk]
    if (rec.enabled()) {
        auto text = [&] {
            return StepText{"Transpose K", "Kᵀ = K.transpose(-2, -1)", {"B", "H", "D", "Tk"}, shape_text({B, H, Tk, D})};
        };
        if (Hkv < H)  // the strides of a transpose of the contiguous shared copy
            rec.record({"k_t", "transpose", k_for_scores}, permuted(k_shared, {0, 1, 3, 2}), text);
        else  // the strides of a transpose of the heads-first view of k's own buffer
            rec.record({"k_t", "transpose", k_for_scores}, permuted(k_heads_view, {0, 1, 3, 2}), text);
    }

    // 7–11, one head at a time, so that a run without snapshots holds one [Tq, Tk] matrix of
    // scores rather than B·H of them. Recorded, each step gets its own [B, H, Tq, Tk] buffer.
    const float inv_sqrt_d = 1.0f / std::sqrt(static_cast<float>(D));
    constexpr float minus_inf = -std::numeric_limits<float>::infinity();
    const bool causal = config.mask == MaskKind::causal, padding = config.key_lengths.has_value();
    // Keys from this index on are masked for query i of batch row b (causal: later keys; padding:
    // keys past keyLengths[b]).
    auto first_masked_key = [&](std::size_t b, std::size_t i) {
        std::size_t first = causal ? std::min(i + 1, Tk) : Tk;
        if (padding) first = std::min(first, static_cast<std::size_t>((*config.key_lengths)[b]));
        return first;
    };
    const std::size_t head_size = T * Tk, all_heads = B * H * head_size;
    // Each head's steps are computed in `work`, one [Tq, Tk] matrix reused head after head; a
    // step whose values are kept appends each head's matrix to its [B, H, Tq, Tk] buffer (which
    // costs less than zero-filling the buffer first). A lazy run's request for one {batch, head}
    // computes that head alone and keeps a copy.
    const StepRequest* request = config.request ? &*config.request : nullptr;
    const bool head_slice = request && request->batch;
    // Whether the mask hides any key at all. If not, the masked step holds the scaled values as
    // they are: copied once after the loop rather than head by head (or not at all when the
    // trace shares them: Config::copy_same_values).
    bool masks_a_key = causal && Tk > 1;
    for (std::size_t b = 0; padding && b < B; ++b) masks_a_key |= static_cast<std::size_t>((*config.key_lengths)[b]) < Tk;
    const bool masked_from_scaled = !masks_a_key && rec.keeps_values("masked") && rec.keeps_values("scaled");
    // Under a mask, the two products go 32 query rows at a time, each block only as far into the
    // keys as its last row may look (first_masked_key grows with the row): a causal mask skips
    // about half of both. The scores past that point are only ever overwritten with −∞, so they
    // are skipped unless a snapshot shows them (scores, scaled); the context's sum skips only
    // products with a weight of exactly 0, at the end of each sum, which leave it bit for bit the
    // same (a sum that starts at +0 is never −0, and s + ±0 = s).
    constexpr std::size_t row_block = 32;
    const bool skip_masked_scores = masks_a_key && !rec.keeps_values("scores") && !rec.keeps_values("scaled");
    // Streaming (Config::head_values): each head's matrices go to the caller instead of into
    // [B, H, Tq, Tk] buffers, and changes_values is found here, head by head.
    const bool streaming = config.head_values && rec.keeps_all_values();
    const bool stream_masked = streaming && !(masked_from_scaled && !config.copy_same_values);
    bool scores_change = false, scaled_change = false, weights_change = false;
    std::vector<float> row_in(streaming ? Tk : 0);  // a row of masked scores, to compare the softmax with
    std::vector<float> scores, scaled, masked, weights;
    for (auto [id, buffer] : {std::pair{"scores", &scores}, {"scaled", &scaled}, {"masked", &masked}, {"weights", &weights}})
        if (!head_slice && !streaming && rec.keeps_values(id) && !(buffer == &masked && masked_from_scaled)) buffer->reserve(all_heads);
    std::vector<float> work(head_size);
    float* const w_head = work.data();
    std::vector<float> slice;  // the requested head's matrix
    std::vector<bool> row_fully_masked(B * T, false);
    tensor3 concat = xt::empty<float>({B, T, C});  // step 11 writes each head's context into its columns

    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t h = 0; h < H; ++h) {
            const bool requested = head_slice && static_cast<std::size_t>(*request->batch) == b &&
                                   static_cast<std::size_t>(*request->head) == h;
            if (head_slice && !requested) continue;
            auto keep = [&](const char* id, std::vector<float>& buffer) {
                if (buffer.capacity()) buffer.insert(buffer.end(), w_head, w_head + head_size);
                if (requested && request->id == id) slice.assign(w_head, w_head + head_size);
                if (streaming && (&buffer != &masked || stream_masked)) config.head_values(id, (b * H + h) * head_size, w_head, head_size);
            };
            // 7. Scores: every query against every key (that it may look at, when no snapshot
            // shows the rest). // [Tq, Tk] of [B, H, Tq, Tk]
            for (std::size_t r0 = 0; r0 < T; r0 += skip_masked_scores ? row_block : T) {
                const std::size_t rows = skip_masked_scores ? std::min(row_block, T - r0) : T;
                const std::size_t keys = skip_masked_scores ? first_masked_key(b, r0 + rows - 1) : Tk;
                gemm(rows, D, keys, {q_head(b, h) + r0 * HD, HD}, {k_head(b, h), 1, KD}, w_head + r0 * Tk,
                     static_cast<std::ptrdiff_t>(Tk));
            }
            keep("scores", scores);
            // (q_heads holds q's values, in another order: membership is all that matters.)
            if (streaming && !scores_change) scores_change = has_new_values(w_head, head_size, q.data(), q.size());

            // 8. Scale by 1/√D so that the scores' spread does not grow with D.
            if (streaming && !scaled_change) {
                for (std::size_t i = 0; i < head_size; ++i) {
                    const float scaled_value = w_head[i] * inv_sqrt_d;
                    scaled_change |= scaled_value != w_head[i];
                    w_head[i] = scaled_value;
                }
            } else {
                for (std::size_t i = 0; i < head_size; ++i) w_head[i] *= inv_sqrt_d;
            }
            keep("scaled", scaled);

            // 9. Mask: −∞ where a query may not look.
            for (std::size_t i = 0; i < T; ++i)
                std::fill(w_head + i * Tk + first_masked_key(b, i), w_head + (i + 1) * Tk, minus_inf);
            keep("masked", masked);

            // 10. Softmax over Tk: each query's weights over the keys sum to 1. softmax_row
            // subtracts the row maximum, which keeps exp() finite; a row whose keys are all
            // masked (maximum −∞) gets zero weights instead of the NaN of 0/0.
            for (std::size_t i = 0; i < T; ++i) {
                float* row = w_head + i * Tk;
                const bool compare = streaming && !weights_change;
                if (compare) std::copy_n(row, Tk, row_in.data());
                if (!softmax_row(row, row, Tk)) row_fully_masked[b * T + i] = true;
                if (compare) weights_change = !std::equal(row, row + Tk, row_in.data());
            }
            keep("weights", weights);

            // 11. Context: each query's weighted sum of the values, written into head h's
            // columns of concat, over the keys it may look at. // [Tq, D] of [B, Tq, H, D]
            for (std::size_t r0 = 0; r0 < T; r0 += masks_a_key ? row_block : T) {
                const std::size_t rows = masks_a_key ? std::min(row_block, T - r0) : T;
                const std::size_t keys = masks_a_key ? first_masked_key(b, r0 + rows - 1) : Tk;
                gemm(rows, keys, D, {w_head + r0 * Tk, static_cast<std::ptrdiff_t>(Tk)}, {v_head(b, h), KD},
                     &concat(b, r0, h * D), static_cast<std::ptrdiff_t>(C));
            }
        }
    }
    // Before a head request returns, so that the rows it computed carry their warnings too.
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < T; ++i)
            if (row_fully_masked[b * T + i])
                trace.warnings.push_back("Batch row " + std::to_string(b) + ", query " + std::to_string(i) +
                                         ": every key is masked, so its attention weights are all 0 "
                                         "(PyTorch returns NaN for such a row).");
    if (head_slice) {  // a lazy run's request for one head: its matrix is the whole answer
        const std::string id = request->id;
        const char* input = id == "scores" ? "q_heads" : id == "scaled" ? "scores" : id == "masked" ? "scaled" : "masked";
        rec.record_owned({request->id.c_str(), "", input}, std::move(slice), {1, 1, T, Tk},
                         [] { return StepText{"", "", {"B", "H", "Tq", "Tk"}, ""}; });
        return trace;
    }

    const shape_t scores_shape{B, H, T, Tk};
    const std::string scores_text = shape_text({B, H, T, Tk});
    // What the loop found out about streamed steps (-1: not streamed; finish() compares values).
    const auto found = [&](bool changes) { return streaming ? int(changes) : -1; };
    rec.record_owned({"scores", "matmul", "q_heads", 2.0 * B * H * T * Tk * D, true, nullptr, found(scores_change), streaming},
                     std::move(scores), scores_shape, [&] {
        return StepText{"Attention scores Q·Kᵀ", "Q·Kᵀ", {"B", "H", "Tq", "Tk"},
                        shape_text({B, H, T, D}) + " @ " + shape_text({B, H, D, Tk})};
    });
    if (masked_from_scaled && config.copy_same_values) masked = scaled;  // before scaled moves into the trace
    rec.record_owned({"scaled", "scale", "scores", 1.0 * all_heads, D != 1, nullptr, found(scaled_change), streaming},
                     std::move(scaled), scores_shape, [&] {
        return StepText{"Scale by 1/√D", "Q·Kᵀ / √D", {"B", "H", "Tq", "Tk"}, scores_text + " × 1/√" + std::to_string(D)};
    });
    // (A mask changes values exactly when it hides a key: the scaled scores are finite.)
    rec.record_owned({"masked", "mask", "scaled", 0.0, masks_a_key, masks_a_key ? nullptr : "scaled",
                      stream_masked ? int(masks_a_key) : -1, stream_masked},
                     std::move(masked), scores_shape, [&] {
        // The mask's own shape, broadcast over the scores: causal [Tq, Tk], padding [B, 1, 1, Tk].
        const std::string mask_text =
            causal && padding ? " + causal and padding mask " + shape_text({B, 1, T, Tk})
            : causal          ? " + causal mask " + shape_text({T, Tk})
            : padding         ? " + padding mask " + shape_text({B, 1, 1, Tk})
                              : " with no mask";
        return StepText{"Apply the mask", "S + M, M = −∞ where masked", {"B", "H", "Tq", "Tk"}, scores_text + mask_text};
    });
    rec.record_owned({"weights", "softmax", "masked", 4.0 * all_heads, true, nullptr, found(weights_change), streaming},
                     std::move(weights), scores_shape, [&] {
        return StepText{"Softmax over keys", "A = softmax(S, over Tk)", {"B", "H", "Tq", "Tk"}, "softmax over Tk of " + scores_text};
    });

    // The context as its own [B, H, Tq, D] tensor, and back to tokens first: a view with permuted
    // strides, not contiguous. // [B, Tq, H, D]
    tensor4 context;
    if (rec.enabled()) {  // metadata too needs its shape and strides
        context = xt::empty<float>({B, H, T, D});
        copy_row_major(permuted(view_as<4>(concat.data(), {B, T, H, D}), {0, 2, 1, 3}), context.data());
    }
    rec.record({"context", "matmul", "weights", 2.0 * B * H * T * Tk * D}, context, [&] {
        return StepText{"Weighted sum of values A·V", "O = A·V", {"B", "H", "Tq", "D"},
                        scores_text + " @ " + shape_text({B, H, Tk, D})};
    });
    rec.record({"context_t", "transpose", "context"}, permuted(context, {0, 2, 1, 3}), [&] {
        return StepText{"Tokens first again", "O.transpose(1, 2)", {"B", "Tq", "H", "D"}, shape_text({B, H, T, D})};
    });

    // 13. Merge the heads: a transposed view cannot be reshaped in place, so this copies (here
    // step 11 already wrote every head into its place). // [B, Tq, C]
    rec.record({"concat", "merge", "context_t", 0.0, true, "context_t"}, concat, [&] {
        return StepText{"Merge heads (concat)", "O.contiguous().view(B, Tq, C)", {"B", "Tq", "C"}, shape_text({B, T, H, D})};
    });

    // 14. Output projection mixes the heads' features. // [B, Tq, C]
    tensor3 output = project(concat, w.Wo, w.bo, C);
    rec.record({"output", "projection", "concat", projection_flops(B * T, C, C, config.bias)}, output, [&] {
        return StepText{"Output projection", "Y = O·Wo" + std::string(b_or_nothing) + "o", {"B", "Tq", "C"},
                        shape_text({B, T, C}) + " @ " + shape_text({C, C}) + bias_text(C)};
    });

    trace.output.assign(output.data(), output.data() + output.size());
    return trace;
}

}  // namespace

}  // namespace mha
