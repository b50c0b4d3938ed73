// Reads the JS config object with the engine's config reader (config_reader.hpp). Built for
// size (CMakeLists.txt): only a config that is not plain comes this way (web/src/wire-fields.js).
#include "js_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mha/config_reader.hpp"

using emscripten::val;

namespace {

// The JS config object as read_config reads it (config_reader.hpp): the engine reads the object
// itself rather than JSON text, so the wasm build carries no JSON parser. Values are seen as
// JSON.stringify would see them: a key holding undefined, a function or a symbol holds nothing,
// and a BigInt reads as its number. Each access is a call out to JS, which only configs that are
// not plain pay (engine.js sends plain ones as wire fields: bindings.cpp, run_fields).
class JsValue {
public:
    explicit JsValue(val value) : value_(std::move(value)), type_(value_.typeOf().as<std::string>()) {}

    mha::ValueKind kind() const {
        if (type_ == "number" || type_ == "bigint") return std::isfinite(number()) ? mha::ValueKind::number : mha::ValueKind::other;
        if (type_ == "boolean") return mha::ValueKind::boolean;
        if (type_ == "string") return mha::ValueKind::string;
        if (!holds_value(type_) || value_.isNull()) return mha::ValueKind::null;
        if (type_ != "object") return mha::ValueKind::other;
        return val::global("Array").call<bool>("isArray", value_) ? mha::ValueKind::array : mha::ValueKind::object;
    }
    std::optional<std::string> special_number() const {
        if (type_ != "number" && type_ != "bigint") return std::nullopt;
        const double n = number();
        if (std::isfinite(n)) return std::nullopt;
        return std::isnan(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
    }
    bool boolean() const { return value_.as<bool>(); }
    double number() const { return type_ == "bigint" ? val::global("Number")(value_).as<double>() : value_.as<double>(); }
    // As config_from_json reads an integer from text: a whole number that fits in 64 bits (any
    // other is a float there, and too large here and there alike).
    std::optional<std::int64_t> integer() const {
        const double n = number();
        if (std::floor(n) != n || !(std::fabs(n) < 9223372036854775808.0)) return std::nullopt;
        return static_cast<std::int64_t>(n);
    }
    std::string string() const { return value_.as<std::string>(); }
    std::string text() const { return val::global("String")(value_).as<std::string>(); }
    std::size_t size() const { return value_["length"].as<std::size_t>(); }
    JsValue at(std::size_t i) const { return JsValue(value_[i]); }
    std::vector<std::string> keys() const {
        const val names = val::global("Object").call<val>("keys", value_);
        std::vector<std::string> held;
        for (std::size_t i = 0, n = names["length"].as<std::size_t>(); i < n; ++i) {
            std::string name = names[i].as<std::string>();
            if (holds_value(value_[name].typeOf().as<std::string>())) held.push_back(std::move(name));
        }
        std::sort(held.begin(), held.end());  // config_from_json's order (a std::map's): the same first error
        return held;
    }
    bool has(const char* key) const { return value_.hasOwnProperty(key) && holds_value(value_[key].typeOf().as<std::string>()); }
    JsValue get(const char* key) const { return JsValue(value_[key]); }

private:
    static bool holds_value(const std::string& type) { return type != "undefined" && type != "function" && type != "symbol"; }

    val value_;
    std::string type_;
};

}  // namespace

mha::Config config_from_js(const val& config) { return mha::read_config(JsValue(config)); }
