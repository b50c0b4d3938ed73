#include "mha/config.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "mha/catalogue.hpp"
#include "mha/error.hpp"

// Code that runs once a call or only for an error (a request's checks, the messages' figures, the
// checks of the tiled and incremental algorithms): `cold` is how both compilers are told to build
// a function for size and keep it out of line, so that the download stays within its budget
// (tests/js/bundle-size.test.js). None of it is in a loop.
#define MHA_SMALL [[gnu::cold]]

namespace mha {

const char* algorithm_name(Algorithm algorithm) {
    switch (algorithm) {
        case Algorithm::naive: return "naive";
        case Algorithm::tiled: return "tiled";
        case Algorithm::incremental: return "incremental";
    }
    return "naive";
}

Dims checked_sizes(const Config& c);

const char* mask_form_name(MaskInput::Form form) {
    switch (form) {
        case MaskInput::Form::masked: return "masked";
        case MaskInput::Form::attend: return "attend";
        case MaskInput::Form::add: return "add";
    }
    return "masked";
}

namespace {

// Each size alone; the memory cap limits their products.
constexpr std::int64_t max_size = 1'000'000;

template <class Number>
std::string str(Number n) {
    return std::to_string(n);
}

void check_size(const char* name, std::int64_t value) {
    if (value < 1)
        throw MhaError(name, "bad_size.below_one", {{"field", name}, {"value", str(value)}, {"meaning", std::string("term.size.") + name}});
    if (value > max_size)
        throw MhaError(name, "bad_size.too_large", {{"field", name}, {"value", str(value)}, {"max", str(max_size)}});
}

}  // namespace

std::string divisors_of(std::uint64_t n) {
    std::vector<std::string> divisors;
    for (std::uint64_t d = 1; d <= n && divisors.size() < 20; ++d)  // a message names the first twenty
        if (n % d == 0) divisors.push_back(std::to_string(d));
    return list_param(divisors);
}

namespace {

std::string sci(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", value);
    return text;
}

// The steps a request may slice `kind` ("head" or "t"), of this run (`d`) or of any, for a message.
MHA_SMALL std::string sliceable_steps(std::string_view kind, const Dims* d = nullptr) {
    std::vector<std::string> ids;
    for (const StepSpec& s : catalogue())
        if ((!d || appears(s, *d)) && (kind.empty() || slice_name(s.slice) == kind)) ids.emplace_back(s.id);
    return list_param(ids);
}

MHA_SMALL void check_index(const char* field, std::int64_t value, std::size_t count) {
    if (value < 0 || value >= static_cast<std::int64_t>(count))
        throw MhaError(field, "bad_value.slice_range", {{"field", field}, {"value", str(value)}, {"max", str(count - 1)}});
}

// A lazy run's request: a step of this run; batch and head in range (both or neither, and only for
// a step sliced by head); a decoding step t in range (only for a step of incremental decoding).
MHA_SMALL void check_request(const StepRequest& r, const Dims& d) {
    const StepSpec* step = find_step(r.id);
    if (!step || !appears(*step, d)) throw MhaError("step", "unknown_step.in_run", {{"step", r.id}, {"steps", sliceable_steps("", &d)}});
    const std::string_view kind = slice_name(step->slice);
    const char* wrong = r.batch.has_value() != r.head.has_value() || (r.batch && kind != "head") ? "head"
                        : r.t && (kind != "t" || r.batch)                                       ? "t"
                                                                                                : nullptr;
    if (wrong) {
        const bool naive_slice = d.algorithm == Algorithm::naive && *wrong == 'h';  // its message names the four steps
        throw MhaError("step", naive_slice ? "bad_value.slice" : *wrong == 'h' ? "bad_value.slice_head" : "bad_value.slice_t",
                       {{"step", r.id}, {"steps", sliceable_steps(wrong, *wrong == 'h' ? &d : nullptr)}});
    }
    if (r.batch) check_index("batch", *r.batch, d.B);
    if (r.head) check_index("head", *r.head, d.H);
    if (r.t) check_index("t", *r.t, d.T);
}

// The part of a run's memory that is largest, and the sizes that shrink it.
struct MemoryPart {
    const char* term;
    double bytes;
    std::vector<std::string> lower;  // the sizes that shrink it
    const char* field;               // the size to lower first, which the error names
};

MHA_SMALL MemoryPart largest_part(const MemoryNeed& m, const Dims& d) {
    // The scores a pass holds at once: one head's [Tq, Tk] matrix, or a tile, or one row.
    const char* scores = d.algorithm == Algorithm::tiled         ? "term.memory.tile"
                         : d.algorithm == Algorithm::incremental ? "term.memory.scores_row"
                                                                 : "term.memory.scores";
    const MemoryPart parts[] = {
        {"term.memory.snapshots", m.snapshots, {"B", "T", "Tk", "H"}, d.B > d.T ? "B" : "T"},
        {"term.memory.weights", m.weights, {"C"}, "C"},
        {"term.memory.inputs", m.inputs, d.cross ? std::vector<std::string>{"B", "T", "Tk", "C"} : std::vector<std::string>{"B", "T", "C"}, d.B > d.T ? "B" : "T"},
        {scores, m.scores, {"T", "Tk"}, d.Tk > d.T ? "Tk" : "T"},
        {"term.memory.working", m.working, {"B", "T", "Tk", "C"}, d.B > d.T ? "B" : "T"},
    };
    return *std::max_element(std::begin(parts), std::end(parts), [](const MemoryPart& a, const MemoryPart& b) { return a.bytes < b.bytes; });
}

// What the same config would need computed tiled without snapshots, when a naive run's score matrix
// is what does not fit: even without snapshots it holds one head's [Tq, Tk], which the tiled pass
// never does. (When only the snapshots are too big, snapshots: false or "lazy" is the answer.)
MHA_SMALL void suggest_tiled(const Config& c, const Dims& d, Params& params) {
    if (d.algorithm != Algorithm::naive) return;
    Config compute_only;
    compute_only.bias = c.bias;
    compute_only.snapshots = Snapshots::none;
    const double limit = std::min(static_cast<double>(c.memory_cap), addressable_bytes);
    const MemoryNeed naive = memory_need(d, compute_only);
    if (naive.total() <= limit || std::string_view(largest_part(naive, d).term) != "term.memory.scores") return;
    Dims tiled = d;
    tiled.algorithm = Algorithm::tiled;
    tiled.Bq = std::min<std::size_t>(static_cast<std::size_t>(c.block_q.value_or(default_block_q)), d.T);
    tiled.Bk = std::min<std::size_t>(static_cast<std::size_t>(c.block_k.value_or(default_block_k)), d.keys());
    params.push_back({"tiled", "term.memory.try_tiled"});
    params.push_back({"tiled_needed", format_bytes(memory_need(tiled, compute_only).total())});
}

void check_memory(const Config& c, const Dims& d, const RunOptions& options) {
    const MemoryNeed need = memory_need(d, c, options);
    const double total = need.total();
    const double cap = static_cast<double>(c.memory_cap);
    if (total <= cap && total <= addressable_bytes) return;
    if (options.only && need.snapshots > cap) {  // one step of a lazy run, which alone is too big
        Params params{{"step", options.only->id}, {"needed", format_bytes(need.snapshots)}, {"cap", format_bytes(cap)}};
        const StepSpec* step = find_step(options.only->id);
        if (step && step->slice == Slice::head && !options.only->batch) params.push_back({"slice", "term.ask_slice"});
        if (step && step->slice == Slice::t && !options.only->t) params.push_back({"slice", "term.ask_t"});
        throw MhaError("memoryCap", "memory_cap.step", params);
    }
    const MemoryPart largest = largest_part(need, d);
    Params params{{"needed", format_bytes(total)}, {"largest", largest.term}, {"largest_bytes", format_bytes(largest.bytes)},
                  {"lower", list_param(largest.lower)}};
    suggest_tiled(c, d, params);
    if (total > addressable_bytes) {
        params.push_back({"limit", format_bytes(addressable_bytes)});
        throw MhaError(largest.field, "memory_cap.addressable", params);
    }
    params.push_back({"cap", format_bytes(cap)});
    throw MhaError(largest.field, "memory_cap.needs", params);
}

// --- Tiled and incremental attention ---------------------------------------------------
// A tiled or incremental run holds no score matrix, so memory no longer bounds its work: these do.
// A run goes through at most 2^24 tiles (or, decoding, 2^24 one-row attentions of a head), and
// its attention does at most 2^40 floating-point operations (about a minute at this engine's
// 20–30 GFLOP/s): B=1 T=16384 C=768 H=12 takes 8.2e11.
constexpr double max_tiles = 16777216.0;
constexpr double max_attention_flops = 1099511627776.0;

// The block sizes: whole numbers ≥ 1, given only for the tiled algorithm. A block longer than the
// sequence is a tile of all of it.
MHA_SMALL void set_blocks(const Config& c, Dims& d) {
    const std::pair<const char*, const std::optional<std::int64_t>*> blocks[] = {{"blockQ", &c.block_q}, {"blockK", &c.block_k}};
    for (const auto& [name, block] : blocks) {
        if (!*block) continue;
        if (c.algorithm != Algorithm::tiled)
            throw MhaError(name, "bad_value.block_unused", {{"field", name}, {"algorithm", algorithm_name(c.algorithm)}});
        check_size(name, **block);
    }
    if (c.algorithm != Algorithm::tiled) return;
    d.Bq = std::min<std::size_t>(static_cast<std::size_t>(c.block_q.value_or(default_block_q)), d.T);
    d.Bk = std::min<std::size_t>(static_cast<std::size_t>(c.block_k.value_or(default_block_k)), d.keys());
}

MHA_SMALL std::string count_text(double n) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", n);
    std::string digits = text, out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

MHA_SMALL void check_algorithm(const Config& c, const Dims& d) {
    if (c.algorithm == Algorithm::naive) return;
    // The backward pass is the naive pass's, step for step: a tiled or incremental run has no
    // scores or weights to go back through.
    if (c.d_output) throw MhaError("dOutput", "bad_value.backward_algorithm", {{"algorithm", algorithm_name(c.algorithm)}});
    const double B = d.B, H = d.H, T = d.T, Tk = static_cast<double>(d.keys()), D = d.D;
    if (c.algorithm == Algorithm::incremental) {
        if (d.cross) throw MhaError("algorithm", "bad_value.incremental_cross", {{"T", str(d.T)}, {"Tk", str(d.Tk)}});
        if (c.mask != MaskKind::causal) throw MhaError("algorithm", "bad_value.incremental_mask", {});
        // A decoding step's cache holds the tokens so far; the learned key every query sees would
        // sit after a cache that keeps growing.
        if (d.appended)
            throw MhaError(d.bias_kv ? "addBiasKv" : "addZeroAttn", "bad_value.incremental_bias_kv", {{"field", d.bias_kv ? "addBiasKv" : "addZeroAttn"}});
        if (c.attn_mask || c.key_padding_mask)
            throw MhaError(c.attn_mask ? "attnMask" : "keyPaddingMask", "bad_value.incremental_attn_mask",
                           {{"field", c.attn_mask ? "attnMask" : "keyPaddingMask"}});
        if (B * H * T > max_tiles)
            throw MhaError(d.B > d.T ? "B" : "T", "bad_size.decode_rows",
                           {{"B", str(d.B)}, {"H", str(d.H)}, {"T", str(d.T)}, {"count", count_text(B * H * T)}, {"max", count_text(max_tiles)}});
    } else {
        const double tiles = B * H * static_cast<double>(d.Nq()) * static_cast<double>(d.Nk());
        if (tiles > max_tiles)
            throw MhaError(d.Bq <= d.Bk ? "blockQ" : "blockK", "bad_size.tiles",
                           {{"Bq", str(c.block_q.value_or(default_block_q))}, {"Bk", str(c.block_k.value_or(default_block_k))}, {"Tq", str(d.T)}, {"Tk", str(d.keys())}, {"heads", count_text(B * H)},
                            {"count", count_text(tiles)}, {"max", count_text(max_tiles)}});
    }
    const double flops = 4 * B * H * T * Tk * D;
    if (flops > max_attention_flops)
        throw MhaError(d.Tk > d.T ? "Tk" : "T", "bad_size.work",
                       {{"algorithm", algorithm_name(c.algorithm)}, {"flops", sci(flops)}, {"max", sci(max_attention_flops)}});
}

// How an explicit tensor's length is made up: "B·T·C = 2·4·8", or "H·D" for a bias.
struct TensorShape {
    const char* name;
    const char* symbols;
    bool show_numbers;
};

constexpr TensorShape tensor_shapes[] = {
    {"x", "B·T·C", true},           {"kv", "B·Tk·C", true},          {"weights.Wq", "C·H·D", true},
    {"weights.Wk", "C·Hkv·D", true}, {"weights.Wv", "C·Hkv·D", true}, {"weights.Wo", "C·C", true},
    {"weights.bq", "H·D", false},    {"weights.bk", "Hkv·D", false},   {"weights.bv", "Hkv·D", false},
    {"weights.bo", "C", false},      {"weights.bias_k", "Hkv·D", false}, {"weights.bias_v", "Hkv·D", false},
    {"dOutput", "B·T·C", true}};

std::uint64_t factor(char symbol, bool kv, const Dims& d) {
    switch (symbol) {
        case 'B': return d.B;
        case 'T': return kv ? d.Tk : d.T;
        case 'C': return d.C;
        case 'H': return kv ? d.Hkv : d.H;
        case 'D': return d.D;
    }
    return 1;
}

// The factors of a symbol formula such as "C·Hkv·D" ("Hkv" and "Tk" are one symbol each).
std::vector<std::uint64_t> factors(std::string_view symbols, const Dims& d) {
    std::vector<std::uint64_t> out;
    for (std::size_t at = 0; at < symbols.size();) {
        const std::size_t dot = symbols.find("·", at);
        const std::string_view symbol = symbols.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at);
        const bool kv = symbol == "Hkv" || symbol == "Tk";
        out.push_back(factor(symbol[0], kv, d));
        if (dot == std::string_view::npos) break;
        at = dot + std::strlen("·");
    }
    return out;
}

const TensorShape& shape_of_tensor(std::string_view name) {
    for (const TensorShape& shape : tensor_shapes)
        if (name == shape.name) return shape;
    return tensor_shapes[0];
}

// The largest |value| of each explicit tensor, found once by check_values and used again by
// check_magnitudes (at C=768 the weights are 2.4 M values).
using Peaks = std::vector<std::pair<const std::vector<float>*, float>>;

void check_values(const std::string& name, const std::vector<float>& values, Peaks& peaks) {
    const float peak = largest_magnitude(values.data(), values.size());
    peaks.emplace_back(&values, peak);
    if (peak <= std::numeric_limits<float>::max()) return;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw MhaError(name, "non_finite.value",
                           {{"field", name + "[" + str(i) + "]"},
                            {"value", std::isnan(values[i]) ? "NaN" : values[i] > 0 ? "Infinity" : "-Infinity"}});
}

void check_weights(const Weights& w, const Dims& d, bool bias, Peaks& peaks) {
    for (const WeightField& f : weight_fields) {
        const std::vector<float>& values = w.*f.member;
        const std::string field = std::string("weights.") + f.name;
        if (f.appended) {
            if (!d.bias_kv) {
                if (!values.empty()) throw MhaError(field, "bad_value.bias_kv_given", {{"field", field}});
                continue;
            }
            if (values.empty()) throw MhaError(field, "missing.bias_kv", {{"field", field}});
            check_tensor_length(field, values.size(), d);
            check_values(field, values, peaks);
            continue;
        }
        if (f.is_bias && !bias) {
            if (!values.empty()) throw MhaError(field, "bad_value.bias_given", {{"field", field}});
            continue;
        }
        if (values.empty()) {
            Params params{{"field", field}};
            if (bias) params.push_back({"biases", "term.and_biases"});
            throw MhaError(field, "missing.weight", params);
        }
        check_tensor_length(field, values.size(), d);
        check_values(field, values, peaks);
    }
}

// Finite inputs can still overflow float32 (largest 3.4e38) on the way: x = 1e30 times a weight of
// 1e30 is Infinity, and Infinity − Infinity in the softmax is NaN. Rather than return such numbers,
// refuse values whose worst case could overflow. The bounds add up |terms| (every sum in the pass
// is at most that), with seeded tensors at their own bounds (±1 for x and kv, ±1/√C for weights).
// |values| ≤ 1e4 everywhere always passes for sizes up to 1e6.
void check_magnitudes(const Config& c, const Dims& d, const Peaks& peaks) {
    if (!c.x && !c.kv && !c.weights && !c.d_output) return;
    struct Given { std::string field; double peak; const std::vector<float>* values; };
    std::vector<Given> given;
    auto bound = [&](const char* field, const std::vector<float>* values, double seeded) {
        if (!values) return seeded;
        const auto known = std::find_if(peaks.begin(), peaks.end(), [&](const auto& p) { return p.first == values; });
        given.push_back({field, known->second, values});
        return given.back().peak;
    };
    const double seeded_w = 1.0 / std::sqrt(static_cast<double>(d.C));
    const Weights* w = c.weights ? &*c.weights : nullptr;
    const double X = bound("x", c.x ? &*c.x : nullptr, 1.0);
    const double S = d.cross ? bound("kv", c.kv ? &*c.kv : nullptr, 1.0) : X;
    const double Wq = bound("weights.Wq", w ? &w->Wq : nullptr, seeded_w);
    const double Wk = bound("weights.Wk", w ? &w->Wk : nullptr, seeded_w);
    const double Wv = bound("weights.Wv", w ? &w->Wv : nullptr, seeded_w);
    const double Wo = bound("weights.Wo", w ? &w->Wo : nullptr, seeded_w);
    const double bq = c.bias ? bound("weights.bq", w ? &w->bq : nullptr, seeded_w) : 0;
    const double bk = c.bias ? bound("weights.bk", w ? &w->bk : nullptr, seeded_w) : 0;
    const double bv = c.bias ? bound("weights.bv", w ? &w->bv : nullptr, seeded_w) : 0;
    const double bo = c.bias ? bound("weights.bo", w ? &w->bo : nullptr, seeded_w) : 0;
    // The appended key and value are rows of K and V of their own.
    const double bias_k = d.bias_kv ? bound("weights.bias_k", w ? &w->bias_k : nullptr, seeded_w) : 0;
    const double bias_v = d.bias_kv ? bound("weights.bias_v", w ? &w->bias_v : nullptr, seeded_w) : 0;

    const double C = static_cast<double>(d.C), D = static_cast<double>(d.D);
    const double q = C * X * Wq + bq, k = std::max(C * S * Wk + bk, bias_k), v = std::max(C * S * Wv + bv, bias_v);
    // A float mask's finite values are added to the scaled scores.
    double added = 0;
    for (const auto* m : {c.attn_mask ? &*c.attn_mask : nullptr, c.key_padding_mask ? &*c.key_padding_mask : nullptr})
        if (m && m->form == MaskInput::Form::add)
            for (const float v : m->values)
                if (std::isfinite(v)) added = std::max(added, static_cast<double>(std::fabs(v)));
    const double scores = D * q * k + 2 * added, output = C * v * Wo + bo;
    // The backward pass's sums, bounded the same way (backward.cpp): dO = dY·Woᵀ, dA = dO·Vᵀ,
    // dS ≤ 2·|dA| (weights ≤ 1), dQ = dS·K, dK = dSᵀ·Q and dV = Aᵀ·dO (summed over a group),
    // dX from all three, and each weight's gradient summed over every token.
    double gradients = 0;
    if (c.d_output) {
        const double G = bound("dOutput", &*c.d_output, 0);
        const double T = static_cast<double>(d.T), Tk = static_cast<double>(d.keys()), B = static_cast<double>(d.B);
        const double HD = static_cast<double>(d.H * d.D), KD = static_cast<double>(d.Hkv * d.D), group = static_cast<double>(d.group());
        const double d_concat = C * G * Wo, dS = 2 * D * d_concat * v;
        const double dq = Tk * dS * k, dk = group * T * dS * q, dv = group * T * d_concat;
        const double dx = HD * dq * Wq + KD * (dk * Wk + dv * Wv);
        gradients = std::max({d_concat, dS, dq, dk, dv, dx, B * T * std::max(X, S) * std::max({dq, dk, dv}), B * T * output * G});
    }
    // A quarter of float32's largest number: room for rounding in long sums, and for the
    // softmax's s − max(s), which can double a magnitude.
    constexpr double limit = FLT_MAX / 4;
    const char* where = std::max({q, k, v}) > limit ? "term.where.projections"
                        : scores > limit            ? "term.where.scores"
                        : output > limit            ? "term.where.output"
                        : gradients > limit         ? "term.where.gradients"
                                                    : nullptr;
    if (!where) return;
    const Given* largest = &given.front();
    for (const Given& g : given)
        if (g.peak > largest->peak) largest = &g;
    std::size_t index = 0;
    while (std::fabs((*largest->values)[index]) != largest->peak) ++index;
    throw MhaError(largest->field, "bad_value.magnitude",
                   {{"field", largest->field}, {"index", str(index)}, {"value", sci(largest->peak)}, {"where", where},
                    {"worst", sci(std::max({q, k, v, scores, output, gradients}))}});
}

}  // namespace

std::string format_bytes(double bytes) {
    char text[64];
    if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024) std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024));
    else if (bytes >= 1024.0) std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
    else std::snprintf(text, sizeof text, "%.0f bytes", bytes);
    return text;
}

// The largest |value|, or NaN if there is a NaN. A float with its sign bit cleared orders as its
// bit pattern does, and every NaN's pattern lies above Infinity's, so one integer max finds both
// the largest magnitude and whether there is a NaN.
float largest_magnitude(const float* data, std::size_t count) {
    constexpr std::uint32_t magnitude = 0x7fffffff, infinity = 0x7f800000;
    std::uint32_t bits = 0;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t value;
        std::memcpy(&value, data + i, sizeof value);
        bits = std::max(bits, value & magnitude);
    }
    if (bits > infinity) return std::numeric_limits<float>::quiet_NaN();
    float result;
    std::memcpy(&result, &bits, sizeof result);
    return result;
}

std::uint64_t snapshot_bytes(const Dims& d) {
    double values = 0;
    for (const StepSpec& step : catalogue())
        if (appears(step, d)) values += static_cast<double>(step_numel(step, d));
    const double bytes = values * sizeof(float);
    return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

MemoryNeed memory_need(const Dims& d, const Config& c, const RunOptions& options) {
    const double B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, D = d.D, HD = H * D, KD = static_cast<double>(d.Hkv) * D;
    const double keys = static_cast<double>(d.keys());  // with the appended key: what attention sees
    const double f = sizeof(float);
    const bool grouped = d.Hkv < d.H;
    const bool recording = options.only || c.snapshots != Snapshots::none;
    MemoryNeed m;
    m.inputs = f * (B * T * C + (d.cross ? B * Tk * C : 0));
    // The masks as given, and as values added to the scores (one copy each).
    for (const auto* mask : {c.attn_mask ? &*c.attn_mask : nullptr, c.key_padding_mask ? &*c.key_padding_mask : nullptr})
        if (mask) m.inputs += 2 * f * static_cast<double>(mask->values.size());
    m.weights = f * (C * HD + 2 * C * KD + C * C + (c.bias ? HD + 2 * KD + C : 0) + (d.bias_kv ? 2 * KD : 0));
    switch (d.algorithm) {
        case Algorithm::naive:
        case Algorithm::tiled:
            m.working = f * (B * T * HD + 2 * B * Tk * KD  // q, k, v
                             + 3 * B * T * C               // concat, the output and its copy in the trace
                             + (d.appended ? 2 * B * keys * KD : 0)  // K and V with the learned key appended
                             // made only for a snapshot: the context as its own tensor, GQA's shared heads
                             + (recording ? B * H * T * D + (grouped ? 2 * B * H * keys * D : 0) : 0));
            if (d.algorithm == Algorithm::naive) {
                m.scores = f * T * keys;  // one head's [Tq, Tk] matrix at a time
            } else {
                const double Bq = d.Bq, Bk = d.Bk;
                m.scores = f * Bq * Bk;                // one [Bq, Bk] tile of scores, then of P
                m.working += f * (2 * Bq * D + 3 * Bq);  // O and P·V [Bq, D]; m, ℓ and the correction [Bq]
            }
            break;
        case Algorithm::incremental:
            m.working = f * (2 * B * T * KD             // the K and V caches, [B, Hkv, T, D] when full
                             + B * (HD + 2 * KD + C)    // one token's q, k, v and context
                             + 2 * B * T * C);          // the output and its copy in the trace
            m.scores = f * T;                           // one row of scores, as long as the cache
            break;
    }
    if (d.backward) {
        // The backward pass (backward.cpp): dOutput, the gradients of concat, q, k, v and of every
        // parameter, dX (and dS), dX's three terms, one head's A, dA and dS, and the per-head K/V
        // gradients before the group sum under GQA/MQA.
        m.inputs += f * B * T * C;
        m.working += f * (B * T * C + B * T * HD + 2 * B * Tk * KD) + m.weights
                     + f * (2 * B * T * C + (d.cross ? 2 * B * Tk * C : 0)) + f * 3 * T * keys + f * 2 * keys * D
                     + (d.appended ? f * 2 * B * keys * KD : 0)  // dK and dV with the appended key's row
                     + (recording && grouped ? f * 2 * B * H * keys * D : 0);
    }
    if (options.only) {
        const StepSpec* step = find_step(options.only->id);
        const double numel = step ? static_cast<double>(step_numel(*step, d)) : 0;
        m.snapshots = f * (options.only->batch ? numel / (B * H) : numel);
    } else if (c.snapshots == Snapshots::all) {
        m.snapshots = static_cast<double>(snapshot_bytes(d));
    }
    return m;
}

MHA_SMALL MemoryNeed memory_need_of(const Config& c, Algorithm algorithm) {
    Config sizes;  // the sizes and options alone: no tensor is copied
    sizes.B = c.B; sizes.T = c.T; sizes.Tk = c.Tk; sizes.C = c.C; sizes.H = c.H; sizes.Hkv = c.Hkv;
    sizes.bias = c.bias; sizes.mask = c.mask; sizes.key_lengths = c.key_lengths; sizes.add_bias_kv = c.add_bias_kv;
    sizes.add_zero_attn = c.add_zero_attn;
    if (c.weights && !c.weights->bias_k.empty() && !sizes.add_bias_kv) sizes.add_bias_kv = true;
    if (c.kv) sizes.kv.emplace();  // cross-attention, as the config is
    sizes.algorithm = algorithm;
    if (algorithm == Algorithm::tiled) {
        sizes.block_q = c.block_q;
        sizes.block_k = c.block_k;
    }
    sizes.snapshots = Snapshots::none;
    return memory_need(checked_sizes(sizes), sizes);
}

std::uint64_t tensor_length(std::string_view name, const Dims& d) {
    std::uint64_t n = 1;
    for (const std::uint64_t f : factors(shape_of_tensor(name).symbols, d)) n *= f;
    return n;
}

void check_tensor_length(std::string_view name, std::uint64_t count, const Dims& d) {
    const std::uint64_t expected = tensor_length(name, d);
    if (count == expected) return;
    const TensorShape& shape = shape_of_tensor(name);
    std::string formula = shape.symbols;
    if (shape.show_numbers) {
        std::string numbers;
        for (const std::uint64_t f : factors(shape.symbols, d)) numbers += (numbers.empty() ? "" : "·") + str(f);
        formula += " = " + numbers;
    }
    throw MhaError(std::string(name), "bad_tensor_length",
                   {{"field", std::string(name)}, {"count", str(count)}, {"unit", count == 1 ? "term.unit.value" : "term.unit.values"},
                    {"formula", formula}, {"expected", str(expected)}});
}

namespace {

std::string shape_list(const std::vector<std::int64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + str(shape[i]);
    return text + "]";
}

// attnMask broadcasts to [B, H, Tq, Tk] as PyTorch broadcasts it: right-aligned, each extent 1 or
// the full one, and a rank-3 mask's first axis B·H (nn.MultiheadAttention's per-head form) or
// 1 or H (scaled_dot_product_attention's broadcast). keyPaddingMask is [B, Tk].
MHA_SMALL void check_mask_shape(const char* field, const MaskInput& m, const Dims& d) {
    const auto B = static_cast<std::int64_t>(d.B), H = static_cast<std::int64_t>(d.H), Tq = static_cast<std::int64_t>(d.T),
               Tk = static_cast<std::int64_t>(d.Tk);
    for (const std::int64_t extent : m.shape) check_size(field, extent);
    const std::string full = shape_list({B, H, Tq, Tk});
    if (std::string_view(field) == "keyPaddingMask") {
        if (!m.shape.empty() && m.shape != std::vector<std::int64_t>{B, Tk})
            throw MhaError(field, "bad_mask.padding_shape", {{"shape", shape_list(m.shape)}, {"expected", shape_list({B, Tk})}});
        return;
    }
    const std::size_t rank = m.shape.size();
    auto fits = [](std::int64_t extent, std::int64_t size) { return extent == 1 || extent == size; };
    bool ok = rank >= 2 && rank <= 4 && fits(m.shape[rank - 1], Tk) && fits(m.shape[rank - 2], Tq);
    if (ok && rank == 3) ok = m.shape[0] == 1 || m.shape[0] == H || m.shape[0] == B * H;
    if (ok && rank == 4) ok = fits(m.shape[0], B) && fits(m.shape[1], H);
    if (!ok)
        throw MhaError(field, rank < 2 || rank > 4 ? "bad_mask.rank" : "bad_mask.shape",
                       {{"shape", shape_list(m.shape)}, {"full", full}, {"BH", str(B * H)}});
}

// A mask's values, once they are in: as many as its shape holds; booleans 0 or 1; a float mask
// may hold −∞ (a hidden key), not NaN or +∞.
void check_mask_values(const char* field, const MaskInput& m, const Dims& d) {
    std::uint64_t expected = 1;
    if (m.shape.empty()) expected = static_cast<std::uint64_t>(d.B) * d.Tk;
    for (const std::int64_t extent : m.shape) expected *= static_cast<std::uint64_t>(extent);
    const std::string values = std::string(field) + "." + mask_form_name(m.form);
    if (m.values.size() != expected)
        throw MhaError(values, "bad_mask.length",
                       {{"field", values}, {"count", str(m.values.size())}, {"shape", m.shape.empty() ? shape_list({static_cast<std::int64_t>(d.B), static_cast<std::int64_t>(d.Tk)}) : shape_list(m.shape)},
                        {"expected", str(expected)}});
    for (std::size_t i = 0; i < m.values.size(); ++i) {
        const float v = m.values[i];
        const bool bad = m.form == MaskInput::Form::add ? (std::isnan(v) || v == std::numeric_limits<float>::infinity()) : !(v == 0.0f || v == 1.0f);
        if (bad)
            throw MhaError(values, m.form == MaskInput::Form::add ? "bad_mask.add_value" : "bad_mask.bool_value",
                           {{"field", values + "[" + str(i) + "]"}, {"value", std::isnan(v) ? "NaN" : std::isinf(v) ? "Infinity" : sci(v)}});
    }
}

}  // namespace

// Sizes, divisibility, padding lengths and block sizes: the checks that hold whatever the memory.
MHA_SMALL Dims checked_sizes(const Config& c) {
    check_size("B", c.B);
    check_size("T", c.T);
    if (c.Tk) check_size("Tk", *c.Tk);
    check_size("C", c.C);
    check_size("H", c.H);
    if (c.Hkv) check_size("Hkv", *c.Hkv);

    if (c.C % c.H != 0)
        throw MhaError("H", "not_divisible", {{"C", str(c.C)}, {"H", str(c.H)}, {"divisors", divisors_of(c.C)}});
    const std::int64_t Hkv = c.Hkv.value_or(c.H);
    if (Hkv > c.H)
        throw MhaError("Hkv", "heads_not_divisible.more_kv", {{"Hkv", str(Hkv)}, {"H", str(c.H)}, {"divisors", divisors_of(c.H)}});
    if (c.H % Hkv != 0)
        throw MhaError("Hkv", "heads_not_divisible", {{"H", str(c.H)}, {"Hkv", str(Hkv)}, {"divisors", divisors_of(c.H)}});

    Dims d{};
    d.B = c.B; d.T = c.T; d.Tk = c.Tk.value_or(c.T); d.C = c.C; d.H = c.H; d.Hkv = Hkv; d.D = c.C / c.H;
    d.cross = c.kv.has_value() || d.Tk != d.T;
    d.bias = c.bias;
    d.backward = c.d_output.has_value();
    d.algorithm = c.algorithm;
    // add_bias_kv: said, or implied by given weights that hold the learned key.
    d.bias_kv = c.add_bias_kv.value_or(c.weights && (!c.weights->bias_k.empty() || !c.weights->bias_v.empty()));
    d.zero_attn = c.add_zero_attn;
    d.appended = (d.bias_kv ? 1 : 0) + (d.zero_attn ? 1 : 0);

    if (c.key_lengths) {
        const auto& lengths = *c.key_lengths;
        if (lengths.size() != d.B)
            throw MhaError("keyLengths", "bad_key_lengths.count", {{"count", str(lengths.size())}, {"B", str(c.B)}});
        for (std::size_t b = 0; b < lengths.size(); ++b)
            if (lengths[b] < 0 || lengths[b] > static_cast<std::int64_t>(d.Tk))
                throw MhaError("keyLengths", "bad_key_lengths.range", {{"b", str(b)}, {"value", str(lengths[b])}, {"Tk", str(d.Tk)}});
    }
    if (c.attn_mask) check_mask_shape("attnMask", *c.attn_mask, d);
    if (c.key_padding_mask) check_mask_shape("keyPaddingMask", *c.key_padding_mask, d);
    set_blocks(c, d);
    return d;
}

Dims validate_sizes(const Config& c, const RunOptions& options) {
    const Dims d = checked_sizes(c);
    check_algorithm(c, d);
    if (d.appended && d.backward)
        throw MhaError("dOutput", "bad_value.backward_bias_kv", {{"field", d.bias_kv ? "addBiasKv" : "addZeroAttn"}});
    if (options.only) check_request(*options.only, d);
    // Before any tensor is read or allocated: everything a run allocates, weights and working
    // tensors included, within the cap and within what this build can address.
    check_memory(c, d, options);
    return d;
}

Dims validate(const Config& c, const RunOptions& options) {
    const Dims d = validate_sizes(c, options);
    Peaks peaks;
    if (c.x) {
        check_tensor_length("x", c.x->size(), d);
        check_values("x", *c.x, peaks);
    }
    if (c.kv) {
        check_tensor_length("kv", c.kv->size(), d);
        check_values("kv", *c.kv, peaks);
    }
    if (c.weights) check_weights(*c.weights, d, c.bias, peaks);
    if (c.d_output) {
        check_tensor_length("dOutput", c.d_output->size(), d);
        check_values("dOutput", *c.d_output, peaks);
    }
    if (c.attn_mask) check_mask_values("attnMask", *c.attn_mask, d);
    if (c.key_padding_mask) check_mask_values("keyPaddingMask", *c.key_padding_mask, d);
    check_magnitudes(c, d, peaks);
    return d;
}

std::uint64_t parameter_count(const Dims& d, bool bias) {
    const std::uint64_t C = d.C, HD = d.H * d.D, KD = d.Hkv * d.D;
    return C * HD + 2 * C * KD + C * C + (bias ? HD + 2 * KD + C : 0) + (d.bias_kv ? 2 * KD : 0);
}

std::uint64_t kv_cache_bytes_per_token(const Dims& d) { return 2ull * d.Hkv * d.D * sizeof(float); }

}  // namespace mha
