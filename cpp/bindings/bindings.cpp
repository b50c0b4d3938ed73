// Embind bindings: the only file that includes Emscripten headers. It converts types between
// JS and the engine and holds no math. A config arrives as numbers (a plain one: run_fields) or
// as the JS object itself (run, read by config_reader.hpp), its tensors as Float32Arrays. A run's
// result crosses as a short text (its metadata key, warnings, and its metadata as JSON when
// engine.js does not hold it yet) plus a table of the heap addresses of its tensors, which
// web/src/engine.js copies into an owned buffer at once (never keeping a view into the wasm heap,
// which memory growth would detach) before it releases the run. Errors come back as values
// {ok: false, error: {code, field, message}} (or as "!" and that error as JSON, for run());
// web/src/engine.js turns them into thrown Errors.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "js_config.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/matmul.hpp"
#include "mha/torch_params.hpp"

using emscripten::val;

namespace {

val owned_floats(const std::vector<float>& values) {
    return val(emscripten::typed_memory_view(values.size(), values.data())).call<val>("slice");
}

// A Float32Array's values (engine.js passes only Float32Arrays), copied by one TypedArray.set.
std::vector<float> floats_of(const val& typed_array) {
    std::vector<float> values = mha::zeros(typed_array["length"].as<std::size_t>());
    val(emscripten::typed_memory_view(values.size(), values.data())).call<void>("set", typed_array);
    return values;
}

// The explicit tensors of the last run (x, kv, Wq, Wk, Wv, Wo, bq, bk, bv, bo), kept for the next:
// a run of the same sizes has them overwritten by JS instead of allocated and zero-filled again.
std::vector<float> spare_inputs[10];

// An explicit tensor for run(): copied in 256 KiB at a time, each piece scanned for validate()
// while it is still in cache (Config::largest_known). Copied whole and then scanned, the ten
// tensors of a B=1 T=128 C=768 H=12 run (9.4 MB) were read back from memory: 3% of the run.
std::vector<float> input_of(std::size_t slot, const val& typed_array, mha::Config& config) {
    const auto length = typed_array["length"].as<std::size_t>();
    std::vector<float> values = std::move(spare_inputs[slot]);
    if (values.size() != length) values = mha::zeros(length);
    constexpr std::size_t piece = 1 << 16;  // floats
    const val heap = val(emscripten::typed_memory_view(length, values.data()));
    float largest = 0.0f;
    for (std::size_t at = 0; at < length; at += piece) {
        const std::size_t count = std::min(piece, length - at);
        if (count == length) heap.call<void>("set", typed_array);
        else heap.call<void>("set", typed_array.call<val>("subarray", at, at + count), at);
        const float found = mha::largest_magnitude(values.data() + at, count);
        if (!(found <= largest) && !std::isnan(largest)) largest = found;  // a NaN, once found, stays
    }
    config.largest_known.emplace_back(values.data(), largest);
    return values;
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

val weights_to_js(const mha::Weights& w) {
    val weights = val::object();
    const std::pair<const char*, const std::vector<float>*> entries[] = {
        {"Wq", &w.Wq}, {"Wk", &w.Wk}, {"Wv", &w.Wv}, {"Wo", &w.Wo},
        {"bq", &w.bq}, {"bk", &w.bk}, {"bv", &w.bv}, {"bo", &w.bo}};
    for (const auto& [name, values] : entries)
        if (!values->empty()) weights.set(name, owned_floats(*values));
    return weights;
}

// A finished run stays here, in the wasm heap, until engine.js has copied its tensors out and
// calls releaseTrace(): the run crosses as one text and a table of heap addresses (below),
// instead of one Embind call per field and per Float32Array (which cost more than the whole
// forward pass at the toy size).
std::unique_ptr<mha::Trace> pending_trace;
bool pending_explicit_weights = false;  // its weights are the caller's, sent in by run()

// JSON written by hand: nlohmann::json's tree of std::map nodes was a third of a toy-size run.
class JsonWriter {
public:
    JsonWriter& json(const std::string& text) { comma(); out_ += text; return *this; }
    JsonWriter& key(const char* name) { comma(); out_ += '"'; out_ += name; out_ += "\":"; fresh_ = true; return *this; }
    JsonWriter& string(const std::string& text) {
        comma();
        out_ += '"';
        const bool plain = std::none_of(text.begin(), text.end(), [](char ch) {
            return ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20;
        });
        if (plain) {  // the common case: one append
            out_ += text;
            out_ += '"';
            return *this;
        }
        for (char ch : text) {
            const auto byte = static_cast<unsigned char>(ch);
            if (ch == '"' || ch == '\\') { out_ += '\\'; out_ += ch; }
            else if (byte < 0x20) { char escaped[8]; std::snprintf(escaped, sizeof escaped, "\\u%04x", byte); out_ += escaped; }
            else out_ += ch;  // UTF-8 passes through
        }
        out_ += '"';
        return *this;
    }
    JsonWriter& number(double value) {
        comma();
        char text[32];
        if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {  // whole: no printf
            auto whole = static_cast<long long>(value);
            char* end = text + sizeof text;
            char* at = end;
            const bool negative = whole < 0;
            unsigned long long digits = negative ? 0ull - static_cast<unsigned long long>(whole) : whole;
            do { *--at = static_cast<char>('0' + digits % 10); digits /= 10; } while (digits);
            if (negative) *--at = '-';
            out_.append(at, end);
        } else {
            std::snprintf(text, sizeof text, "%.17g", value);
            out_ += text;
        }
        return *this;
    }
    JsonWriter& boolean(bool value) { comma(); out_ += value ? "true" : "false"; return *this; }
    JsonWriter& null() { comma(); out_ += "null"; return *this; }
    JsonWriter& open(char bracket) { comma(); out_ += bracket; fresh_ = true; return *this; }
    JsonWriter& close(char bracket) { out_ += bracket; fresh_ = false; return *this; }
    template <class T>
    JsonWriter& numbers(const std::vector<T>& values) {
        open('[');
        for (const T& value : values) number(static_cast<double>(value));
        return close(']');
    }
    JsonWriter& strings(const std::vector<std::string>& values) {
        open('[');
        for (const std::string& value : values) string(value);
        return close(']');
    }
    std::string take() { return std::move(out_); }
    explicit JsonWriter(std::size_t expected_size = 0) { out_.reserve(expected_size); }

private:
    void comma() {
        if (!fresh_) out_ += ',';
        fresh_ = false;
    }
    std::string out_;
    bool fresh_ = true;
};

// What a run is, apart from its values: the summary and every step's metadata (all but data and
// changesValues). It depends on the config's sizes and options only, so while a slider moves
// the seed, or a page redraws, it is the same text run after run.
std::string metadata_json(const mha::Trace& t) {
    const mha::Dims& d = t.dims;
    JsonWriter j(8192);  // about 5.6 KB at the toy size
    j.open('{').key("summary").open('{');
    j.key("B").number(d.B).key("T").number(d.T).key("Tk").number(d.Tk).key("C").number(d.C);
    j.key("H").number(d.H).key("Hkv").number(d.Hkv).key("D").number(d.D);
    j.key("bias").boolean(t.bias).key("mask").string(t.mask == mha::MaskKind::causal ? "causal" : "none");
    j.key("keyLengths");
    if (t.key_lengths.empty()) j.null();
    else j.numbers(t.key_lengths);
    j.key("cross").boolean(d.cross).key("parameterCount").number(static_cast<double>(t.parameter_count));
    j.key("kvCacheBytesPerToken").number(static_cast<double>(t.kv_cache_bytes_per_token));
    j.key("flops").number(t.flops).key("snapshotBytes").number(static_cast<double>(t.snapshot_bytes)).close('}');
    j.key("steps").open('[');
    for (const mha::Snapshot& s : t.steps) {
        j.open('{').key("id").string(s.id).key("title").string(s.title).key("op").string(s.op);
        j.key("formula").string(s.formula).key("shapeFormula").string(s.shape_formula);
        j.key("shape").numbers(s.shape).key("axes").strings(s.axes);
        j.key("strides").numbers(s.strides).key("contiguous").boolean(s.contiguous);
        j.key("numel").number(static_cast<double>(s.numel));
        j.key("flops").number(s.flops).key("bytes").number(static_cast<double>(s.bytes)).close('}');
    }
    return j.close(']').close('}').take();
}

// True if `key` is one of the '|'-separated keys in `known`.
bool is_known(const std::string& known, const std::string& key) {
    for (std::size_t at = known.find(key); at != std::string::npos; at = known.find(key, at + 1)) {
        const std::size_t end = at + key.size();
        if ((at == 0 || known[at - 1] == '|') && (end == known.size() || known[end] == '|')) return true;
    }
    return false;
}

// Where the values of the pending trace are, as 32-bit words engine.js reads out of HEAPU32 (a
// JSON text of addresses cost more to write, decode and parse than the toy-size run itself):
//   step count S; per step [first float in HEAPF32, length, flags] (flags: 1 changesValues;
//   2 the same values as step number `first`, length 0; 4 streamed to engine.js during the run
//   as stream number `first`, length 0); output [first, length]; then Wq, Wk,
//   Wv, Wo, bq, bk, bv, bo as [first, length], length 0 for none (or explicit: the caller has them).
std::vector<std::uint32_t> pending_layout;

// A small run's tensors gathered into one block, so that engine.js copies them out with one
// slice (they lie scattered in the heap among the run's temporaries; one copy each cost more
// than the arithmetic of a toy-size run). Large runs are copied tensor by tensor.
std::vector<float> pending_values;
constexpr std::size_t gather_below = 65536;  // floats

// The scores-sized steps by number, as they are streamed to engine.js.
std::uint32_t stream_number(const std::string& id) {
    return id == "scores" ? 0 : id == "scaled" ? 1 : id == "masked" ? 2 : 3;
}

std::uint32_t heap_index(const float* values) {
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(values) / sizeof(float));
}

void lay_out(const mha::Trace& t, bool explicit_weights) {
    const std::vector<float>* weights[] = {&t.weights.Wq, &t.weights.Wk, &t.weights.Wv, &t.weights.Wo,
                                           &t.weights.bq, &t.weights.bk, &t.weights.bv, &t.weights.bo};
    std::size_t total = t.output.size();
    for (const mha::Snapshot& s : t.steps) total += s.data.size();
    for (const std::vector<float>* values : weights) total += explicit_weights ? 0 : values->size();
    pending_values.clear();
    if (total < gather_below) pending_values.reserve(total);
    // Where engine.js finds `values`: in the gathered block for a small run, else where they are.
    auto place = [&](const std::vector<float>& values) {
        if (total >= gather_below) return heap_index(values.data());
        const std::size_t at = pending_values.size();
        pending_values.insert(pending_values.end(), values.data(), values.data() + values.size());  // pointers: one memcpy
        return heap_index(pending_values.data() + at);  // reserved: the block does not move
    };
    std::vector<std::uint32_t>& words = pending_layout;
    words.clear();
    words.push_back(static_cast<std::uint32_t>(t.steps.size()));
    for (const mha::Snapshot& s : t.steps) {
        const std::uint32_t changes = s.changes_values ? 1 : 0;
        if (s.streamed) {  // engine.js holds them already, in the stream of this number
            words.insert(words.end(), {stream_number(s.id), 0, changes | 4});
            continue;
        }
        if (s.same_values_as.empty()) {
            words.insert(words.end(), {place(s.data), static_cast<std::uint32_t>(s.data.size()), changes});
            continue;
        }
        std::uint32_t index = 0;
        while (t.steps[index].id != s.same_values_as) ++index;  // recorded earlier, so it is there
        words.insert(words.end(), {index, 0, changes | 2});
    }
    words.insert(words.end(), {place(t.output), static_cast<std::uint32_t>(t.output.size())});
    for (const std::vector<float>* values : weights) {
        const bool sent = !explicit_weights && !values->empty();
        words.insert(words.end(), {sent ? place(*values) : 0, sent ? static_cast<std::uint32_t>(values->size()) : 0});
    }
}

// A run for engine.js: "<layout's index in HEAPU32> <metadata key>\n<warnings as JSON>\n<metadata
// as JSON, or nothing when the run was not described because engine.js holds it>".
std::string trace_text(const mha::Trace& t, const std::string& key, bool described, bool explicit_weights) {
    lay_out(t, explicit_weights);
    JsonWriter warnings;
    warnings.strings(t.warnings);
    std::string text = std::to_string(reinterpret_cast<std::uintptr_t>(pending_layout.data()) / sizeof(std::uint32_t));
    text += ' ';
    text += key;
    text += '\n';
    text += warnings.take();
    text += '\n';
    if (described) text += metadata_json(t);
    return text;
}

// Runs `fn`, turning every exception into what `fail(code, field, message)` makes of it, so that
// nothing aborts the module.
template <class Fn, class Fail>
auto guarded_with(Fn&& fn, Fail&& fail) -> decltype(fn()) {
    try {
        return fn();
    } catch (const mha::MhaError& e) {
        return fail(mha::code_name(e.code()), e.field(), e.what());
    } catch (const std::bad_alloc&) {
        return fail("out_of_memory", "memoryCap",
                    "The engine ran out of memory for this config: lower B, T, Tk or H, or memoryCap.");
    } catch (const std::exception& e) {
        return fail("internal", "", std::string("Internal engine error: ") + e.what());
    }
}

// An error as a value {ok: false, error: {code, field, message}}.
template <class Fn>
val guarded(Fn&& fn) {
    return guarded_with(std::forward<Fn>(fn), failure);
}

// For a function that returns text: an error comes back as "!" and {code, field, message} as
// JSON. run() returns its trace this way: building a JS object for the result (one Embind
// property write per field) cost a fifth of a toy-size run without snapshots.
template <class Fn>
std::string guarded_text(Fn&& fn) {
    return guarded_with(std::forward<Fn>(fn), [](const std::string& code, const std::string& field, const std::string& message) {
        JsonWriter j;
        j.open('{').key("code").string(code).key("field").string(field).key("message").string(message).close('}');
        return "!" + j.take();
    });
}

// The metadata keys engine.js last said it holds ('|'-separated). It sends them again only when
// they change ("=" means: as before), since encoding them on every call cost more than a toy run's
// softmax.
std::string known_keys;

// Runs the forward pass and keeps its trace for engine.js to copy out. A run whose metadata key
// engine.js says it holds is computed without describing its steps.
// A run whose scores-sized steps hold at least this many values each hands them to engine.js
// head by head while they are in cache (Config::head_values), rather than keeping them for a copy
// from the heap afterwards: B=1 T=512 C=768 H=12 wrote and read 38 MB less. (A call out to JS
// per head costs more than the copy at toy sizes.)
constexpr double stream_from = 65536;

std::string run_config(mha::Config&& config, const val& stream) {
    const double scores_sized = static_cast<double>(config.B) * static_cast<double>(config.H) *
                                static_cast<double>(config.T) * static_cast<double>(config.Tk.value_or(config.T));
    if (!stream.isUndefined() && scores_sized >= stream_from) {
        config.head_values = [&stream, scores_sized](const char* id, std::size_t offset, const float* values, std::size_t count) {
            stream(stream_number(id), static_cast<double>(offset), heap_index(values), static_cast<double>(count), scores_sized);
        };
    }
    const bool explicit_weights = config.weights.has_value();
    const std::string key = mha::metadata_key(config);
    config.describe = !is_known(known_keys, key);
    config.copy_same_values = false;  // lay_out() sends such steps as a reference to the earlier one
    const bool described = config.describe;
    pending_trace.reset();  // a run engine.js did not release (it always does) goes now
    pending_trace = std::make_unique<mha::Trace>(mha::forward(std::move(config)));
    pending_explicit_weights = explicit_weights;
    // forward() took the weights over into the trace (release_trace() keeps them); x and kv stay here.
    if (config.x) spare_inputs[0] = std::move(*config.x);
    if (config.kv) spare_inputs[1] = std::move(*config.kv);
    return trace_text(*pending_trace, key, described, explicit_weights);
}

// The explicit tensors by slot (spare_inputs' order): x, kv, then the weights.
constexpr const char* input_names[] = {"x", "kv", "Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "bo"};
constexpr std::vector<float> mha::Weights::*weight_fields[] = {&mha::Weights::Wq, &mha::Weights::Wk, &mha::Weights::Wv,
                                                               &mha::Weights::Wo, &mha::Weights::bq, &mha::Weights::bk,
                                                               &mha::Weights::bv, &mha::Weights::bo};

// Puts an explicit tensor into its place in `config`.
void set_input(mha::Config& config, std::size_t slot, std::vector<float>&& values) {
    if (slot == 0) config.x = std::move(values);
    else if (slot == 1) config.kv = std::move(values);
    else (config.weights ? *config.weights : config.weights.emplace()).*weight_fields[slot - 2] = std::move(values);
}

// Copies the explicit tensors into `config` and runs it (run() and run_fields()).
std::string run_with_tensors(mha::Config&& config, const val& tensors, const val& stream) {
    if (tensors.isNull()) return run_config(std::move(config), stream);  // nothing explicit: skip the lookups
    for (std::size_t slot = 0; slot < 10; ++slot) {
        const val tensor = tensors[input_names[slot]];  // one property read per name (a call out to JS)
        if (!tensor.isUndefined()) set_input(config, slot, input_of(slot, tensor, config));
    }
    return run_config(std::move(config), stream);
}

// config: the config without its tensors; tensors: {x, kv, Wq, Wk, Wv, Wo, bq, bk, bv, bo}
// as Float32Arrays, each optional, or null when there are none; known_metadata: the keys of the
// metadata engine.js holds, '|'-separated ("" for none), or "=" for the same as the last call.
// Returns the trace text (trace_text) or "!" and the error as JSON. `stream(number, offset,
// first, count, total)`: engine.js's function that copies count floats at HEAPF32[first] to
// offset `offset` of scores-sized step `number` (of `total` values), or undefined.
std::string run(const val& config, const val& tensors, const std::string& known_metadata, const val& stream) {
    if (known_metadata != "=") known_keys = known_metadata;  // first: before anything can throw
    return guarded_text([&] { return run_with_tensors(config_from_js(config), tensors, stream); });
}

// A plain config as numbers, written by engine.js into `wire_fields` (HEAPF64 from
// fieldsAddress()): what a slider sends, run after run. engine.js uses it only for a config that
// read_config would read without complaint to the same Config (every size a safe integer, seed
// 0…2³²−1, mask and snapshots known words, no other keys; see web/src/wire-fields.js), so its
// errors (validate()'s) are those of the object path. Parsing the config as JSON was a third of a
// toy-size run's instructions. NaN: the key is absent.
//   [0] B [1] T [2] C [3] H [4] Tk [5] Hkv [6] bias 0/1 [7] seed [8] mask 0 none / 1 causal
//   [9] snapshots 0 false / 1 true / 2 "lazy" [10] memoryCap [11] a weights object (its tensors
//   are in `tensors` or staged) [12…21] the lengths of the tensors staged, by slot (x, kv, Wq, …,
//   bo) [22] keyLengths count [23…] keyLengths
constexpr std::size_t wire_staged = 12, wire_key_lengths = 22, wire_max_key_lengths = 256;
double wire_fields[wire_key_lengths + 1 + wire_max_key_lengths];

double fields_address() { return static_cast<double>(reinterpret_cast<std::uintptr_t>(wire_fields) / sizeof(double)); }

// Small explicit tensors of a plain config, written by engine.js straight into HEAPF32 here, one
// after another (web/src/wire-fields.js, stageTensors): a toy run's ten tensors read one Embind
// call at a time (length, view, set, handles) cost a third of the run. `floats` at most; returns
// the first one's index in HEAPF32 (the heap may grow: engine.js takes its views afterwards).
std::vector<float> staging;

double staging_address(double floats) {
    const auto count = static_cast<std::size_t>(floats);
    if (staging.size() < count) staging.resize(count);
    return static_cast<double>(heap_index(staging.data()));
}

std::string run_fields(const val& tensors, const std::string& known_metadata, const val& stream) {
    if (known_metadata != "=") known_keys = known_metadata;
    return guarded_text([&] {
        const double* f = wire_fields;
        auto given = [&](std::size_t i) { return !std::isnan(f[i]); };
        auto whole = [&](std::size_t i) { return static_cast<std::int64_t>(f[i]); };
        mha::Config config;
        config.B = whole(0), config.T = whole(1), config.C = whole(2), config.H = whole(3);
        if (given(4)) config.Tk = whole(4);
        if (given(5)) config.Hkv = whole(5);
        if (given(6)) config.bias = f[6] != 0;
        if (given(7)) config.seed = static_cast<std::uint32_t>(f[7]);
        if (given(8)) config.mask = f[8] == 1 ? mha::MaskKind::causal : mha::MaskKind::none;
        if (f[9] == 2) config.lazy = true;
        else if (given(9)) config.snapshots = f[9] == 1;
        if (given(10)) config.memory_cap = static_cast<std::uint64_t>(f[10]);
        if (given(11)) config.weights = mha::Weights{};
        if (given(wire_key_lengths)) {
            const auto count = std::min(static_cast<std::size_t>(f[wire_key_lengths]), wire_max_key_lengths);
            config.key_lengths.emplace(count);
            for (std::size_t b = 0; b < count; ++b) (*config.key_lengths)[b] = whole(wire_key_lengths + 1 + b);
        }
        // The staged tensors, each scanned for validate() as it is copied out (it is small).
        const float* staged = staging.data();
        for (std::size_t slot = 0; slot < 10; ++slot) {
            if (!given(wire_staged + slot)) continue;
            const auto count = static_cast<std::size_t>(f[wire_staged + slot]);
            std::vector<float> values = std::move(spare_inputs[slot]);
            values.assign(staged, staged + count);
            staged += count;
            config.largest_known.emplace_back(values.data(), mha::largest_magnitude(values));
            set_input(config, slot, std::move(values));
        }
        return run_with_tensors(std::move(config), tensors, stream);
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

// Frees the trace of the last run once engine.js has copied what it needs.
void release_trace() {
    if (pending_trace && pending_explicit_weights) {
        mha::Weights& w = pending_trace->weights;
        std::vector<float>* kept[] = {&w.Wq, &w.Wk, &w.Wv, &w.Wo, &w.bq, &w.bk, &w.bv, &w.bo};
        for (std::size_t i = 0; i < 8; ++i) spare_inputs[2 + i] = std::move(*kept[i]);
    }
    pending_trace.reset();
    pending_layout.clear();
    pending_values.clear();
}

}  // namespace

EMSCRIPTEN_BINDINGS(mha_lens) {
    emscripten::function("run", &run);
    emscripten::function("runFields", &run_fields);
    emscripten::function("fieldsAddress", &fields_address);
    emscripten::function("stagingAddress", &staging_address);
    emscripten::function("fromTorch", &from_torch);
    emscripten::function("matmul", &matmul);
    emscripten::function("releaseTrace", &release_trace);
}
