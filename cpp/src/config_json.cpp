#include "mha/config_json.hpp"

#include <cfloat>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "mha/error.hpp"

namespace mha {
namespace {

using json = nlohmann::json;

const char* const known_keys[] = {"B", "T", "Tk", "C", "H", "Hkv", "bias", "seed", "mask", "keyLengths",
                                  "x", "kv", "weights", "memoryCap", "snapshots", "request"};
const char* const weight_keys[] = {"Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "bo"};

// How a value reads in a message: NaN rather than {"$number":"NaN"}, long arrays shortened.
std::string describe(const json& value) {
    if (value.is_object() && value.size() == 1 && value.contains("$number") && value["$number"].is_string())
        return value["$number"].get<std::string>();
    if (value.is_string()) {
        std::string text = value.get<std::string>();
        if (text.size() > 40) text = text.substr(0, 40) + "…";
        return "the string \"" + text + "\"";
    }
    if (value.is_array()) return "an array of " + std::to_string(value.size());
    if (value.is_object()) return "an object";
    if (value.is_null()) return "null";
    std::string text = value.dump();
    return text.size() > 40 ? text.substr(0, 40) + "…" : text;
}

[[noreturn]] void wrong_type(const std::string& field, const std::string& wanted, const json& got) {
    throw MhaError(ErrorCode::bad_type, field, field + " must be " + wanted + ", not " + describe(got) + ".");
}

std::int64_t whole_number(const std::string& field, const json& value, const std::string& wanted) {
    if (value.is_number_integer()) {
        if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
            throw MhaError(ErrorCode::bad_size, field, field + "=" + value.dump() + " is too large.");
        return value.get<std::int64_t>();
    }
    if (value.is_number_float()) {
        const double number = value.get<double>();
        if (std::floor(number) != number)
            throw MhaError(ErrorCode::bad_size, field, field + "=" + value.dump() + " is not a whole number: " + field +
                                                           " counts things, so it must be " + wanted + ".");
        if (std::fabs(number) > 9.0e15)
            throw MhaError(ErrorCode::bad_size, field, field + "=" + value.dump() + " is too large.");
        return static_cast<std::int64_t>(number);
    }
    wrong_type(field, wanted, value);
}

std::vector<float> float_array(const std::string& field, const json& value) {
    if (!value.is_array()) wrong_type(field, "an array of numbers (row-major values)", value);
    std::vector<float> values;
    values.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
        const json& element = value[i];
        const std::string where = field + "[" + std::to_string(i) + "]";
        if (element.is_number()) {
            const double number = element.get<double>();
            // Past float32's range the cast would give Infinity, and the message "is Infinity".
            if (std::fabs(number) > FLT_MAX)
                throw MhaError(ErrorCode::non_finite, field,
                               where + "=" + element.dump() + " is beyond float32's range (±3.4e+38): tensors are float32.");
            values.push_back(static_cast<float>(number));
        } else if (element.is_object() && element.contains("$number")) {
            throw MhaError(ErrorCode::non_finite, field,
                           where + " is " + describe(element) + ": explicit tensors must hold finite numbers.");
        } else {
            wrong_type(where, "a number", element);
        }
    }
    return values;
}

std::string closest_key(const std::string& key) {
    for (const char* known : known_keys) {
        std::string a = key, b = known;
        for (auto& ch : a) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        for (auto& ch : b) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (a == b || (a == "key_lengths" && b == "keylengths") || (a == "memory_cap" && b == "memorycap")) return known;
    }
    return "";
}

Weights parse_weights(const json& value) {
    if (!value.is_object()) wrong_type("weights", "an object {Wq, Wk, Wv, Wo, bq, bk, bv, bo}", value);
    Weights w;
    std::vector<float>* slots[] = {&w.Wq, &w.Wk, &w.Wv, &w.Wo, &w.bq, &w.bk, &w.bv, &w.bo};
    for (const auto& item : value.items()) {
        bool found = false;
        for (std::size_t i = 0; i < 8; ++i)
            if (item.key() == weight_keys[i]) {
                *slots[i] = float_array("weights." + item.key(), item.value());
                found = true;
            }
        if (!found)
            throw MhaError(ErrorCode::unknown_key, "weights." + item.key(),
                           "Unknown key weights." + item.key() + ": weights takes Wq, Wk, Wv, Wo, bq, bk, bv and bo.");
    }
    return w;
}

}  // namespace

Config config_from_json(const std::string& text) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        throw MhaError(ErrorCode::bad_json, "config", std::string("The config is not valid JSON: ") + e.what());
    } catch (const json::exception& e) {  // out_of_range 406: a number beyond a double, such as 1e400
        throw MhaError(ErrorCode::bad_json, "config", std::string("The config holds a number it cannot read: ") + e.what());
    }
    if (!root.is_object())
        throw MhaError(ErrorCode::bad_json, "config",
                       "The config must be a JSON object such as {\"B\": 2, \"T\": 4, \"C\": 8, \"H\": 2}, not " +
                           describe(root) + ".");

    for (const auto& item : root.items()) {
        bool known = false;
        for (const char* key : known_keys) known = known || item.key() == key;
        if (!known) {
            const std::string hint = closest_key(item.key());
            std::string list;
            for (const char* key : known_keys) list += (list.empty() ? "" : ", ") + std::string(key);
            // An empty key cannot name the field at fault; the config as a whole can.
            throw MhaError(ErrorCode::unknown_key, item.key().empty() ? "config" : item.key(),
                           "Unknown config key \"" + item.key() + "\"" + (item.key().empty() ? " (an empty name)" : "") +
                               (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") + ". Known keys: " + list + ".");
        }
    }

    Config c;
    const char* required[][2] = {{"B", "the batch size"}, {"T", "the query length"}, {"C", "the model width"},
                                 {"H", "the number of heads"}};
    std::int64_t* sizes[] = {&c.B, &c.T, &c.C, &c.H};
    for (std::size_t i = 0; i < 4; ++i) {
        const std::string key = required[i][0];
        if (!root.contains(key))
            throw MhaError(ErrorCode::missing, key, key + " is missing: set " + required[i][1] + ", for example " +
                                                        key + ": " + (key == "C" ? "8" : key == "T" ? "4" : "2") + ".");
        *sizes[i] = whole_number(key, root[key], "a whole number ≥ 1");
    }
    if (root.contains("Tk") && !root["Tk"].is_null()) c.Tk = whole_number("Tk", root["Tk"], "a whole number ≥ 1");
    if (root.contains("Hkv") && !root["Hkv"].is_null()) c.Hkv = whole_number("Hkv", root["Hkv"], "a whole number ≥ 1");

    if (root.contains("bias")) {
        if (!root["bias"].is_boolean()) wrong_type("bias", "true or false", root["bias"]);
        c.bias = root["bias"].get<bool>();
    }
    if (root.contains("snapshots")) {
        if (root["snapshots"] == "lazy") {
            c.lazy = true;
        } else {
            if (!root["snapshots"].is_boolean()) wrong_type("snapshots", "true, false or \"lazy\"", root["snapshots"]);
            c.snapshots = root["snapshots"].get<bool>();
        }
    }
    if (root.contains("request") && !root["request"].is_null()) {  // sent by engine.js for run.step(id, {batch, head})
        const json& request = root["request"];
        if (!request.is_object() || !request.contains("id") || !request["id"].is_string())
            wrong_type("request", "an object {id, batch?, head?}", request);
        StepRequest r{request["id"].get<std::string>(), std::nullopt, std::nullopt};
        if (request.contains("batch") && !request["batch"].is_null()) r.batch = whole_number("batch", request["batch"], "a whole number ≥ 0");
        if (request.contains("head") && !request["head"].is_null()) r.head = whole_number("head", request["head"], "a whole number ≥ 0");
        c.request = std::move(r);
    }
    if (root.contains("seed")) {
        const std::int64_t seed = whole_number("seed", root["seed"], "a whole number from 0 to 4294967295");
        if (seed < 0 || seed > 0xFFFFFFFFll)
            throw MhaError(ErrorCode::bad_value, "seed",
                           "seed=" + std::to_string(seed) + " is outside 0 to 4294967295 (a 32-bit seed).");
        c.seed = static_cast<std::uint32_t>(seed);
    }
    if (root.contains("mask")) {
        const json& mask = root["mask"];
        if (mask == "none") c.mask = MaskKind::none;
        else if (mask == "causal") c.mask = MaskKind::causal;
        else
            throw MhaError(ErrorCode::bad_value, "mask",
                           "mask must be \"none\" or \"causal\", not " + describe(mask) +
                               ". A padding mask is set with keyLengths, and combines with either.");
    }
    if (root.contains("keyLengths") && !root["keyLengths"].is_null()) {
        const json& lengths = root["keyLengths"];
        if (!lengths.is_array()) wrong_type("keyLengths", "an array with one whole number per batch row", lengths);
        std::vector<std::int64_t> values;
        for (std::size_t b = 0; b < lengths.size(); ++b)
            values.push_back(whole_number("keyLengths[" + std::to_string(b) + "]", lengths[b], "a whole number ≥ 0"));
        c.key_lengths = std::move(values);
    }
    if (root.contains("memoryCap")) {
        const std::int64_t cap = whole_number("memoryCap", root["memoryCap"], "a whole number of bytes");
        if (cap < 1) throw MhaError(ErrorCode::bad_value, "memoryCap", "memoryCap must be a positive number of bytes.");
        c.memory_cap = static_cast<std::uint64_t>(cap);
    }
    if (root.contains("x") && !root["x"].is_null()) c.x = float_array("x", root["x"]);
    if (root.contains("kv") && !root["kv"].is_null()) c.kv = float_array("kv", root["kv"]);
    if (root.contains("weights") && !root["weights"].is_null()) c.weights = parse_weights(root["weights"]);
    return c;
}

}  // namespace mha
