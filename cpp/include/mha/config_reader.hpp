#pragma once
/// @file config_reader.hpp
/// @brief Reads a Config out of a JSON-like value, naming any field of the wrong type. One
///        reader, two sources: parsed JSON text (config_from_json, config_json.cpp) and, in the
///        WebAssembly bindings, the JS config object itself (so the wasm build carries no JSON
///        parser: the browser already parsed whatever JSON there was). Semantic checks
///        (divisibility, lengths) are `validate`'s job.
///
/// A value type V for read_config<V> provides:
///   ValueKind kind() const;                  null (also a missing or undefined value), boolean,
///                                            number (finite), string, array, object, or other
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
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "error.hpp"

namespace mha {

enum class ValueKind { null, boolean, number, string, array, object, other };

namespace config_reader {

inline const char* const known_keys[] = {"B", "T", "Tk", "C", "H", "Hkv", "bias", "seed", "mask", "keyLengths",
                                         "x", "kv", "weights", "memoryCap", "snapshots", "request"};
inline const char* const weight_keys[] = {"Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "bo"};

// How a value reads in a message: NaN as NaN, strings quoted and shortened, arrays by length.
template <class V>
std::string describe(const V& value) {
    if (const auto special = value.special_number()) return *special;
    switch (value.kind()) {
        case ValueKind::string: {
            std::string text = value.string();
            if (text.size() > 40) text = text.substr(0, 40) + "…";
            return "the string \"" + text + "\"";
        }
        case ValueKind::array: return "an array of " + std::to_string(value.size());
        case ValueKind::object: return "an object";
        case ValueKind::null: return "null";
        case ValueKind::boolean: return value.boolean() ? "true" : "false";
        case ValueKind::number: {
            std::string text = value.text();
            return text.size() > 40 ? text.substr(0, 40) + "…" : text;
        }
        default: return "a value of another kind";
    }
}

template <class V>
[[noreturn]] void wrong_type(const std::string& field, const std::string& wanted, const V& got) {
    throw MhaError(ErrorCode::bad_type, field, field + " must be " + wanted + ", not " + describe(got) + ".");
}

template <class V>
std::int64_t whole_number(const std::string& field, const V& value, const std::string& wanted) {
    if (value.kind() != ValueKind::number) wrong_type(field, wanted, value);
    if (const auto integer = value.integer()) return *integer;
    const double number = value.number();
    if (std::floor(number) != number)
        throw MhaError(ErrorCode::bad_size, field, field + "=" + value.text() + " is not a whole number: " + field +
                                                       " counts things, so it must be " + wanted + ".");
    if (std::fabs(number) > 9.0e15) throw MhaError(ErrorCode::bad_size, field, field + "=" + value.text() + " is too large.");
    return static_cast<std::int64_t>(number);
}

template <class V>
std::vector<float> float_array(const std::string& field, const V& value) {
    if (value.kind() != ValueKind::array) wrong_type(field, "an array of numbers (row-major values)", value);
    const std::size_t n = value.size();
    std::vector<float> values;
    values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const V element = value.at(i);
        const std::string where = field + "[" + std::to_string(i) + "]";
        if (element.kind() == ValueKind::number) {
            const double number = element.number();
            // Past float32's range the cast would give Infinity, and the message "is Infinity".
            if (std::fabs(number) > FLT_MAX)
                throw MhaError(ErrorCode::non_finite, field,
                               where + "=" + element.text() + " is beyond float32's range (±3.4e+38): tensors are float32.");
            values.push_back(static_cast<float>(number));
        } else if (const auto special = element.special_number()) {
            throw MhaError(ErrorCode::non_finite, field, where + " is " + *special + ": explicit tensors must hold finite numbers.");
        } else {
            wrong_type(where, "a number", element);
        }
    }
    return values;
}

inline std::string closest_key(const std::string& key) {
    for (const char* known : known_keys) {
        std::string a = key, b = known;
        for (auto& ch : a) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        for (auto& ch : b) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (a == b || (a == "key_lengths" && b == "keylengths") || (a == "memory_cap" && b == "memorycap")) return known;
    }
    return "";
}

template <class V>
Weights parse_weights(const V& value) {
    if (value.kind() != ValueKind::object) wrong_type("weights", "an object {Wq, Wk, Wv, Wo, bq, bk, bv, bo}", value);
    Weights w;
    std::vector<float>* slots[] = {&w.Wq, &w.Wk, &w.Wv, &w.Wo, &w.bq, &w.bk, &w.bv, &w.bo};
    for (const std::string& key : value.keys()) {
        bool found = false;
        for (std::size_t i = 0; i < 8; ++i)
            if (key == weight_keys[i]) {
                *slots[i] = float_array("weights." + key, value.get(weight_keys[i]));
                found = true;
            }
        if (!found)
            throw MhaError(ErrorCode::unknown_key, "weights." + key,
                           "Unknown key weights." + key + ": weights takes Wq, Wk, Wv, Wo, bq, bk, bv and bo.");
    }
    return w;
}

// True if the object has `key` with a value other than null.
template <class V>
bool given(const V& object, const char* key) {
    return object.has(key) && object.get(key).kind() != ValueKind::null;
}

}  // namespace config_reader

/// @brief The Config a JSON-like object describes: the keys B, T, Tk, C, H, Hkv, bias, seed,
///        mask, keyLengths, x, kv, weights {Wq, Wk, Wv, Wo, bq, bk, bv, bo}, memoryCap, snapshots
///        (and request, which engine.js sends for run.step(id, {batch, head})).
/// @throws MhaError(bad_json | unknown_key | bad_type | missing | bad_size | bad_value | non_finite)
template <class V>
Config read_config(const V& root) {
    using namespace config_reader;
    if (root.kind() != ValueKind::object)
        throw MhaError(ErrorCode::bad_json, "config",
                       "The config must be a JSON object such as {\"B\": 2, \"T\": 4, \"C\": 8, \"H\": 2}, not " +
                           describe(root) + ".");

    for (const std::string& key : root.keys()) {
        bool known = false;
        for (const char* name : known_keys) known = known || key == name;
        if (!known) {
            const std::string hint = closest_key(key);
            std::string list;
            for (const char* name : known_keys) list += (list.empty() ? "" : ", ") + std::string(name);
            // An empty key cannot name the field at fault; the config as a whole can.
            throw MhaError(ErrorCode::unknown_key, key.empty() ? "config" : key,
                           "Unknown config key \"" + key + "\"" + (key.empty() ? " (an empty name)" : "") +
                               (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") + ". Known keys: " + list + ".");
        }
    }

    Config c;
    const char* required[][2] = {{"B", "the batch size"}, {"T", "the query length"}, {"C", "the model width"},
                                 {"H", "the number of heads"}};
    std::int64_t* sizes[] = {&c.B, &c.T, &c.C, &c.H};
    for (std::size_t i = 0; i < 4; ++i) {
        const std::string key = required[i][0];
        if (!root.has(required[i][0]))
            throw MhaError(ErrorCode::missing, key, key + " is missing: set " + required[i][1] + ", for example " +
                                                        key + ": " + (key == "C" ? "8" : key == "T" ? "4" : "2") + ".");
        *sizes[i] = whole_number(key, root.get(required[i][0]), "a whole number ≥ 1");
    }
    if (given(root, "Tk")) c.Tk = whole_number("Tk", root.get("Tk"), "a whole number ≥ 1");
    if (given(root, "Hkv")) c.Hkv = whole_number("Hkv", root.get("Hkv"), "a whole number ≥ 1");

    if (root.has("bias")) {
        const V bias = root.get("bias");
        if (bias.kind() != ValueKind::boolean) wrong_type("bias", "true or false", bias);
        c.bias = bias.boolean();
    }
    if (root.has("snapshots")) {
        const V snapshots = root.get("snapshots");
        if (snapshots.kind() == ValueKind::string && snapshots.string() == "lazy") {
            c.lazy = true;
        } else {
            if (snapshots.kind() != ValueKind::boolean) wrong_type("snapshots", "true, false or \"lazy\"", snapshots);
            c.snapshots = snapshots.boolean();
        }
    }
    if (given(root, "request")) {  // sent by engine.js for run.step(id, {batch, head})
        const V request = root.get("request");
        if (request.kind() != ValueKind::object || !request.has("id") || request.get("id").kind() != ValueKind::string)
            wrong_type("request", "an object {id, batch?, head?}", request);
        StepRequest r{request.get("id").string(), std::nullopt, std::nullopt};
        if (given(request, "batch")) r.batch = whole_number("batch", request.get("batch"), "a whole number ≥ 0");
        if (given(request, "head")) r.head = whole_number("head", request.get("head"), "a whole number ≥ 0");
        c.request = std::move(r);
    }
    if (root.has("seed")) {
        const std::int64_t seed = whole_number("seed", root.get("seed"), "a whole number from 0 to 4294967295");
        if (seed < 0 || seed > 0xFFFFFFFFll)
            throw MhaError(ErrorCode::bad_value, "seed",
                           "seed=" + std::to_string(seed) + " is outside 0 to 4294967295 (a 32-bit seed).");
        c.seed = static_cast<std::uint32_t>(seed);
    }
    if (root.has("mask")) {
        const V mask = root.get("mask");
        const std::string word = mask.kind() == ValueKind::string ? mask.string() : std::string();
        if (word == "none") c.mask = MaskKind::none;
        else if (word == "causal") c.mask = MaskKind::causal;
        else
            throw MhaError(ErrorCode::bad_value, "mask",
                           "mask must be \"none\" or \"causal\", not " + describe(mask) +
                               ". A padding mask is set with keyLengths, and combines with either.");
    }
    if (given(root, "keyLengths")) {
        const V lengths = root.get("keyLengths");
        if (lengths.kind() != ValueKind::array) wrong_type("keyLengths", "an array with one whole number per batch row", lengths);
        std::vector<std::int64_t> values;
        for (std::size_t b = 0; b < lengths.size(); ++b)
            values.push_back(whole_number("keyLengths[" + std::to_string(b) + "]", lengths.at(b), "a whole number ≥ 0"));
        c.key_lengths = std::move(values);
    }
    if (root.has("memoryCap")) {
        const std::int64_t cap = whole_number("memoryCap", root.get("memoryCap"), "a whole number of bytes");
        if (cap < 1) throw MhaError(ErrorCode::bad_value, "memoryCap", "memoryCap must be a positive number of bytes.");
        c.memory_cap = static_cast<std::uint64_t>(cap);
    }
    if (given(root, "x")) c.x = float_array("x", root.get("x"));
    if (given(root, "kv")) c.kv = float_array("kv", root.get("kv"));
    if (given(root, "weights")) c.weights = parse_weights(root.get("weights"));
    return c;
}

}  // namespace mha
