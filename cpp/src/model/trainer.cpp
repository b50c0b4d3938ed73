#include "mha/model/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "mha/config.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/model/language_model.hpp"
#include "mha/model/layers.hpp"

namespace mha::model {
namespace {

std::string number_text(double value) {
    if (value == std::floor(value) && std::fabs(value) < 1e15) return std::to_string(static_cast<long long>(value));
    // The fewest digits that read back as the value: 0.9000001 is not "0.9", which a range of
    // 0 … 0.9 would contain.
    char text[32];
    for (int digits = 6; digits <= 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, value);
        if (std::strtod(text, nullptr) == value) break;
    }
    return text;
}

// A whole-number option within [min, max], or the task's default.
std::size_t whole_option(const char* field, const std::optional<double>& value, std::size_t fallback, double min, double max) {
    if (!value) return fallback;
    if (std::floor(*value) != *value)
        throw MhaError(field, "bad_option.whole", {{"field", field}, {"value", number_text(*value)}});
    if (*value < min || *value > max)
        throw MhaError(field, "bad_option.range", {{"field", field}, {"value", number_text(*value)}, {"min", number_text(min)}, {"max", number_text(max)}});
    return static_cast<std::size_t>(*value);
}

// A real-valued option within [min, max] (min excluded when `open_min`), or the default.
float real_option(const char* field, const std::optional<double>& value, float fallback, double min, double max, bool open_min) {
    if (!value) return fallback;
    if (!(open_min ? *value > min : *value >= min) || !(*value <= max)) {
        const char* key = open_min ? "bad_option.range_open" : "bad_option.range";
        throw MhaError(field, key, {{"field", field}, {"value", number_text(*value)}, {"min", number_text(min)}, {"max", number_text(max)}});
    }
    // The trainer keeps its options as float32: a value float32 cannot hold (1e-46 would be 0,
    // 1e-40 a denormal) is refused rather than quietly changed into another.
    const float stored = static_cast<float>(*value);
    if (*value != 0 && !(std::fabs(stored) >= std::numeric_limits<float>::min()))
        throw MhaError(field, "bad_option.float32", {{"field", field}, {"value", number_text(*value)}, {"smallest", "1.2e-38"}});
    return stored;
}


// Bytes one trainer may allocate, in every build (a third of what wasm can address: a call holds
// the checkpoint it was given and the one it returns besides the training step's tensors).
constexpr double trainer_memory_limit = 1024.0 * 1024 * 1024;

// The training options over `c` (lr falls back to `default_lr`, the others to their defaults, or to
// what `c` holds when it is already a trainer's: reconfigure passes c.lr).
void set_training_options(TrainerConfig& c, const TrainingOptions& o, float default_lr, bool keep = false) {
    c.lr = real_option("lr", o.lr, default_lr, 0, 1, true);
    c.weight_decay = real_option("weightDecay", o.weight_decay, keep ? c.weight_decay : 0.01f, 0, 1, false);
    c.dropout = real_option("dropout", o.dropout, keep ? c.dropout : 0.0f, 0, 0.9, false);
    c.clip = real_option("clip", o.clip, keep ? c.clip : 1.0f, 0, 1e6, false);
}

}  // namespace

TrainerConfig resolve_options(const TrainerOptions& o) {
    const TaskSpec* spec = find_task(o.task);
    if (!spec) throw MhaError("task", "unknown_task", {{"value", o.task}});
    const bool text = spec->task == Task::text;
    TrainerConfig c;
    c.task = spec->task;
    c.steps = spec->steps;
    c.seed = static_cast<std::uint32_t>(whole_option("seed", o.seed, 0, 0, 4294967295.0));
    ModelShape& s = c.shape;
    s.causal = spec->causal;
    // A language model reads longer texts over a vocabulary of up to a few thousand characters.
    s.T = whole_option("T", o.T, spec->T, 4, text ? 256 : 64);
    s.vocab = whole_option("vocab", o.vocab, spec->vocab, 2, text ? 4096 : 512);
    s.layers = whole_option("layers", o.layers, spec->layers, 1, 4);
    s.heads = whole_option("heads", o.heads, spec->heads, 1, 16);
    s.C = whole_option("width", o.width, spec->width, 4, 256);
    s.mlp = o.mlp.value_or(spec->mlp);
    s.layernorm = o.layernorm.value_or(true);
    c.batch = whole_option("batch", o.batch, 32, 1, 512);
    set_training_options(c, {o.lr, o.weight_decay, o.dropout, o.clip}, spec->lr);
    if (text) {
        const bool named = !o.corpus.empty() && o.corpus.size() <= 32 &&
                           std::all_of(o.corpus.begin(), o.corpus.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'; });
        if (!named) throw MhaError("corpus", "lm.corpus_name", {{"value", o.corpus.substr(0, 40)}});
        c.corpus = o.corpus;
        c.repeat.share = real_option("repeatShare", o.repeat_share, 0.0f, 0, 1, false);
        const double longest = static_cast<double>((s.T + 1) / 2);
        c.repeat.min = whole_option("repeatMin", o.repeat_min, std::min<std::size_t>(16, (s.T + 1) / 2), 1, longest);
        c.repeat.max = whole_option("repeatMax", o.repeat_max, std::min<std::size_t>(48, (s.T + 1) / 2), static_cast<double>(c.repeat.min), longest);
    } else if (!o.corpus.empty()) {
        throw MhaError("corpus", "lm.corpus_for_text", {{"task", spec->name}});
    }
    if (s.C % s.heads != 0)
        throw MhaError("heads", "bad_option.heads", {{"width", std::to_string(s.C)}, {"heads", std::to_string(s.heads)}, {"divisors", divisors_of(s.C)}});
    const std::size_t needed = min_vocab(c.task, s.T);
    if (s.vocab < needed)
        throw MhaError("vocab", "bad_option.vocab", {{"vocab", std::to_string(s.vocab)}, {"task", spec->name}, {"T", std::to_string(s.T)},
                                                     {"needed", std::to_string(needed)}});
    const double need = trainer_memory(c);
    if (need > trainer_memory_limit)
        throw MhaError("batch", "memory_cap.trainer", {{"needed", format_bytes(need)}, {"limit", format_bytes(trainer_memory_limit)}});
    return c;
}

double trainer_memory(const TrainerConfig& c) {
    const ModelShape& s = c.shape;
    const double N = static_cast<double>(c.batch) * s.T, C = s.C, H = s.heads, T = s.T, V = s.vocab, L = s.layers;
    double params = V * C + T * C + C * V + V + 2 * C;
    params += L * (4 * C * C + 4 * C + 2 * C + (s.mlp ? 8 * C * C + 5 * C + 2 * C : 0));
    const double per_layer = 8 * N * C + 6 * N + (s.mlp ? 3 * N * C + 8 * N * C : 0) + 2 * N * H * T;
    const double activations = L * per_layer + 3 * N * C + 2 * N * V + 2 * N;
    const double backward = 8 * N * C + (s.mlp ? 8 * N * C : 0) + N * V + std::max(N * C, 4 * C * C) + 2 * T * T;
    return 4 * (4 * params + activations + backward);  // params, grads and two moments; checkpoints twice more in flight
}

TrainerState create_trainer(const TrainerConfig& config) {
    TrainerState state;
    state.config = config;
    const ParamLayout layout = layout_of(config.shape);
    state.params = initial_parameters(config.shape, layout, config.seed);
    state.m.assign(layout.total, 0.0f);
    state.v.assign(layout.total, 0.0f);
    state.rng = config.seed ^ 0x7A5C0DE5u;  // the training batches' stream, apart from the parameters'
    return state;
}

TrainerState reconfigure(TrainerState state, const TrainingOptions& options) {
    TrainerConfig config = state.config;
    set_training_options(config, options, config.lr, true);  // checked whole before anything changes
    state.config = config;
    return state;
}

// --- Checkpoints ----------------------------------------------------------------------------------

namespace {

constexpr std::uint32_t magic = 0x5441484Du;  // "MHAT" as little-endian bytes

// FNV-1a over the little-endian 32-bit words (every checkpoint is whole words): a quarter of the
// byte-wise loop, which a stateless call pays on every chunk of training.
std::uint32_t fnv1a(const std::uint8_t* bytes, std::size_t n) {
    std::uint32_t hash = 2166136261u;
    for (std::size_t i = 0; i + 4 <= n; i += 4) {
        std::uint32_t word;
        std::memcpy(&word, bytes + i, 4);
        hash = (hash ^ word) * 16777619u;
    }
    return hash;
}

class Writer {
public:
    void u32(std::uint32_t v) { put(&v, 4); }
    void f32(float v) { put(&v, 4); }
    void floats(const std::vector<float>& v) { put(v.data(), v.size() * 4); }
    std::vector<std::uint8_t> bytes;

private:
    void put(const void* p, std::size_t n) {
        const auto* b = static_cast<const std::uint8_t*>(p);
        bytes.insert(bytes.end(), b, b + n);
    }
};

class Reader {
public:
    Reader(const std::uint8_t* bytes, std::size_t size) : bytes_(bytes), size_(size) {}
    bool has(std::size_t n) const { return size_ - at_ >= n; }
    std::uint32_t u32() { std::uint32_t v; get(&v, 4); return v; }
    float f32() { float v; get(&v, 4); return v; }
    void floats(std::vector<float>& v, std::size_t n) { v.resize(n); get(v.data(), n * 4); }

private:
    void get(void* p, std::size_t n) {
        std::memcpy(p, bytes_ + at_, n);
        at_ += n;
    }
    const std::uint8_t* bytes_;
    std::size_t size_, at_ = 0;
};

[[noreturn]] void corrupt(const char* reason) { throw MhaError("checkpoint", "checkpoint.corrupt", {{"reason", reason}}); }

constexpr std::size_t header_words = 3, option_words = 17, state_words = 3;
// Version 2's words after the options: the corpus's name (32 bytes), the repeat rows, the storage.
constexpr std::size_t name_words = 8, extra_words = name_words + 4;
constexpr std::uint32_t stored_parameters_only = 1u, stored_float16 = 2u;

std::size_t stored_words(std::size_t n, CheckpointStorage storage) {
    const std::size_t params = storage.float16 ? (n + 1) / 2 : n;
    return params + (storage.parameters_only ? 0 : 2 * n);
}

}  // namespace

std::uint16_t to_half(float value) {
    std::uint32_t x;
    std::memcpy(&x, &value, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7FFFFFFFu;
    if (x >= 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7C00u | (x > 0x7F800000u ? 0x200u : 0));  // inf, NaN
    if (x >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds past 65504
    if (x < 0x38800000u) {  // below the smallest normal half: a subnormal, rounded to nearest even
        if (x < 0x33000000u) return static_cast<std::uint16_t>(sign);
        const std::uint32_t mantissa = (x & 0x7FFFFFu) | 0x800000u;
        const int shift = 126 - static_cast<int>(x >> 23);  // value / 2^−24, in 14 … 24 places
        std::uint32_t h = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1u), midway = 1u << (shift - 1);
        if (rest > midway || (rest == midway && (h & 1u))) ++h;
        return static_cast<std::uint16_t>(sign | h);
    }
    std::uint32_t h = ((x >> 13) - (112u << 10));  // rebias the exponent 127 → 15
    const std::uint32_t rest = x & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
}

float from_half(std::uint16_t half) {
    const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
    const std::uint32_t exponent = (half >> 10) & 0x1Fu, mantissa = half & 0x3FFu;
    std::uint32_t x;
    if (exponent == 0x1F) {
        x = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent == 0) {
        if (mantissa == 0) {
            x = sign;
        } else {  // subnormal: normalise
            int e = -1;
            std::uint32_t m = mantissa;
            do { m <<= 1; ++e; } while ((m & 0x400u) == 0);
            x = sign | ((112u - static_cast<std::uint32_t>(e)) << 23) | ((m & 0x3FFu) << 13);
        }
    } else {
        x = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    }
    float value;
    std::memcpy(&value, &x, 4);
    return value;
}

std::vector<std::uint8_t> save(const TrainerState& s, CheckpointStorage storage) {
    const TrainerConfig& c = s.config;
    Writer w;
    w.u32(magic);
    w.u32(checkpoint_version);
    w.u32(0);  // the length, filled in below
    w.u32(static_cast<std::uint32_t>(c.task));
    w.u32(c.seed);
    for (const std::size_t size : {c.shape.T, c.shape.vocab, c.shape.layers, c.shape.heads, c.shape.C, c.batch})
        w.u32(static_cast<std::uint32_t>(size));
    w.u32((c.shape.mlp ? 1u : 0u) | (c.shape.layernorm ? 2u : 0u));
    for (const float value : {c.lr, c.weight_decay, c.dropout, c.clip, c.beta1, c.beta2, c.eps}) w.f32(value);
    w.u32(static_cast<std::uint32_t>(c.steps));
    char name[4 * name_words] = {};
    std::memcpy(name, c.corpus.data(), std::min(c.corpus.size(), sizeof name));
    for (std::size_t i = 0; i < name_words; ++i) {
        std::uint32_t word;
        std::memcpy(&word, name + 4 * i, 4);
        w.u32(word);
    }
    w.f32(c.repeat.share);
    w.u32(static_cast<std::uint32_t>(c.repeat.min));
    w.u32(static_cast<std::uint32_t>(c.repeat.max));
    w.u32((storage.parameters_only ? stored_parameters_only : 0u) | (storage.float16 ? stored_float16 : 0u));
    w.u32(s.step);
    w.u32(s.rng);
    w.u32(static_cast<std::uint32_t>(s.params.size()));
    if (storage.float16) {
        for (std::size_t i = 0; i < s.params.size(); i += 2) {
            const std::uint32_t low = to_half(s.params[i]);
            const std::uint32_t high = i + 1 < s.params.size() ? to_half(s.params[i + 1]) : 0u;
            w.u32(low | (high << 16));
        }
    } else {
        w.floats(s.params);
    }
    if (!storage.parameters_only) {
        w.floats(s.m);
        w.floats(s.v);
    }
    const auto length = static_cast<std::uint32_t>(w.bytes.size() + 4);
    std::memcpy(w.bytes.data() + 8, &length, 4);
    w.u32(fnv1a(w.bytes.data(), w.bytes.size()));
    return w.bytes;
}

TrainerState load(const std::uint8_t* bytes, std::size_t size) {
    Reader r(bytes, size);
    if (size < 4 || r.u32() != magic) throw MhaError("checkpoint", "checkpoint.not_a_checkpoint", {});
    if (size % 4 != 0) corrupt("term.corrupt.length");
    if (!r.has(8)) corrupt("term.corrupt.length");
    const std::uint32_t version = r.u32();
    if (version != 1 && version != checkpoint_version)
        throw MhaError("checkpoint", "checkpoint.version", {{"found", std::to_string(version)}, {"expected", std::to_string(checkpoint_version)}});
    const std::size_t fixed_words = header_words + option_words + (version >= 2 ? extra_words : 0) + state_words + 1;
    if (r.u32() != size || size < 4 * fixed_words) corrupt("term.corrupt.length");
    std::uint32_t stored;
    std::memcpy(&stored, bytes + size - 4, 4);
    if (stored != fnv1a(bytes, size - 4)) corrupt("term.corrupt.checksum");

    // The options, checked as if a user had written them.
    TrainerOptions o;
    const std::uint32_t task = r.u32();
    if (task >= task_specs().size()) corrupt("term.corrupt.options");
    o.task = task_specs()[task].name;
    o.seed = r.u32();
    o.T = r.u32(); o.vocab = r.u32(); o.layers = r.u32(); o.heads = r.u32(); o.width = r.u32(); o.batch = r.u32();
    const std::uint32_t flags = r.u32();
    o.mlp = (flags & 1u) != 0;
    o.layernorm = (flags & 2u) != 0;
    o.lr = r.f32(); o.weight_decay = r.f32(); o.dropout = r.f32(); o.clip = r.f32();
    const float beta1 = r.f32(), beta2 = r.f32(), eps = r.f32();
    const std::uint32_t steps = r.u32();
    CheckpointStorage storage;
    if (version >= 2) {
        char name[4 * name_words + 1] = {};
        for (std::size_t i = 0; i < name_words; ++i) {
            const std::uint32_t word = r.u32();
            std::memcpy(name + 4 * i, &word, 4);
        }
        o.corpus = name;
        o.repeat_share = r.f32();
        o.repeat_min = r.u32();
        o.repeat_max = r.u32();
        const std::uint32_t stored_as = r.u32();
        if (stored_as & ~(stored_parameters_only | stored_float16)) corrupt("term.corrupt.options");
        storage.parameters_only = (stored_as & stored_parameters_only) != 0;
        storage.float16 = (stored_as & stored_float16) != 0;
    }
    TrainerState s;
    try {
        s.config = resolve_options(o);
    } catch (const MhaError&) {
        corrupt("term.corrupt.options");
    }
    s.config.beta1 = beta1; s.config.beta2 = beta2; s.config.eps = eps;
    if (!(s.config.beta1 >= 0 && s.config.beta1 < 1 && s.config.beta2 >= 0 && s.config.beta2 < 1 && s.config.eps > 0)) corrupt("term.corrupt.options");
    s.config.steps = steps;
    s.step = r.u32();
    s.rng = r.u32();
    const std::size_t n = r.u32();
    if (n != layout_of(s.config.shape).total || size != 4 * (fixed_words + stored_words(n, storage))) corrupt("term.corrupt.length");
    if (storage.float16) {
        s.params.resize(n);
        for (std::size_t i = 0; i < n; i += 2) {
            const std::uint32_t word = r.u32();
            s.params[i] = from_half(static_cast<std::uint16_t>(word & 0xFFFFu));
            if (i + 1 < n) s.params[i + 1] = from_half(static_cast<std::uint16_t>(word >> 16));
        }
    } else {
        r.floats(s.params, n);
    }
    if (storage.parameters_only) {
        s.m.assign(n, 0.0f);
        s.v.assign(n, 0.0f);
    } else {
        r.floats(s.m, n);
        r.floats(s.v, n);
    }
    for (const std::vector<float>* values : {&s.params, &s.m, &s.v})
        if (!(largest_magnitude(values->data(), n) <= std::numeric_limits<float>::max())) corrupt("term.corrupt.values");
    // The second moments are running means of squares: a negative one would make a NaN step.
    if (std::any_of(s.v.begin(), s.v.end(), [](float v) { return v < 0; })) corrupt("term.corrupt.moments");
    return s;
}

// --- Training -------------------------------------------------------------------------------------

namespace {

// beta^t by repeated squaring: exact IEEE products, the same in every build (std::pow need not be).
double power(double beta, std::uint64_t t) {
    double result = 1.0;
    while (t) {
        if (t & 1) result *= beta;
        beta *= beta;
        t >>= 1;
    }
    return result;
}

// One AdamW step, or false (and nothing changed) when it would make a parameter that is not a
// finite number: the first pass only checks, so a step that diverges leaves the last finite state.
bool adamw_step(TrainerState& s, const std::vector<float>& grads) {
    const TrainerConfig& c = s.config;
    const std::uint64_t t = static_cast<std::uint64_t>(s.step) + 1;
    const float correction1 = static_cast<float>(1.0 - power(c.beta1, t));
    const float correction2 = static_cast<float>(1.0 - power(c.beta2, t));
    const float decay = c.lr * c.weight_decay;
    auto update = [&](std::size_t i, float& m, float& v, float& p) {
        const float g = grads[i];
        m = c.beta1 * m + (1.0f - c.beta1) * g;
        v = c.beta2 * v + (1.0f - c.beta2) * g * g;
        const float m_hat = m / correction1;
        const float v_hat = v / correction2;
        // Decoupled weight decay (AdamW, as torch.optim.AdamW), then the Adam step.
        p -= decay * p;
        p -= c.lr * m_hat / (std::sqrt(v_hat) + c.eps);
    };
    for (std::size_t i = 0; i < s.params.size(); ++i) {
        float m = s.m[i], v = s.v[i], p = s.params[i];
        update(i, m, v, p);
        if (!(std::fabs(p) <= std::numeric_limits<float>::max()) || !(std::fabs(m) <= std::numeric_limits<float>::max())) return false;
    }
    for (std::size_t i = 0; i < s.params.size(); ++i) update(i, s.m[i], s.v[i], s.params[i]);
    return true;
}

// Gradient clipping by global norm, as torch.nn.utils.clip_grad_norm_: summed in order in double.
void clip_gradients(std::vector<float>& grads, float max_norm) {
    if (max_norm <= 0) return;
    double squares = 0;
    for (const float g : grads) squares += static_cast<double>(g) * g;
    const double norm = std::sqrt(squares);
    const double scale = max_norm / (norm + 1e-6);
    if (scale >= 1.0) return;
    const auto factor = static_cast<float>(scale);
    for (float& g : grads) g *= factor;
}

Activations batch_of(const TrainerConfig& c, std::size_t B) {
    Activations a;
    a.B = B;
    a.tokens.resize(B * c.shape.T);
    a.targets.resize(B * c.shape.T);
    return a;
}

}  // namespace

TrainChunk train(TrainerState& s, double steps) {
    if (!(steps >= 1 && steps <= max_steps_per_call && std::floor(steps) == steps))
        throw MhaError("steps", "bad_option.range", {{"field", "steps"}, {"value", number_text(steps)}, {"min", "1"}, {"max", number_text(max_steps_per_call)}});
    // The step counter is 32 bits in a checkpoint: it is never wrapped around to 0.
    if (static_cast<double>(s.step) + steps > 4294967295.0)
        throw MhaError("steps", "training.step_limit", {{"step", std::to_string(s.step)}, {"max", "4294967295"}});
    const TrainerConfig& c = s.config;
    const bool text = c.task == Task::text;
    if (text && (!s.corpus || s.corpus->train.empty())) throw MhaError("corpus", "lm.no_corpus", {{"corpus", c.corpus}});
    const ParamLayout layout = layout_of(c.shape);
    Activations a = batch_of(c, c.batch);
    std::vector<float> grads;
    Mulberry32 rng(s.rng);
    TrainChunk chunk;
    chunk.losses.reserve(static_cast<std::size_t>(steps));
    for (std::size_t i = 0; i < static_cast<std::size_t>(steps); ++i) {
        // 1. A fresh batch. 2. Forward with dropout. 3. Backward. 4. Clip. 5. AdamW.
        const std::uint32_t rng_before = rng.state();
        if (text)
            make_text_batch(*s.corpus, c.repeat, c.batch, c.shape.T, rng, a.tokens.data(), a.targets.data());
        else
            make_batch(c.task, c.batch, c.shape.T, c.shape.vocab, rng, a.tokens.data(), a.targets.data());
        const ForwardResult r = forward(c.shape, layout, s.params, a, c.dropout, c.dropout > 0 ? &rng : nullptr);
        // A loss, gradient or update that is no longer a finite number ends the call by name, the
        // trainer left at its last finite step (and its batches' stream there), ready to go on.
        bool finite = std::isfinite(r.loss);
        if (finite) {
            backward(c.shape, layout, s.params, a, grads);
            clip_gradients(grads, c.clip);
            finite = largest_magnitude(grads.data(), grads.size()) <= std::numeric_limits<float>::max() && adamw_step(s, grads);
        }
        if (!finite) {
            s.rng = rng_before;
            throw MhaError("lr", "training.diverged", {{"step", std::to_string(static_cast<std::uint64_t>(s.step) + 1)},
                                                        {"last", std::to_string(s.step)}, {"lr", number_text(c.lr)}});
        }
        ++s.step;
        chunk.losses.push_back(static_cast<float>(r.loss));
        chunk.loss = r.loss;
        chunk.accuracy = r.counted ? static_cast<double>(r.correct) / static_cast<double>(r.counted) : 0.0;
    }
    s.rng = rng.state();
    chunk.step = s.step;
    return chunk;
}

// --- Evaluation -----------------------------------------------------------------------------------

namespace {

constexpr std::size_t eval_batch = 64;

// Runs `fn(acts)` on `sequences` fresh sequences, eval_batch at a time, from the evaluation stream.
template <class Fn>
void over_fresh_batches(const TrainerState& s, std::size_t sequences, Fn&& fn) {
    const TrainerConfig& c = s.config;
    const ParamLayout layout = layout_of(c.shape);
    Mulberry32 rng(c.seed ^ 0xE7A15EEDu);
    for (std::size_t done = 0; done < sequences; done += eval_batch) {
        const std::size_t B = std::min(eval_batch, sequences - done);
        Activations a = batch_of(c, B);
        make_batch(c.task, B, c.shape.T, c.shape.vocab, rng, a.tokens.data(), a.targets.data());
        fn(a, forward(c.shape, layout, s.params, a, 0.0f, nullptr));
    }
}

}  // namespace

Evaluation evaluate(const TrainerState& s, std::size_t sequences) {
    Evaluation e;
    if (s.config.task == Task::text) {  // the held-out text's windows (language_model.hpp)
        const TextEvaluation t = evaluate_heldout(s, sequences);
        e.loss = t.bits * 0.6931471805599453;
        e.sequences = sequences;
        return e;
    }
    double loss_sum = 0, correct = 0, counted = 0;
    over_fresh_batches(s, sequences, [&](const Activations&, const ForwardResult& r) {
        loss_sum += r.loss * static_cast<double>(r.counted);
        correct += static_cast<double>(r.correct);
        counted += static_cast<double>(r.counted);
    });
    e.loss = counted ? loss_sum / counted : 0;
    e.accuracy = counted ? correct / counted : 0;
    e.sequences = sequences;
    return e;
}

std::vector<HeadScore> head_scores(const TrainerState& s, std::size_t sequences) {
    if (s.config.task == Task::text) throw MhaError("task", "lm.use_language_model", {});
    const ModelShape& shape = s.config.shape;
    const std::size_t T = shape.T, H = shape.heads;
    std::vector<JobTally> tallies(shape.layers * H);
    over_fresh_batches(s, sequences, [&](const Activations& a, const ForwardResult&) {
        for (std::size_t l = 0; l < shape.layers; ++l)
            for (std::size_t b = 0; b < a.B; ++b)
                for (std::size_t h = 0; h < H; ++h)
                    tallies[l * H + h].add(s.config.task, a.layers[l].weights.data() + (b * H + h) * T * T, a.tokens.data() + b * T,
                                           a.targets.data() + b * T, T);
    });
    std::vector<HeadScore> scores;
    for (std::size_t l = 0; l < shape.layers; ++l)
        for (std::size_t h = 0; h < H; ++h) scores.push_back({l, h, tallies[l * H + h].scores()});
    return scores;
}

std::size_t row_length(const TrainerState& s, const std::vector<std::int32_t>& tokens) {
    const std::size_t T = s.config.shape.T;
    return s.config.task == Task::text && !tokens.empty() && tokens.size() <= T ? tokens.size() : T;
}

std::size_t check_token_count(const TrainerState& s, double count) {
    const std::size_t max_batch = 512;
    // A language model's text may be one row shorter than its context (row_length).
    const std::size_t T = s.config.task == Task::text && count >= 1 && count <= static_cast<double>(s.config.shape.T)
                              ? static_cast<std::size_t>(count) : s.config.shape.T;
    if (!(count >= 1 && count <= static_cast<double>(max_batch * T)) || std::fmod(count, static_cast<double>(T)) != 0)
        throw MhaError("tokens", "bad_tokens.length", {{"count", number_text(count)}, {"T", std::to_string(T)},
                                                       {"max", std::to_string(max_batch * T)}});
    TrainerConfig asked = s.config;
    asked.batch = static_cast<std::size_t>(count) / T;  // rows, each costing at most a full row's memory
    const double need = trainer_memory(asked);
    if (need > trainer_memory_limit)
        throw MhaError("tokens", "memory_cap.trainer_call", {{"needed", format_bytes(need)}, {"limit", format_bytes(trainer_memory_limit)},
                                                             {"sequences", std::to_string(asked.batch)}});
    return asked.batch;
}

std::size_t check_tokens(const TrainerState& s, const std::vector<std::int32_t>& tokens) {
    const std::size_t V = s.config.shape.vocab;
    const std::size_t B = check_token_count(s, static_cast<double>(tokens.size()));
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i] < 0 || static_cast<std::size_t>(tokens[i]) >= V)
            throw MhaError("tokens", "bad_tokens.value", {{"index", std::to_string(i)}, {"value", std::to_string(tokens[i])},
                                                          {"max", std::to_string(V - 1)}, {"vocab", std::to_string(V)}});
    return B;
}

namespace {

// The model's shape over rows of T tokens (a language model's text may be shorter than its
// context): the layout stays the model's, so position t reads the model's row t.
ModelShape rows_of(const TrainerState& s, std::size_t T) {
    ModelShape shape = s.config.shape;
    shape.T = T;
    return shape;
}

Activations forward_on(const TrainerState& s, const std::vector<std::int32_t>& tokens) {
    const std::size_t B = check_tokens(s, tokens), T = row_length(s, tokens);
    Activations a;
    a.B = B;
    a.tokens = tokens;
    a.targets.resize(tokens.size());
    for (std::size_t b = 0; b < B; ++b) targets_for(s.config.task, a.tokens.data() + b * T, T, a.targets.data() + b * T);
    forward(rows_of(s, T), layout_of(s.config.shape), s.params, a, 0.0f, nullptr);
    return a;
}

}  // namespace

std::vector<std::int32_t> predict(const TrainerState& s, const std::vector<std::int32_t>& tokens) {
    const Activations a = forward_on(s, tokens);
    const std::size_t V = s.config.shape.vocab;
    std::vector<std::int32_t> predicted(tokens.size());
    for (std::size_t n = 0; n < tokens.size(); ++n) {
        const float* row = a.logits.data() + n * V;
        predicted[n] = static_cast<std::int32_t>(std::max_element(row, row + V) - row);
    }
    return predicted;
}

std::vector<std::vector<float>> attention(const TrainerState& s, const std::vector<std::int32_t>& tokens) {
    Activations a = forward_on(s, tokens);
    std::vector<std::vector<float>> weights;
    for (LayerActivations& layer : a.layers) weights.push_back(std::move(layer.weights));
    return weights;
}

Trace block_run(const TrainerState& s, const std::vector<std::int32_t>& tokens, double layer_value) {
    const ModelShape& shape = s.config.shape;
    const std::size_t layer = [&] {
        if (!(layer_value >= 0 && layer_value < static_cast<double>(shape.layers) && std::floor(layer_value) == layer_value))
            throw MhaError("layer", "bad_option.range",
                           {{"field", "layer"}, {"value", number_text(layer_value)}, {"min", "0"}, {"max", std::to_string(shape.layers - 1)}});
        return static_cast<std::size_t>(layer_value);
    }();
    {
        // The block's run is sized before the model runs over the tokens, which takes the time.
        Config probe;
        probe.B = static_cast<std::int64_t>(check_token_count(s, static_cast<double>(tokens.size())));
        probe.T = static_cast<std::int64_t>(shape.T);
        probe.C = static_cast<std::int64_t>(shape.C);
        probe.H = static_cast<std::int64_t>(shape.heads);
        probe.mask = shape.causal ? MaskKind::causal : MaskKind::none;
        probe.x.emplace();
        probe.weights.emplace();
        probe.d_output.emplace();
        try {
            mha::validate_sizes(probe);
        } catch (const MhaError&) {
            throw MhaError("tokens", "memory_cap.trainer_run", {{"sequences", std::to_string(probe.B)}, {"limit", format_bytes(static_cast<double>(probe.memory_cap))}});
        }
    }
    const Activations a = forward_on(s, tokens);
    const ParamLayout layout = layout_of(shape);
    const std::size_t T = row_length(s, tokens);
    std::vector<float> grads, d_attention;
    backward(rows_of(s, T), layout, s.params, a, grads, static_cast<long>(layer), &d_attention);

    // The block as the walkthrough's config: x is what the block reads (after LayerNorm).
    const LayerActivations& L = a.layers[layer];
    const LayerParams& P = layout.layers[layer];
    const std::size_t C = shape.C;
    auto slice = [&](std::size_t offset, std::size_t count) {
        return std::vector<float>(s.params.begin() + static_cast<std::ptrdiff_t>(offset), s.params.begin() + static_cast<std::ptrdiff_t>(offset + count));
    };
    Config config;
    config.B = static_cast<std::int64_t>(a.B);
    config.T = static_cast<std::int64_t>(T);
    config.C = static_cast<std::int64_t>(C);
    config.H = static_cast<std::int64_t>(shape.heads);
    config.mask = shape.causal ? MaskKind::causal : MaskKind::none;
    config.x = shape.layernorm ? L.ln1 : L.in;
    config.weights = Weights{slice(P.Wq, C * C), slice(P.Wk, C * C), slice(P.Wv, C * C), slice(P.Wo, C * C),
                             slice(P.bq, C),     slice(P.bk, C),     slice(P.bv, C),     slice(P.bo, C), {}, {}};
    config.d_output = std::move(d_attention);
    return mha::forward(std::move(config));
}

}  // namespace mha::model
