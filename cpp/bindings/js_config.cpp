// Reads JS values with the engine's config reader (config_reader.hpp): the engine reads the JS
// object itself rather than JSON text, so the wasm build carries no JSON parser.
#include "js_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mha/config_reader.hpp"

using emscripten::val;

namespace {

// A JS value as read_config reads it. Values are seen as JSON.stringify would see them: a key
// holding undefined, a function or a symbol holds nothing, and a BigInt reads as its number.
// Only own enumerable keys count: a key inherited from a prototype (Object.prototype.seed, a
// "__proto__" object of JSON.parse) is not config.
class JsValue {
public:
    explicit JsValue(val value, bool hole = false)
        : value_(std::move(value)), type_(value_.typeOf().as<std::string>()), hole_(hole) {}

    mha::ValueKind kind() const {
        if (hole_) return mha::ValueKind::missing;
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
    // As config_from_json reads an integer from text: a whole number that fits in 64 bits.
    std::optional<std::int64_t> integer() const {
        const double n = number();
        if (std::floor(n) != n || !(std::fabs(n) < 9223372036854775808.0)) return std::nullopt;
        return static_cast<std::int64_t>(n);
    }
    std::string string() const { return readable(value_); }
    std::string text() const { return readable(val::global("String")(value_)); }
    std::size_t size() const { return value_["length"].as<std::size_t>(); }
    JsValue at(std::size_t i) const { return JsValue(value_[i], !own(value_, val(i))); }
    std::vector<std::string> keys() const {
        const val names = val::global("Object").call<val>("keys", value_);
        std::vector<std::string> held;
        for (std::size_t i = 0, n = names["length"].as<std::size_t>(); i < n; ++i) {
            const val name = names[i];
            std::string text = name.as<std::string>();
            // A key with a lone surrogate does not survive UTF-8: refuse it rather than drop it.
            if (!val(text).strictlyEquals(name))
                throw mha::MhaError("config", "unknown_key.unnamed",
                                    {{"key", readable(name)}, {"known", mha::config_reader::known_key_list()}});
            if (holds_value(value_[name].typeOf().as<std::string>())) held.push_back(std::move(text));
        }
        std::sort(held.begin(), held.end());  // config_from_json's order (a std::map's): the same first error
        return held;
    }
    bool has(const char* key) const { return own(value_, val(key)) && holds_value(value_[key].typeOf().as<std::string>()); }
    JsValue get(const char* key) const { return JsValue(value_[key]); }

private:
    // An own enumerable property (also of an object without a prototype, which has no methods).
    static bool own(const val& object, const val& key) {
        return val::global("Object")["prototype"]["propertyIsEnumerable"].call<bool>("call", object, key);
    }
    static bool holds_value(const std::string& type) { return type != "undefined" && type != "function" && type != "symbol"; }
    // Text for a message: as written, except what a message cannot show, escaped as JSON escapes
    // it (a NUL as \u0000, a lone surrogate as \udc00), so that nothing is cut short or garbled.
    static std::string readable(const val& text) {
        const std::string json = val::global("JSON").call<std::string>("stringify", text);
        std::string out;
        for (std::size_t i = 1; i + 1 < json.size(); ++i) {
            if (json[i] == '\\' && (json[i + 1] == '"' || json[i + 1] == '\\')) ++i;  // a quote or backslash as written
            out += json[i];
        }
        return out;
    }

    val value_;
    std::string type_;
    bool hole_;
};

bool is_number_array(const val& tensor) {
    if (!val::global("ArrayBuffer").call<bool>("isView", tensor) || tensor.instanceof(val::global("DataView"))) return false;
    const std::string name = tensor["constructor"]["name"].as<std::string>();
    return name != "BigInt64Array" && name != "BigUint64Array";
}

}  // namespace

mha::Config config_from_js(const val& config) { return mha::read_config(JsValue(config)); }

std::uint64_t tensor_length_of(const std::string& field, const val& tensor) {
    if (val::global("Array").call<bool>("isArray", tensor) || is_number_array(tensor)) return tensor["length"].as<double>();
    mha::Params params{{"field", field}};
    for (auto& param : mha::config_reader::described(JsValue(tensor))) params.push_back(std::move(param));
    throw mha::MhaError(field, "bad_type.tensor", std::move(params));
}

std::vector<float> floats_from_js(const std::string& field, const val& tensor) {
    const bool plain = val::global("Array").call<bool>("isArray", tensor);
    // An Array whose values are not all finite numbers is read element by element, for the
    // message that names the first bad one (Float32Array.from would turn a string into a number
    // or NaN, and convert a nested array through its text).
    if (plain && !tensor.call<bool>("every", val::global("Number")["isFinite"]))
        mha::config_reader::float_array(field, JsValue(tensor));
    const val numbers = plain ? val::global("Float32Array").call<val>("from", tensor) : tensor;
    // Copied in without zero-filling first (std::vector(n) would fill them, at libc's speed: 4%
    // of a T=128 run without snapshots), then moved into a vector by one memcpy.
    const std::size_t n = numbers["length"].as<std::size_t>();
    const std::unique_ptr<float[]> copied(new float[n]);
    val(emscripten::typed_memory_view(n, copied.get())).call<void>("set", numbers);
    std::vector<float> values(copied.get(), copied.get() + n);
    if (mha::largest_magnitude(values.data(), values.size()) <= 3.4028234663852886e38f) return values;
    // A hole (which every() skips) became NaN, and 1e39 Infinity: named by the reader.
    if (plain) mha::config_reader::float_array(field, JsValue(tensor));
    const auto bad = std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
    const std::string where = field + "[" + std::to_string(bad - values.begin()) + "]";
    throw mha::MhaError(field, "non_finite.value",
                        {{"field", where}, {"value", std::isnan(*bad) ? "NaN" : *bad > 0 ? "Infinity" : "-Infinity"}});
}

std::vector<std::string> weight_names(const val& weights) {
    const JsValue value(weights);
    if (value.kind() != mha::ValueKind::object) mha::config_reader::wrong_type("weights", "term.wanted.weights", value);
    std::vector<std::string> names = value.keys();
    for (const std::string& name : names)
        if (std::none_of(std::begin(mha::weight_fields), std::end(mha::weight_fields), [&](const mha::WeightField& f) { return name == f.name; }))
            throw mha::MhaError("weights." + name, "unknown_key.weights", {{"key", name}});
    return names;
}
