#pragma once
/// @file config_reader.hpp
/// @brief Reads a Config out of a JSON-like value, naming any field of the wrong type. One
///        reader, two sources: parsed JSON text (config_from_json, config_json.cpp) and, in the
///        WebAssembly bindings, the JS config object itself (so the wasm build carries no JSON
///        parser: the browser already parsed whatever JSON there was). Semantic checks
///        (divisibility, lengths) are `validate`'s job.
///
/// A value type V for read_config<V> provides:
///   ValueKind kind() const;                  null (also an undefined value), missing (a hole in a
///                                            JS array), boolean, number (finite), string, array,
///                                            object, or other
///   std::optional<std::string> special_number() const;  "NaN", "Infinity" or "-Infinity" for a
///                                            number that is not finite, else nullopt
///   bool boolean() const;  double number() const;  std::string string() const;
///   std::optional<std::int64_t> integer() const;  the number if written as an integer that fits
///   std::string text() const;                a number as the user would read it ("2.5")
///   std::size_t size() const;  V at(std::size_t i) const;        arrays
///   std::vector<std::string> keys() const;   objects: the keys holding a value, sorted
///   bool has(const char* key) const;  V get(const char* key) const;

#include <cctype>
#include <cfloat>
#include <cmath>
#include <limits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "error.hpp"

namespace mha {

enum class ValueKind { null, missing, boolean, number, string, array, object, other };

namespace config_reader {

inline const char* const known_keys[] = {"B", "T", "Tk", "C", "H", "Hkv", "bias", "addBiasKv", "addZeroAttn", "seed", "mask", "keyLengths",
                                         "attnMask", "keyPaddingMask",
                                         "x", "kv", "weights", "memoryCap", "snapshots", "dOutput",
                                         "algorithm", "blockQ", "blockK"};

// The known keys as a list parameter of a message.
inline std::string known_key_list() { return list_param({std::begin(known_keys), std::end(known_keys)}); }

inline std::string shortened(std::string text) { return text.size() > 40 ? text.substr(0, 40) + "…" : text; }

// How a value reads in a message ({@got}): NaN as NaN, strings quoted and shortened, arrays by length.
template <class V>
Params described(const V& value) {
    if (const auto special = value.special_number()) return {{"got", "term.got.value"}, {"got_text", *special}};
    switch (value.kind()) {
        case ValueKind::string: return {{"got", "term.got.string"}, {"got_text", shortened(value.string())}};
        case ValueKind::array: return {{"got", "term.got.array"}, {"got_text", std::to_string(value.size())}};
        case ValueKind::object: return {{"got", "term.got.object"}};
        case ValueKind::null:
        case ValueKind::missing: return {{"got", "term.got.null"}};
        case ValueKind::boolean: return {{"got", "term.got.value"}, {"got_text", value.boolean() ? "true" : "false"}};
        case ValueKind::number: return {{"got", "term.got.value"}, {"got_text", shortened(value.text())}};
        default: return {{"got", "term.got.other"}};
    }
}

template <class V>
[[noreturn]] void wrong_type(const std::string& field, const char* wanted, const V& got) {
    Params params{{"field", field}, {"wanted", wanted}};
    for (auto& param : described(got)) params.push_back(std::move(param));
    throw MhaError(field, "bad_type.value", std::move(params));
}

// `field` names the value in the message, `config_field` the config field at fault.
template <class V>
std::int64_t whole_number(const std::string& field, const V& value, const char* wanted, const std::string& config_field) {
    if (value.kind() == ValueKind::missing) throw MhaError(config_field, "missing.hole", {{"field", field}});
    if (value.kind() != ValueKind::number) {
        Params params{{"field", field}, {"wanted", wanted}};
        for (auto& param : described(value)) params.push_back(std::move(param));
        throw MhaError(config_field, "bad_type.value", std::move(params));
    }
    if (const auto integer = value.integer()) return *integer;
    const double number = value.number();
    if (std::floor(number) != number)
        throw MhaError(config_field, "bad_size.not_whole", {{"field", field}, {"value", value.text()}, {"wanted", wanted}});
    if (std::fabs(number) > 9.0e15) throw MhaError(config_field, "bad_size.huge", {{"field", field}, {"value", value.text()}});
    return static_cast<std::int64_t>(number);
}

template <class V>
std::int64_t whole_number(const std::string& field, const V& value, const char* wanted) {
    return whole_number(field, value, wanted, field);
}

template <class V>
std::vector<float> float_array(const std::string& field, const V& value) {
    if (value.kind() != ValueKind::array) wrong_type(field, "term.wanted.floats", value);
    const std::size_t n = value.size();
    std::vector<float> values;
    values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const V element = value.at(i);
        const std::string where = field + "[" + std::to_string(i) + "]";
        if (element.kind() == ValueKind::number) {
            const double number = element.number();
            // Past float32's range the cast would give Infinity, and the message "is Infinity".
            if (std::fabs(number) > FLT_MAX) throw MhaError(field, "non_finite.range", {{"field", where}, {"value", element.text()}});
            values.push_back(static_cast<float>(number));
        } else if (const auto special = element.special_number()) {
            throw MhaError(field, "non_finite.value", {{"field", where}, {"value", *special}});
        } else if (element.kind() == ValueKind::missing) {
            throw MhaError(where, "missing.hole", {{"field", where}});
        } else {
            wrong_type(where, "term.wanted.number", element);
        }
    }
    return values;
}

inline std::string closest_key(const std::string& key) {
    for (const char* known : known_keys) {
        std::string a = key, b = known;
        for (auto& ch : a) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        for (auto& ch : b) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (a == b || (a == "key_lengths" && b == "keylengths") || (a == "memory_cap" && b == "memorycap") ||
            ((a == "d_output" || a == "doutput" || a == "grad_output") && b == "doutput") ||
            (a == "block_q" && b == "blockq") || (a == "block_k" && b == "blockk"))
            return known;
    }
    return "";
}

// PyTorch's argument names (nn.MultiheadAttention, scaled_dot_product_attention) and the sizes
// usual names: what the engine calls the same thing, or a term that says what it does instead.
struct TorchName {
    const char* name;
    const char* engine;  ///< the engine's option ("" when `term` says it all)
    const char* term;
};
inline constexpr TorchName torch_names[] = {
    {"embed_dim", "C", "term.torch.equivalent"},     {"d_model", "C", "term.torch.equivalent"},
    {"hidden_size", "C", "term.torch.equivalent"},   {"num_heads", "H", "term.torch.equivalent"},
    {"n_head", "H", "term.torch.equivalent"},        {"n_heads", "H", "term.torch.equivalent"},
    {"num_attention_heads", "H", "term.torch.equivalent"},
    {"num_key_value_heads", "Hkv", "term.torch.equivalent"}, {"num_kv_heads", "Hkv", "term.torch.equivalent"},
    {"enable_gqa", "Hkv", "term.torch.equivalent"},  {"add_bias_kv", "addBiasKv", "term.torch.equivalent"},
    {"add_zero_attn", "addZeroAttn", "term.torch.equivalent"}, {"batchFirst", "", "term.torch.batch_first"},
    {"is_causal", "mask: \"causal\"", "term.torch.equivalent"}, {"batch_size", "B", "term.torch.equivalent"},
    {"seq_len", "T", "term.torch.equivalent"},       {"query", "x", "term.torch.equivalent"},
    {"key", "kv", "term.torch.equivalent"},          {"value", "kv", "term.torch.equivalent"},
    {"attn_mask", "", "term.torch.attn_mask"},       {"key_padding_mask", "", "term.torch.key_padding_mask"},
    {"batch_first", "", "term.torch.batch_first"},   {"dropout", "", "term.torch.dropout"},
    {"dropout_p", "", "term.torch.dropout"},         {"need_weights", "", "term.torch.need_weights"},
    {"average_attn_weights", "", "term.torch.average_attn_weights"}, {"scale", "", "term.torch.scale"},
    {"kdim", "", "term.torch.refused"},
    {"vdim", "", "term.torch.refused"},
};

inline const TorchName* torch_name(const std::string& key) {
    for (const TorchName& t : torch_names)
        if (key == t.name) return &t;
    return nullptr;
}

// True if the object has `key` with a value other than null.
template <class V>
bool given(const V& object, const char* key) {
    return object.has(key) && object.get(key).kind() != ValueKind::null;
}

// A mask's values: booleans or 0/1 for `masked` and `attend`, numbers (−∞ allowed) for `add`.
template <class V>
std::vector<float> mask_values(const std::string& field, MaskInput::Form form, const V& value) {
    if (value.kind() != ValueKind::array) wrong_type(field, "term.wanted.mask_values", value);
    std::vector<float> values;
    values.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
        const V element = value.at(i);
        const std::string where = field + "[" + std::to_string(i) + "]";
        if (element.kind() == ValueKind::missing) throw MhaError(field, "missing.hole", {{"field", where}});
        if (form != MaskInput::Form::add && element.kind() == ValueKind::boolean) {
            values.push_back(element.boolean() ? 1.0f : 0.0f);
        } else if (element.kind() == ValueKind::number) {
            const double number = element.number();
            if (std::fabs(number) > FLT_MAX) throw MhaError(field, "non_finite.range", {{"field", where}, {"value", element.text()}});
            values.push_back(static_cast<float>(number));
        } else if (const auto special = element.special_number(); special && *special == "-Infinity" && form == MaskInput::Form::add) {
            values.push_back(-std::numeric_limits<float>::infinity());
        } else if (form == MaskInput::Form::add && element.kind() == ValueKind::string &&
                   (element.string() == "-Infinity" || element.string() == "-inf")) {
            values.push_back(-std::numeric_limits<float>::infinity());  // JSON has no −∞: written as text
        } else {
            Params params{{"field", where}, {"wanted", form == MaskInput::Form::add ? "term.wanted.mask_add" : "term.wanted.mask_bool"}};
            for (auto& param : described(element)) params.push_back(std::move(param));
            throw MhaError(field, "bad_type.value", std::move(params));
        }
    }
    return values;
}

// attnMask or keyPaddingMask: {shape, masked | attend | add}. With `with_values` false the
// values are left for the caller (the bindings copy a typed array in at once).
template <class V>
MaskInput parse_mask(const std::string& field, const V& value, bool with_values = true) {
    if (value.kind() != ValueKind::object) wrong_type(field, "term.wanted.mask", value);
    MaskInput mask;
    int forms = 0;
    for (const std::string& key : value.keys()) {
        if (key == "shape") continue;
        if (key == "masked") mask.form = MaskInput::Form::masked;
        else if (key == "attend") mask.form = MaskInput::Form::attend;
        else if (key == "add") mask.form = MaskInput::Form::add;
        else throw MhaError(field + "." + key, "unknown_key.mask", {{"field", field}, {"key", key}});
        ++forms;
    }
    if (forms != 1) throw MhaError(field, "bad_mask.form", {{"field", field}});
    if (given(value, "shape")) {
        const V shape = value.get("shape");
        if (shape.kind() != ValueKind::array) wrong_type(field + ".shape", "term.wanted.mask_shape", shape);
        for (std::size_t i = 0; i < shape.size(); ++i)
            mask.shape.push_back(whole_number(field + ".shape[" + std::to_string(i) + "]", shape.at(i), "term.wanted.whole_min_1", field));
    }
    if (with_values) mask.values = mask_values(field + "." + mask_form_name(mask.form), mask.form, value.get(mask_form_name(mask.form)));
    return mask;
}

template <class V>
Weights parse_weights(const V& value) {
    if (value.kind() != ValueKind::object) wrong_type("weights", "term.wanted.weights", value);
    Weights w;
    for (const std::string& key : value.keys()) {
        const WeightField* field = nullptr;
        for (const WeightField& f : weight_fields)
            if (key == f.name) field = &f;
        if (!field) throw MhaError("weights." + key, "unknown_key.weights", {{"key", key}});
        w.*field->member = float_array("weights." + key, value.get(field->name));
    }
    return w;
}

}  // namespace config_reader

/// @brief The Config a JSON-like object describes: the keys B, T, Tk, C, H, Hkv, bias, seed,
///        mask, keyLengths, x, kv, weights {Wq, Wk, Wv, Wo, bq, bk, bv, bo}, memoryCap, snapshots,
///        algorithm, blockQ, blockK.
/// @throws MhaError naming the field at fault
template <class V>
Config read_config(const V& root) {
    using namespace config_reader;
    if (root.kind() != ValueKind::object) throw MhaError("config", "bad_type.config", described(root));

    for (const std::string& key : root.keys()) {
        bool known = false;
        for (const char* name : known_keys) known = known || key == name;
        if (known) continue;
        Params params{{"key", key}, {"known", known_key_list()}};
        if (key.empty()) params.push_back({"empty", "term.empty_name"});
        const std::string hint = closest_key(key);
        if (const TorchName* torch = torch_name(key))
            params.insert(params.end(), {{"hint", torch->term}, {"suggestion", torch->engine}});
        else if (!hint.empty())
            params.insert(params.end(), {{"hint", "term.did_you_mean"}, {"suggestion", hint}});
        // An empty key cannot name the field at fault; the config as a whole can.
        throw MhaError(key.empty() ? "config" : key, "unknown_key.config", std::move(params));
    }

    Config c;
    const char* required[] = {"B", "T", "C", "H"};
    const char* examples[] = {"2", "4", "8", "2"};
    std::int64_t* sizes[] = {&c.B, &c.T, &c.C, &c.H};
    for (std::size_t i = 0; i < 4; ++i) {
        const std::string key = required[i];
        if (!root.has(required[i]))
            throw MhaError(key, "missing.size", {{"field", key}, {"meaning", "term.set." + key}, {"example", examples[i]}});
        *sizes[i] = whole_number(key, root.get(required[i]), "term.wanted.whole_min_1");
    }
    if (given(root, "Tk")) c.Tk = whole_number("Tk", root.get("Tk"), "term.wanted.whole_min_1");
    if (given(root, "Hkv")) c.Hkv = whole_number("Hkv", root.get("Hkv"), "term.wanted.whole_min_1");

    if (root.has("bias")) {
        const V bias = root.get("bias");
        if (bias.kind() != ValueKind::boolean) wrong_type("bias", "term.wanted.bool", bias);
        c.bias = bias.boolean();
    }
    if (given(root, "addBiasKv")) {
        const V add = root.get("addBiasKv");
        if (add.kind() != ValueKind::boolean) wrong_type("addBiasKv", "term.wanted.bool", add);
        c.add_bias_kv = add.boolean();
    }
    if (given(root, "addZeroAttn")) {
        const V add = root.get("addZeroAttn");
        if (add.kind() != ValueKind::boolean) wrong_type("addZeroAttn", "term.wanted.bool", add);
        c.add_zero_attn = add.boolean();
    }
    if (root.has("snapshots")) {
        const V snapshots = root.get("snapshots");
        if (snapshots.kind() == ValueKind::string && snapshots.string() == "lazy") c.snapshots = Snapshots::lazy;
        else if (snapshots.kind() == ValueKind::boolean) c.snapshots = snapshots.boolean() ? Snapshots::all : Snapshots::none;
        else wrong_type("snapshots", "term.wanted.snapshots", snapshots);
    }
    if (root.has("seed")) {
        const std::int64_t seed = whole_number("seed", root.get("seed"), "term.wanted.seed");
        if (seed < 0 || seed > 0xFFFFFFFFll) throw MhaError("seed", "bad_value.seed", {{"value", std::to_string(seed)}});
        c.seed = static_cast<std::uint32_t>(seed);
    }
    if (root.has("mask")) {
        const V mask = root.get("mask");
        const std::string word = mask.kind() == ValueKind::string ? mask.string() : std::string();
        if (word == "none") c.mask = MaskKind::none;
        else if (word == "causal") c.mask = MaskKind::causal;
        else throw MhaError("mask", "bad_value.mask", described(mask));
    }
    if (given(root, "keyLengths")) {
        const V lengths = root.get("keyLengths");
        if (lengths.kind() != ValueKind::array) wrong_type("keyLengths", "term.wanted.key_lengths", lengths);
        std::vector<std::int64_t> values;
        for (std::size_t b = 0; b < lengths.size(); ++b)
            values.push_back(whole_number("keyLengths[" + std::to_string(b) + "]", lengths.at(b), "term.wanted.whole_min_0"));
        c.key_lengths = std::move(values);
    }
    if (given(root, "attnMask")) c.attn_mask = parse_mask("attnMask", root.get("attnMask"));
    if (given(root, "keyPaddingMask")) c.key_padding_mask = parse_mask("keyPaddingMask", root.get("keyPaddingMask"));
    if (root.has("memoryCap")) {
        const std::int64_t cap = whole_number("memoryCap", root.get("memoryCap"), "term.wanted.bytes");
        if (cap < 1) throw MhaError("memoryCap", "bad_value.memory_cap", {});
        c.memory_cap = static_cast<std::uint64_t>(cap);
    }
    // --- Tiled and incremental attention ---
    if (root.has("algorithm")) {
        const V algorithm = root.get("algorithm");
        const std::string word = algorithm.kind() == ValueKind::string ? algorithm.string() : std::string();
        if (word == "naive") c.algorithm = Algorithm::naive;
        else if (word == "tiled") c.algorithm = Algorithm::tiled;
        else if (word == "incremental") c.algorithm = Algorithm::incremental;
        else throw MhaError("algorithm", "bad_value.algorithm", described(algorithm));
    }
    if (given(root, "blockQ")) c.block_q = whole_number("blockQ", root.get("blockQ"), "term.wanted.whole_min_1");
    if (given(root, "blockK")) c.block_k = whole_number("blockK", root.get("blockK"), "term.wanted.whole_min_1");

    if (given(root, "x")) c.x = float_array("x", root.get("x"));
    if (given(root, "kv")) c.kv = float_array("kv", root.get("kv"));
    if (given(root, "weights")) c.weights = parse_weights(root.get("weights"));
    if (given(root, "dOutput")) c.d_output = float_array("dOutput", root.get("dOutput"));
    return c;
}

}  // namespace mha
