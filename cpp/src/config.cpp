#include "mha/config.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "mha/error.hpp"

namespace mha {
namespace {

constexpr std::int64_t max_size = 1'000'000;

std::string str(std::int64_t v) { return std::to_string(v); }

void check_size(const char* name, std::int64_t value, const char* meaning) {
    if (value < 1)
        throw MhaError(ErrorCode::bad_size, name,
                       std::string(name) + "=" + str(value) + " is not allowed: " + name + " is " +
                           meaning + " and must be at least 1.");
    if (value > max_size)
        throw MhaError(ErrorCode::bad_size, name,
                       std::string(name) + "=" + str(value) + " is too large: sizes go up to " +
                           str(max_size) + " (and the memory cap limits their product).");
}

std::string divisors_of(std::int64_t n) {
    std::string list;
    for (std::int64_t d = 1; d <= n && list.size() < 80; ++d)
        if (n % d == 0) list += (list.empty() ? "" : ", ") + str(d);
    return list;
}

// The largest |value| of each explicit tensor, found once by check_tensor and used again by
// check_magnitudes: at C=768 the weights are 2.4 M values, and each pass over them costs about as
// much as a T=128 run's attention.
using KnownPeaks = std::vector<std::pair<const std::vector<float>*, float>>;

// The values of an explicit tensor: finite (else the first bad one is named), and their largest
// |value| noted for check_magnitudes.
void check_values(const std::string& name, const std::vector<float>& values, KnownPeaks* peaks, const Config& c) {
    // One four-lane pass first (this runs over every explicit weight on every run), unless the
    // caller made it already; only a tensor that holds a bad value is searched for where.
    float largest = -1.0f;
    for (const auto& [data, known] : c.largest_known)
        if (data == values.data()) largest = known;
    if (largest < 0.0f) largest = largest_magnitude(values);
    if (largest <= std::numeric_limits<float>::max()) {
        if (peaks) peaks->emplace_back(&values, largest);
        return;
    }
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw MhaError(ErrorCode::non_finite, name,
                           name + "[" + std::to_string(i) + "] is " +
                               (std::isnan(values[i]) ? "NaN" : values[i] > 0 ? "Infinity" : "-Infinity") +
                               ": explicit tensors must hold finite numbers.");
}

// How an explicit tensor's length is made up, for its message: symbols and, for a tensor that is
// not a bias, the numbers ("C·H·D = 8·8"). Written out only when the length is wrong.
struct LengthFormula {
    const char* symbols;
    std::size_t count = 0;  // of numbers
    std::size_t numbers[3] = {};
    std::string text() const {
        std::string out = symbols;
        for (std::size_t i = 0; i < count; ++i) out += (i ? "·" : " = ") + std::to_string(numbers[i]);
        return out;
    }
};

void check_tensor(const std::string& name, const std::vector<float>& values, std::size_t expected,
                  const LengthFormula& formula, KnownPeaks* peaks, const Config& c) {
    if (values.size() != expected)
        throw MhaError(ErrorCode::bad_tensor_length, name,
                       name + " has " + std::to_string(values.size()) + (values.size() == 1 ? " value" : " values") + " but needs " +
                           formula.text() + " = " + std::to_string(expected) + ".");
    check_values(name, values, peaks, c);
}

void check_weights(const Weights& w, const Dims& d, bool bias, KnownPeaks* peaks, const Config& c) {
    // A matrix's length is `rows`·`cols` ("C·H·D = 8·8"); a bias has its symbols only.
    struct Entry { const char* name; const std::vector<float>* values; const char* symbols; std::size_t rows, cols; bool is_bias; };
    const Entry entries[] = {
        {"Wq", &w.Wq, "C·H·D", d.C, d.H * d.D, false},
        {"Wk", &w.Wk, "C·Hkv·D", d.C, d.Hkv * d.D, false},
        {"Wv", &w.Wv, "C·Hkv·D", d.C, d.Hkv * d.D, false},
        {"Wo", &w.Wo, "C·C", d.C, d.C, false},
        {"bq", &w.bq, "H·D", d.H * d.D, 1, true},
        {"bk", &w.bk, "Hkv·D", d.Hkv * d.D, 1, true},
        {"bv", &w.bv, "Hkv·D", d.Hkv * d.D, 1, true},
        {"bo", &w.bo, "C", d.C, 1, true},
    };
    for (const auto& e : entries) {
        const std::string field = std::string("weights.") + e.name;
        if (e.is_bias && !bias) {
            if (!e.values->empty())
                throw MhaError(ErrorCode::bad_value, field,
                               field + " is given but bias is false: remove the biases or set bias to true.");
            continue;
        }
        if (e.values->empty())
            throw MhaError(ErrorCode::missing, field,
                           field + " is missing: explicit weights need Wq, Wk, Wv and Wo" +
                               (bias ? ", and bq, bk, bv and bo because bias is true." : "."));
        const LengthFormula formula{e.symbols, e.is_bias ? 0u : 2u, {e.rows, e.cols}};
        check_tensor(field, *e.values, e.rows * e.cols, formula, peaks, c);
    }
}

// The largest |value| of a tensor and where it is.
struct Peak {
    double value = 0;
    std::size_t index = 0;
};

Peak peak_of(const std::vector<float>& values, const KnownPeaks& known) {
    // The largest |value| (found by check_tensor, or four lanes at a time here: the values are
    // finite by now); where it is, only a message needs (first_index_of).
    float largest = -1.0f;
    for (const auto& [tensor, peak] : known)
        if (tensor == &values) largest = peak;
    if (largest < 0.0f) largest = largest_magnitude(values);
    return {largest, 0};
}

std::size_t first_index_of(const std::vector<float>& values, double magnitude) {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (std::fabs(values[i]) == magnitude) return i;
    return 0;
}

std::string sci(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", value);
    return text;
}

// Finite inputs can still overflow float32 (largest 3.4e38) on the way: x = 1e30 times a weight of
// 1e30 is Infinity, and Infinity − Infinity in the softmax is NaN. Rather than return such numbers,
// refuse values whose worst case could overflow. The bounds add up |terms| (every sum in the pass
// is at most that), with seeded tensors at their own bounds (±1 for x and kv, ±1/√C for weights).
// |values| ≤ 1e4 everywhere always passes for sizes up to 1e6.
void check_magnitudes(const Config& c, const Dims& d, const KnownPeaks& known) {
    const bool any_explicit = c.x || c.kv || c.weights;
    if (!any_explicit) return;
    struct Given { std::string field; Peak peak; const std::vector<float>* values; };
    std::vector<Given> given;
    auto bound = [&](const char* field, const std::vector<float>* values, double seeded) {
        if (!values) return seeded;
        given.push_back({field, peak_of(*values, known), values});
        return given.back().peak.value;
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

    const double C = static_cast<double>(d.C), D = static_cast<double>(d.D);
    const double q = C * X * Wq + bq, k = C * S * Wk + bk, v = C * S * Wv + bv;
    const double scores = D * q * k, output = C * v * Wo + bo;
    // A quarter of float32's largest number: room for rounding in long sums, and for the
    // softmax's s − max(s), which can double a magnitude.
    constexpr double limit = FLT_MAX / 4;
    const char* where = std::max({q, k, v}) > limit ? "the projections Q, K, V"
                        : scores > limit            ? "the attention scores Q·Kᵀ"
                        : output > limit            ? "the output"
                                                    : nullptr;
    if (!where) return;
    Given* largest = &given.front();
    for (auto& g : given)
        if (g.peak.value > largest->peak.value) largest = &g;
    largest->peak.index = first_index_of(*largest->values, largest->peak.value);
    const double worst = std::max({q, k, v, scores, output});
    throw MhaError(ErrorCode::bad_value, largest->field,
                   largest->field + "[" + std::to_string(largest->peak.index) + "] is " + sci(largest->peak.value) +
                       " in size: with these values " + where + " could reach " + sci(worst) +
                       ", beyond the 8.5e+37 that float32 holds safely (a quarter of its largest number, 3.4e+38), and the "
                       "result would be Infinity or NaN. "
                       "Scale the explicit tensors down (values within ±1e4 are always safe).");
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

// The largest |value|, or NaN if there is a NaN, eight values a step (GCC/Clang vector extensions:
// SSE natively, SIMD128 in WebAssembly). A float with its sign bit cleared orders as its bit
// pattern does, and every NaN's pattern lies above Infinity's (0x7f800000): one integer max
// finds both the largest magnitude and whether there is a NaN. (Compilers do not vectorise a
// float max reduction on their own, since NaN makes it order-dependent; a float compare, a NaN
// test and a select per vector took 2.5 times as long.)
float largest_magnitude(const std::vector<float>& values) { return largest_magnitude(values.data(), values.size()); }

float largest_magnitude(const float* data, std::size_t count) {
    typedef std::int32_t i32x4 __attribute__((vector_size(16)));
    constexpr std::int32_t magnitude = 0x7fffffff, infinity = 0x7f800000;
    // Two accumulators, so that consecutive vectors do not wait on each other.
    i32x4 largest_a = {0, 0, 0, 0}, largest_b = largest_a;
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        i32x4 a, b;
        std::memcpy(&a, data + i, sizeof a);
        std::memcpy(&b, data + i + 4, sizeof b);
        a &= magnitude;
        b &= magnitude;
        largest_a = a > largest_a ? a : largest_a;
        largest_b = b > largest_b ? b : largest_b;
    }
    const i32x4 largest = largest_a > largest_b ? largest_a : largest_b;
    std::int32_t bits = std::max(std::max(largest[0], largest[1]), std::max(largest[2], largest[3]));
    for (; i < count; ++i) {
        std::int32_t value;
        std::memcpy(&value, data + i, sizeof value);
        bits = std::max(bits, value & magnitude);
    }
    if (bits > infinity) return std::numeric_limits<float>::quiet_NaN();
    float result;
    std::memcpy(&result, &bits, sizeof result);
    return result;
}

std::vector<float> zeros(std::size_t n) { return std::vector<float>(n); }

std::uint64_t snapshot_bytes(const Dims& d) {
    // Counted in double: a config far over the cap must not wrap around to a small number.
    const double B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, Hkv = d.Hkv, D = d.D;
    double values = B * T * C                        // x
                    + (d.cross ? B * Tk * C : 0)     // source
                    + 3 * B * T * H * D              // q, q_split, q_heads
                    + 6 * B * Tk * Hkv * D           // k, v and their splits and heads
                    + (d.Hkv < d.H ? 2 * B * H * Tk * D : 0)  // k_shared, v_shared
                    + B * H * D * Tk                 // k_t
                    + 4 * B * H * T * Tk             // scores, scaled, masked, weights
                    + 2 * B * H * T * D              // context, context_t
                    + 2 * B * T * C;                 // concat, output
    const double bytes = values * sizeof(float);
    return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

std::uint64_t parameter_count(const Dims& d, bool bias) {
    const std::uint64_t C = d.C, HD = d.H * d.D, KD = d.Hkv * d.D;
    return C * HD + 2 * C * KD + C * C + (bias ? HD + 2 * KD + C : 0);
}

std::uint64_t kv_cache_bytes_per_token(const Dims& d) {
    return 2ull * d.Hkv * d.D * sizeof(float);
}

bool is_scores_sized(const std::string& id) {
    return id == "scores" || id == "scaled" || id == "masked" || id == "weights";
}

namespace {

// Values of the step `id` in a run of these sizes (0 for an id no run has).
double step_values(const Dims& d, const std::string& id) {
    const double B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, Hkv = d.Hkv, D = d.D;
    if (id == "x" || id == "concat" || id == "output") return B * T * C;
    if (id == "source") return B * Tk * C;
    if (id == "q" || id == "q_split" || id == "q_heads" || id == "context" || id == "context_t") return B * T * H * D;
    if (id == "k" || id == "v" || id == "k_split" || id == "v_split" || id == "k_heads" || id == "v_heads") return B * Tk * Hkv * D;
    if (id == "k_shared" || id == "v_shared" || id == "k_t") return B * H * Tk * D;
    if (is_scores_sized(id)) return B * H * T * Tk;
    return 0;
}

// A lazy run's request: a step that exists, batch and head in range (both or neither, for a
// scores-sized step only), and values within the memory cap.
void check_request(const StepRequest& r, const Dims& d, double cap) {
    double values = step_values(d, r.id);
    if (values == 0)
        throw MhaError(ErrorCode::unknown_step, "step", "There is no step \"" + r.id + "\" in a run.");
    if (r.batch.has_value() != r.head.has_value() || (r.batch && !is_scores_sized(r.id)))
        throw MhaError(ErrorCode::bad_value, "step",
                       "A slice {batch, head} takes both, and only of scores, scaled, masked or weights; \"" + r.id +
                           "\" is asked for whole.");
    if (r.batch && (*r.batch < 0 || *r.batch >= static_cast<std::int64_t>(d.B)))
        throw MhaError(ErrorCode::bad_value, "batch", "batch=" + str(*r.batch) + " is outside 0…" + std::to_string(d.B - 1) + ".");
    if (r.head && (*r.head < 0 || *r.head >= static_cast<std::int64_t>(d.H)))
        throw MhaError(ErrorCode::bad_value, "head", "head=" + str(*r.head) + " is outside 0…" + std::to_string(d.H - 1) + ".");
    if (r.batch) values = static_cast<double>(d.T) * static_cast<double>(d.Tk);
    if (values * sizeof(float) > cap)
        throw MhaError(ErrorCode::memory_cap, "memoryCap",
                       "Step \"" + r.id + "\" needs " + format_bytes(values * sizeof(float)) + ", above the memory cap of " +
                           format_bytes(cap) + (is_scores_sized(r.id) && !r.batch ? ": ask for one {batch, head} of it." : "."));
}

}  // namespace

Dims validate(const Config& c) {
    check_size("B", c.B, "the batch size (sequences per batch)");
    check_size("T", c.T, "the query length (tokens per sequence)");
    if (c.Tk) check_size("Tk", *c.Tk, "the key/value length (tokens of the source sequence)");
    check_size("C", c.C, "the model width (features per token)");
    check_size("H", c.H, "the number of query heads");
    if (c.Hkv) check_size("Hkv", *c.Hkv, "the number of key/value heads");

    if (c.C % c.H != 0)
        throw MhaError(ErrorCode::not_divisible, "H",
                       "C=" + str(c.C) + " is not divisible by H=" + str(c.H) +
                           ": every head needs D = C/H features. Choose H from the divisors of C=" +
                           str(c.C) + ": " + divisors_of(c.C) + ".");
    const std::int64_t Hkv = c.Hkv.value_or(c.H);
    if (Hkv > c.H)
        throw MhaError(ErrorCode::heads_not_divisible, "Hkv",
                       "Hkv=" + str(Hkv) + " is larger than H=" + str(c.H) +
                           ": there cannot be more key/value heads than query heads. Choose Hkv from the divisors of H=" +
                           str(c.H) + ": " + divisors_of(c.H) + ".");
    if (c.H % Hkv != 0)
        throw MhaError(ErrorCode::heads_not_divisible, "Hkv",
                       "H=" + str(c.H) + " is not divisible by Hkv=" + str(Hkv) +
                           ": each key/value head is shared by H/Hkv query heads. Choose Hkv from the divisors of H=" +
                           str(c.H) + ": " + divisors_of(c.H) + ".");

    Dims d{};
    d.B = c.B; d.T = c.T; d.Tk = c.Tk.value_or(c.T); d.C = c.C; d.H = c.H; d.Hkv = Hkv; d.D = c.C / c.H;
    d.cross = c.kv.has_value() || d.Tk != d.T;

    if (c.key_lengths) {
        const auto& lengths = *c.key_lengths;
        if (lengths.size() != d.B)
            throw MhaError(ErrorCode::bad_key_lengths, "keyLengths",
                           "keyLengths has " + std::to_string(lengths.size()) + " entries but B=" + str(c.B) +
                               ": give one valid key length per batch row.");
        for (std::size_t b = 0; b < lengths.size(); ++b)
            if (lengths[b] < 0 || lengths[b] > static_cast<std::int64_t>(d.Tk))
                throw MhaError(ErrorCode::bad_key_lengths, "keyLengths",
                               "keyLengths[" + std::to_string(b) + "]=" + str(lengths[b]) + " is outside [0, Tk=" +
                                   std::to_string(d.Tk) + "]: it counts the keys of batch row " +
                                   std::to_string(b) + " that are not padding.");
    }

    // The size check comes before the tensors: a huge config must not be walked value by value.
    const double needed = static_cast<double>(snapshot_bytes(d));
    const double cap = static_cast<double>(c.memory_cap);
    // Whatever the cap and the snapshots, no tensor may need more bytes than size_t can count: in
    // WebAssembly size_t has 32 bits, and B·T·C = 65536·65536·1 would wrap around to 0 and the
    // forward pass would write past its buffers. `needed` sums every tensor of the pass.
    if (needed > static_cast<double>(SIZE_MAX))
        throw MhaError(ErrorCode::memory_cap, "memoryCap",
                       "This config needs " + format_bytes(needed) + " for its tensors, more than this build of the "
                           "engine can address (" + format_bytes(static_cast<double>(SIZE_MAX)) +
                           "). Lower B, T, Tk or H: raising memoryCap cannot help.");
    if (c.request) check_request(*c.request, d, cap);
    // A lazy run keeps no values, and a request is checked for what it asks for.
    if (c.snapshots && !c.lazy && !c.request && needed > cap)
        throw MhaError(ErrorCode::memory_cap, "memoryCap",
                       "This config needs " + format_bytes(needed) + " for its snapshots, above the memory cap of " +
                           format_bytes(cap) + " (the scores-sized steps alone hold B·H·Tq·Tk = " +
                           str(c.B) + "·" + str(c.H) + "·" + str(c.T) + "·" + std::to_string(d.Tk) +
                           " values each). Lower B, T, Tk or H, or raise memoryCap.");

    KnownPeaks peaks;
    if (c.x) check_tensor("x", *c.x, d.B * d.T * d.C, {"B·T·C", 3, {d.B, d.T, d.C}}, &peaks, c);
    if (c.kv) check_tensor("kv", *c.kv, d.B * d.Tk * d.C, {"B·Tk·C", 3, {d.B, d.Tk, d.C}}, &peaks, c);
    if (c.weights) check_weights(*c.weights, d, c.bias, &peaks, c);
    check_magnitudes(c, d, peaks);
    return d;
}

}  // namespace mha
