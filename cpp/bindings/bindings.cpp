// Embind bindings: the only file (with js_config.cpp) that includes Emscripten headers. They
// convert types between JS and the engine and hold no math: a config and its tensors come in as
// JS values, a run goes out as plain objects and owned Float32Arrays (copies, never views of the
// wasm heap, which memory growth would detach), and an error as a value {code, key, field,
// params, message}. web/src/engine/engine.js is the one JS module that calls these.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <iterator>
#include <new>
#include <type_traits>
#include <string>
#include <vector>

#include "js_config.hpp"
#include "js_result.hpp"
#include "mha/catalogue.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/matmul.hpp"
#include "mha/messages.hpp"
#include "mha/torch_params.hpp"

using emscripten::val;
using js_result::error_to_js;
using js_result::guarded;
using js_result::owned_floats;
using js_result::params_to_js;

namespace {

template <class T>
val array_of(const std::vector<T>& items) {
    val array = val::array();
    for (std::size_t i = 0; i < items.size(); ++i) {
        if constexpr (std::is_arithmetic_v<T>) array.set(i, static_cast<double>(items[i]));  // 64-bit integers as JS numbers
        else array.set(i, items[i]);
    }
    return array;
}

// A whole number a caller passed (engine.js checks them), or -1, which every range check refuses.
std::int64_t whole(const val& v) {
    const double n = v.as<double>();
    return n == static_cast<double>(static_cast<std::int64_t>(n)) && n > -1e15 && n < 1e15 ? static_cast<std::int64_t>(n) : -1;
}

val weights_to_js(const mha::Weights& w) {
    val weights = val::object();
    for (const mha::WeightField& f : mha::weight_fields)
        if (!(w.*f.member).empty()) weights.set(f.name, owned_floats(w.*f.member));
    return weights;
}

// A run crosses as numbers: every word of a step is its catalogue entry's, which JS has already
// (web/src/catalogue/catalogue.js), filled in there for the run. What crosses is
//   numbers  the summary's numbers (summary_fields, in that order); keyLengths (a count, then
//            each); a tiled run's skipped tiles per head (a count, then each); then per
//            snapshot its index in the catalogue, its rank, its shape, its strides, whether it is
//            contiguous, whether it changes values, its FLOPs, and where its values are in
//            `values` (offset, length; length 0: not kept)
//   values   every kept snapshot's values, one after another (the trace's one buffer)
//   output   the output
// and the gradients with dOutput. A seeded run's weights are asked for when a caller reads them
// (seeded_weights). web/src/engine/run.js reads it (decodeRun).
constexpr const char* summary_fields[] = {"B", "T", "Tk", "C", "H", "Hkv", "D", "bias", "causal", "cross", "parameterCount",
                                          "kvCacheBytesPerToken", "flops", "snapshotBytes", "algorithm", "blockQ", "blockK",
                                          "queryBlocks", "keyBlocks", "tilesTotal", "tilesComputed", "tilesSkipped", "appended",
                                          "attnMaskForm", "keyPaddingMaskForm", "biasKv", "zeroAttn"};

val owned_numbers(const std::vector<double>& numbers) {
    return val(emscripten::typed_memory_view(numbers.size(), numbers.data())).call<val>("slice");
}

val run_numbers(const mha::Trace& t) {
    const mha::Dims& d = t.dims;
    const bool tiled = d.algorithm == mha::Algorithm::tiled;
    std::vector<double> numbers = {
        double(d.B), double(d.T), double(d.Tk), double(d.C), double(d.H), double(d.Hkv), double(d.D), double(t.bias),
        double(t.mask == mha::MaskKind::causal), double(d.cross), double(t.parameter_count), double(t.kv_cache_bytes_per_token),
        t.flops, double(t.snapshot_bytes), double(static_cast<int>(d.algorithm)), tiled ? double(d.Bq) : 0, tiled ? double(d.Bk) : 0,
        tiled ? double(d.Nq()) : 0, tiled ? double(d.Nk()) : 0, double(t.tiles.total), double(t.tiles.computed), double(t.tiles.skipped),
        double(d.appended), t.attn_mask_form, t.key_padding_mask_form, double(d.bias_kv), double(d.zero_attn)};
    numbers.push_back(static_cast<double>(t.key_lengths.size()));
    for (const std::int64_t length : t.key_lengths) numbers.push_back(static_cast<double>(length));
    numbers.push_back(static_cast<double>(t.tiles.skipped_per_head.size()));
    for (const std::uint64_t skipped : t.tiles.skipped_per_head) numbers.push_back(static_cast<double>(skipped));
    numbers.push_back(static_cast<double>(t.attn_mask_shape.size()));
    for (const std::int64_t extent : t.attn_mask_shape) numbers.push_back(static_cast<double>(extent));
    const auto& entries = mha::catalogue();
    for (const mha::Snapshot& s : t.steps) {
        numbers.push_back(static_cast<double>(mha::find_step(s.id) - entries.data()));
        numbers.push_back(static_cast<double>(s.shape.size()));
        for (const std::size_t extent : s.shape) numbers.push_back(static_cast<double>(extent));
        for (const std::ptrdiff_t stride : s.strides) numbers.push_back(static_cast<double>(stride));
        numbers.push_back(s.contiguous);
        numbers.push_back(s.changes_values);
        numbers.push_back(s.flops);
        numbers.push_back(s.data.empty() ? 0 : static_cast<double>(s.data.data() - t.values->data()));
        numbers.push_back(static_cast<double>(s.data.size()));
    }
    return owned_numbers(numbers);
}

val trace_to_js(const mha::Trace& t, bool with_weights) {
    val run = val::object();
    run.set("numbers", run_numbers(t));
    run.set("values", owned_floats(*t.values));
    run.set("output", owned_floats(t.output));
    if (!t.warnings.empty()) {
        val warnings = val::array();
        for (std::size_t i = 0; i < t.warnings.size(); ++i) {
            val warning = val::object();
            warning.set("key", t.warnings[i].key);
            warning.set("params", params_to_js(t.warnings[i].params));
            warnings.set(i, warning);
        }
        run.set("warnings", warnings);
    }
    if (t.dims.backward) {  // dOutput given: the gradients of the inputs and of every parameter
        val gradients = weights_to_js(t.gradients.weights);
        gradients.set("x", owned_floats(t.gradients.x));
        if (t.dims.cross) gradients.set("kv", owned_floats(t.gradients.kv));
        run.set("gradients", gradients);
    }
    if (with_weights) run.set("weights", weights_to_js(t.weights));
    return run;
}

// A JS config and its tensors as a Config: sizes and memory checked before any tensor is copied
// in, and each tensor's length before its values (which mha::validate checks). config: the JS config without its tensors;
// tensors: {x, kv, weights: {Wq, …}, dOutput}, each absent, an Array or a numeric typed array; request:
// {id, batch, head} of a lazy run, or undefined.
mha::Config checked_config(const val& config, const val& tensors, const val& request, mha::RunOptions& options) {
    mha::Config c = config_from_tape(config);
    if (!request.isUndefined()) {
        mha::StepRequest only{request["id"].as<std::string>(), std::nullopt, std::nullopt};
        if (!request["batch"].isUndefined()) only.batch = whole(request["batch"]);
        if (!request["head"].isUndefined()) only.head = whole(request["head"]);
        if (!request["t"].isUndefined()) only.t = whole(request["t"]);
        options.only = std::move(only);
    }
    const val x = tensors["x"], kv = tensors["kv"], weights = tensors["weights"], d_output = tensors["dOutput"];
    const bool given_x = !x.isUndefined() && !x.isNull(), given_kv = !kv.isUndefined() && !kv.isNull();
    const bool given_d_output = !d_output.isUndefined() && !d_output.isNull();
    std::vector<std::string> weight_fields;
    if (!weights.isUndefined() && !weights.isNull()) {
        weight_fields = weight_names(weights);
        c.weights.emplace();
        // Given weights with a learned key appended (bias_k, bias_v) say add_bias_kv, as in
        // mha::validate; an explicit addBiasKv: false is kept, for its message.
        for (const std::string& name : weight_fields)
            if ((name == "bias_k" || name == "bias_v") && !c.add_bias_kv) c.add_bias_kv = true;
    }
    if (given_kv) c.kv.emplace();  // its presence makes the run cross-attention
    // The masks' shapes are sizes (validate_sizes checks them): read with their values, which are
    // the size of the scores at most.
    for (const auto& [field, member] : {std::pair{"attnMask", &mha::Config::attn_mask}, {"keyPaddingMask", &mha::Config::key_padding_mask}}) {
        const val mask = tensors[field];
        if (!mask.isUndefined() && !mask.isNull()) c.*member = mask_from_js(field, mask);
    }
    if (given_d_output) c.d_output.emplace();  // its presence adds the backward pass (and its memory)
    const mha::Dims d = mha::validate_sizes(c, options);

    auto take = [&](const std::string& field, const val& tensor) {
        mha::check_tensor_length(field, tensor_length_of(field, tensor), d);
        return floats_from_js(field, tensor);
    };
    if (given_x) c.x = take("x", x);
    if (given_kv) c.kv = take("kv", kv);
    if (given_d_output) c.d_output = take("dOutput", d_output);
    for (const std::string& name : weight_fields)
        for (const mha::WeightField& f : mha::weight_fields)
            if (name == f.name) (*c.weights).*f.member = take("weights." + name, weights[name]);
    return c;  // forward() or validate() checks the values
}

val run(const val& config, const val& tensors, const val& request) {
    return guarded([&] {
        mha::RunOptions options;
        mha::Config c = checked_config(config, tensors, request, options);
        // The caller holds explicit weights already; seeded ones cross when asked for.
        return trace_to_js(mha::forward(std::move(c), options), false);
    });
}

// The seeded weights a run of this config uses (engine.js asks when a caller reads run.weights).
val seeded_weights(const val& config) {
    return guarded([&] {
        const mha::Config c = config_from_tape(config);
        return weights_to_js(mha::resolve_weights(c, mha::validate_sizes(c)));
    });
}

// Checks a config as run() would, and runs nothing.
val validate(const val& config, const val& tensors) {
    return guarded([&] {
        mha::RunOptions options;
        mha::validate(checked_config(config, tensors, val::undefined(), options), options);
        return val::undefined();
    });
}

// PyTorch nn.MultiheadAttention parameters → {Wq, Wk, Wv, Wo, bq, bk, bv, bo, bias_k, bias_v}.
// Biases and bias_k/bias_v (add_bias_kv=True) may be null or undefined.
val from_torch(double C, const val& in_proj_weight, const val& in_proj_bias, const val& out_proj_weight, const val& out_proj_bias,
               const val& bias_k, const val& bias_v) {
    return guarded([&] {
        auto given = [](const val& v) { return !v.isNull() && !v.isUndefined(); };
        auto length = [&](const char* field, const val& v) { return given(v) ? tensor_length_of(field, v) : 0; };
        if (!(C >= 1 && C <= 1e6 && C == static_cast<double>(static_cast<std::uint64_t>(C))))
            throw mha::MhaError("C", "bad_size.embed_dim", {{"value", val(C).call<std::string>("toString")}, {"max", "1000000"}});
        mha::check_torch_lengths(static_cast<std::uint64_t>(C), length("in_proj_weight", in_proj_weight),
                                 length("in_proj_bias", in_proj_bias), length("out_proj_weight", out_proj_weight),
                                 length("out_proj_bias", out_proj_bias));
        mha::check_torch_bias_kv(static_cast<std::uint64_t>(C), length("bias_k", bias_k), length("bias_v", bias_v));
        auto floats = [&](const char* field, const val& v) { return given(v) ? floats_from_js(field, v) : std::vector<float>{}; };
        mha::Weights w = mha::weights_from_torch(static_cast<std::size_t>(C), floats("in_proj_weight", in_proj_weight),
                                                 floats("in_proj_bias", in_proj_bias), floats("out_proj_weight", out_proj_weight),
                                                 floats("out_proj_bias", out_proj_bias));
        w.bias_k = floats("bias_k", bias_k);  // [1, 1, C] in PyTorch: the same C values
        w.bias_v = floats("bias_v", bias_v);
        return weights_to_js(w);
    });
}

// Separate projections (Hugging Face style) → weights. `tensors` holds the eight by their
// state-dict names ("q_proj.weight", …, "out_proj.bias"), each absent, an Array or a typed array.
val from_linear(double C, const val& tensors) {
    return guarded([&] {
        constexpr const char* names[] = {"q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias",
                                         "v_proj.weight", "v_proj.bias", "out_proj.weight", "out_proj.bias"};
        auto given = [&](const char* name) { return !tensors[name].isNull() && !tensors[name].isUndefined(); };
        if (!(C >= 1 && C <= 1e6 && C == static_cast<double>(static_cast<std::uint64_t>(C))))
            throw mha::MhaError("C", "bad_size.embed_dim", {{"value", val(C).call<std::string>("toString")}, {"max", "1000000"}});
        mha::LinearLengths lengths{};
        for (std::size_t i = 0; i < 8; ++i) lengths[i] = given(names[i]) ? tensor_length_of(names[i], tensors[names[i]]) : 0;
        mha::check_linear_lengths(static_cast<std::uint64_t>(C), lengths);
        auto floats = [&](const char* name) { return given(name) ? floats_from_js(name, tensors[name]) : std::vector<float>{}; };
        mha::LinearParams p{floats(names[0]), floats(names[1]), floats(names[2]), floats(names[3]),
                            floats(names[4]), floats(names[5]), floats(names[6]), floats(names[7])};
        return weights_to_js(mha::weights_from_linear(static_cast<std::size_t>(C), p));
    });
}

// c = a · b for row-major a [M, K] and b [K, N]: the engine's GEMM on its own, for the benchmark.
// Sizes and their products are checked in double before anything is allocated.
val matmul(const val& a, const val& b, const val& M_value, const val& K_value, const val& N_value) {
    return guarded([&] {
        constexpr double max_size = 1e6;
        auto size = [&](const char* field, const val& v) {
            const double n = v.typeOf().as<std::string>() == "number" ? v.as<double>() : -1;
            if (!(n >= 1 && n <= max_size && n == static_cast<double>(static_cast<std::uint64_t>(n))))
                throw mha::MhaError(field, "bad_size.matmul",
                                    {{"field", field}, {"value", val::global("String")(v).as<std::string>()}, {"max", "1000000"}});
            return n;
        };
        const double M = size("M", M_value), K = size("K", K_value), N = size("N", N_value);
        const double bytes = 4 * (M * K + K * N + M * N);
        if (bytes > mha::addressable_bytes / 2)
            throw mha::MhaError("M", "memory_cap.product",
                                {{"needed", mha::format_bytes(bytes)}, {"limit", mha::format_bytes(mha::addressable_bytes / 2)}});
        auto operand = [&](const char* field, const val& v, double rows, double cols) {
            const std::uint64_t count = tensor_length_of(field, v);
            if (static_cast<double>(count) != rows * cols)
                throw mha::MhaError(field, "bad_tensor_length.matmul",
                                    {{"field", field}, {"rows", std::to_string(static_cast<std::uint64_t>(rows))},
                                     {"cols", std::to_string(static_cast<std::uint64_t>(cols))},
                                     {"expected", std::to_string(static_cast<std::uint64_t>(rows * cols))},
                                     {"count", std::to_string(count)}});
            return floats_from_js(field, v);
        };
        const std::vector<float> a_values = operand("a", a, M, K), b_values = operand("b", b, K, N);
        const auto m = static_cast<std::size_t>(M), k = static_cast<std::size_t>(K), n = static_cast<std::size_t>(N);
        std::vector<float> c(m * n);
        mha::batched_matmul(a_values.data(), b_values.data(), c.data(), 1, m, k, n);
        return owned_floats(c);
    });
}

// The ids of the engine's catalogue, in order: a run's steps name their entry by its index, so JS
// checks once that its catalogue module is the same table.
val step_ids() {
    val ids = val::array();
    const auto& entries = mha::catalogue();
    for (std::size_t i = 0; i < entries.size(); ++i) ids.set(i, std::string(entries[i].id));
    return ids;
}

// The order of a run's summary numbers (trace_to_js), which JS reads once.
val summary_layout() {
    val names = val::array();
    for (std::size_t i = 0; i < std::size(summary_fields); ++i) names.set(i, std::string(summary_fields[i]));
    return names;
}

val memory_to_js(const mha::MemoryNeed& m) {
    val parts = val::object();
    for (const auto& [name, bytes] : {std::pair{"inputs", m.inputs}, {"weights", m.weights}, {"working", m.working}, {"scores", m.scores},
                                      {"snapshots", m.snapshots}, {"total", m.total()}})
        parts.set(name, bytes);
    return parts;
}

// What a compute-only run of this config allocates with each algorithm (incremental only where
// it applies), and the bytes of the whole score matrix [B, H, Tq, Tk] no algorithm here holds.
// The sizes are checked, the memory cap is not: the page draws configs far above it.
val memory_model(const val& config) {
    return guarded([&] {
        const mha::Config c = config_from_tape(config);
        val model = val::object();
        model.set("naive", memory_to_js(mha::memory_need_of(c, mha::Algorithm::naive)));
        model.set("tiled", memory_to_js(mha::memory_need_of(c, mha::Algorithm::tiled)));
        const bool decodable = c.mask == mha::MaskKind::causal && !c.kv && c.Tk.value_or(c.T) == c.T;
        model.set("incremental", decodable ? memory_to_js(mha::memory_need_of(c, mha::Algorithm::incremental)) : val::null());
        const double Tk = static_cast<double>(c.Tk.value_or(c.T));
        model.set("scoreMatrixBytes", 4.0 * static_cast<double>(c.B) * static_cast<double>(c.H) * static_cast<double>(c.T) * Tk);
        return model;
    });
}

// The message table {key: {en, zh}}: web/src/text/ renders errors and warnings from it.
val message_table() {
    val table = val::object();
    for (const mha::MessageEntry& entry : mha::message_table()) {
        val texts = val::object();
        texts.set("en", std::string(entry.en));
        texts.set("zh", std::string(entry.zh));
        table.set(entry.key, texts);
    }
    return table;
}

}  // namespace

// A trace as engine.run hands it to JS, for the trainer's traced block (trainer_bindings.cpp).
val trace_as_js(const mha::Trace& trace, bool with_weights) { return trace_to_js(trace, with_weights); }

EMSCRIPTEN_BINDINGS(mha_lens) {
    emscripten::function("run", &run);
    emscripten::function("seededWeights", &seeded_weights);
    emscripten::function("validate", &validate);
    emscripten::function("fromTorch", &from_torch);
    emscripten::function("fromLinear", &from_linear);
    emscripten::function("matmul", &matmul);
    emscripten::function("summaryLayout", &summary_layout);
    emscripten::function("stepIds", &step_ids);
    emscripten::function("messageTable", &message_table);
    emscripten::function("memoryModel", &memory_model);
}
