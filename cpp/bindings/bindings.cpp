// Embind bindings: the only file that includes Emscripten headers. It converts types between
// JS and the engine and holds no math. Every JS-visible value is a plain object or an owned
// Float32Array (a copy, never a view into the wasm heap, which memory growth would detach).
// Errors come back as values {ok: false, error: {code, field, message}}; web/src/engine.js turns
// them into thrown Errors.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <new>

#include "mha/config_json.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/matmul.hpp"
#include "mha/torch_params.hpp"

using emscripten::val;

namespace {

val owned_floats(const std::vector<float>& values) {
    return val(emscripten::typed_memory_view(values.size(), values.data())).call<val>("slice");
}

template <class T>
val number_array(const std::vector<T>& values) {
    val array = val::array();
    for (std::size_t i = 0; i < values.size(); ++i) array.set(i, static_cast<double>(values[i]));
    return array;
}

val string_array(const std::vector<std::string>& values) {
    val array = val::array();
    for (std::size_t i = 0; i < values.size(); ++i) array.set(i, values[i]);
    return array;
}

std::vector<float> floats_of(const val& typed_array) {
    return emscripten::convertJSArrayToNumberVector<float>(typed_array);
}

val ok(const char* key, val value) {
    val result = val::object();
    result.set("ok", true);
    result.set(key, value);
    return result;
}

val failure(const std::string& code, const std::string& field, const std::string& message) {
    val error = val::object();
    error.set("code", code);
    error.set("field", field);
    error.set("message", message);
    val result = val::object();
    result.set("ok", false);
    result.set("error", error);
    return result;
}

val snapshot_to_js(const mha::Snapshot& s) {
    val step = val::object();
    step.set("id", s.id);
    step.set("title", s.title);
    step.set("op", s.op);
    step.set("formula", s.formula);
    step.set("shapeFormula", s.shape_formula);
    step.set("shape", number_array(s.shape));
    step.set("axes", string_array(s.axes));
    step.set("data", owned_floats(s.data));
    step.set("strides", number_array(s.strides));
    step.set("contiguous", s.contiguous);
    step.set("changesValues", s.changes_values);
    step.set("numel", static_cast<double>(s.numel));
    step.set("flops", s.flops);
    step.set("bytes", static_cast<double>(s.bytes));
    return step;
}

val weights_to_js(const mha::Weights& w) {
    val weights = val::object();
    const std::pair<const char*, const std::vector<float>*> entries[] = {
        {"Wq", &w.Wq}, {"Wk", &w.Wk}, {"Wv", &w.Wv}, {"Wo", &w.Wo},
        {"bq", &w.bq}, {"bk", &w.bk}, {"bv", &w.bv}, {"bo", &w.bo}};
    for (const auto& [name, values] : entries)
        if (!values->empty()) weights.set(name, owned_floats(*values));
    return weights;
}

val trace_to_js(const mha::Trace& t) {
    val summary = val::object();
    const mha::Dims& d = t.dims;
    summary.set("B", d.B); summary.set("T", d.T); summary.set("Tk", d.Tk); summary.set("C", d.C);
    summary.set("H", d.H); summary.set("Hkv", d.Hkv); summary.set("D", d.D);
    summary.set("bias", t.bias);
    summary.set("mask", t.mask == mha::MaskKind::causal ? "causal" : "none");
    summary.set("keyLengths", t.key_lengths.empty() ? val::null() : number_array(t.key_lengths));
    summary.set("cross", d.cross);
    summary.set("parameterCount", static_cast<double>(t.parameter_count));
    summary.set("kvCacheBytesPerToken", static_cast<double>(t.kv_cache_bytes_per_token));
    summary.set("flops", t.flops);
    summary.set("snapshotBytes", static_cast<double>(t.snapshot_bytes));

    val steps = val::array();
    for (std::size_t i = 0; i < t.steps.size(); ++i) steps.set(i, snapshot_to_js(t.steps[i]));

    val trace = val::object();
    trace.set("summary", summary);
    trace.set("steps", steps);
    trace.set("output", owned_floats(t.output));
    trace.set("weights", weights_to_js(t.weights));
    trace.set("warnings", string_array(t.warnings));
    return trace;
}

// Runs `fn`, turning every exception into an error value so that nothing aborts the module.
template <class Fn>
val guarded(Fn&& fn) {
    try {
        return fn();
    } catch (const mha::MhaError& e) {
        return failure(mha::code_name(e.code()), e.field(), e.what());
    } catch (const std::bad_alloc&) {
        return failure("out_of_memory", "memoryCap",
                       "The engine ran out of memory for this config: lower B, T, Tk or H, or memoryCap.");
    } catch (const std::exception& e) {
        return failure("internal", "", std::string("Internal engine error: ") + e.what());
    }
}

// config_json: the config without its tensors; tensors: {x, kv, Wq, Wk, Wv, Wo, bq, bk, bv, bo}
// as Float32Arrays, each optional.
val run(const std::string& config_json, const val& tensors) {
    return guarded([&] {
        mha::Config config = mha::config_from_json(config_json);
        if (!tensors["x"].isUndefined()) config.x = floats_of(tensors["x"]);
        if (!tensors["kv"].isUndefined()) config.kv = floats_of(tensors["kv"]);
        const std::pair<const char*, std::vector<float> mha::Weights::*> weight_fields[] = {
            {"Wq", &mha::Weights::Wq}, {"Wk", &mha::Weights::Wk}, {"Wv", &mha::Weights::Wv}, {"Wo", &mha::Weights::Wo},
            {"bq", &mha::Weights::bq}, {"bk", &mha::Weights::bk}, {"bv", &mha::Weights::bv}, {"bo", &mha::Weights::bo}};
        for (const auto& [name, field] : weight_fields) {
            if (tensors[name].isUndefined()) continue;
            if (!config.weights) config.weights = mha::Weights{};
            (*config.weights).*field = floats_of(tensors[name]);
        }
        return ok("trace", trace_to_js(mha::forward(config)));
    });
}

// PyTorch nn.MultiheadAttention parameters → {Wq, Wk, Wv, Wo, bq, bk, bv, bo}. Biases may be null.
val from_torch(double C, const val& in_proj_weight, const val& in_proj_bias, const val& out_proj_weight,
               const val& out_proj_bias) {
    return guarded([&] {
        auto optional = [](const val& v) { return v.isNull() || v.isUndefined() ? std::vector<float>{} : floats_of(v); };
        return ok("weights", weights_to_js(mha::weights_from_torch(static_cast<std::size_t>(C), floats_of(in_proj_weight),
                                                                   optional(in_proj_bias), floats_of(out_proj_weight),
                                                                   optional(out_proj_bias))));
    });
}

// c = a · b for row-major a [M, K] and b [K, N]: the engine's GEMM, exposed for the benchmark.
// engine.js checks the lengths before calling.
val matmul(const val& a, const val& b, double M, double K, double N) {
    return guarded([&] {
        const std::vector<float> a_values = floats_of(a), b_values = floats_of(b);
        std::vector<float> c(static_cast<std::size_t>(M) * static_cast<std::size_t>(N));
        mha::batched_matmul(a_values.data(), b_values.data(), c.data(), 1, static_cast<std::size_t>(M),
                            static_cast<std::size_t>(K), static_cast<std::size_t>(N));
        return ok("c", owned_floats(c));
    });
}

}  // namespace

EMSCRIPTEN_BINDINGS(mha_lens) {
    emscripten::function("run", &run);
    emscripten::function("fromTorch", &from_torch);
    emscripten::function("matmul", &matmul);
}
