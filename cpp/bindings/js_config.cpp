// Reads JS values with the engine's config reader (config_reader.hpp): the engine reads the JS
// object itself rather than JSON text, so the wasm build carries no JSON parser.
#include "js_config.hpp"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mha/config_reader.hpp"

using emscripten::val;
using emscripten::EM_VAL;

// What a tensor is, read in JS without trusting anything the caller can redefine, and without
// throwing (an exception crossing the wasm frames would skip their destructors and leak handles):
//   {kind: "typed", tag, length, own, view}  a typed array: `tag` its real kind (the intrinsic
//       Symbol.toStringTag, not constructor.name), `length` its real element count (the intrinsic
//       getter, which an own `length` property cannot change), `own` what its `length` property
//       says, and `view` a plain typed array of that kind over the same bytes
//   {kind: "array", length}                   an Array
//   {kind: "other", got, got_text}            anything else, described as a message describes it
EM_JS(EM_VAL, js_tensor_facts, (EM_VAL handle), {
    const value = Emval.toValue(handle);
    const typed = Object.getPrototypeOf(Int8Array.prototype);
    const intrinsic = (name) => Object.getOwnPropertyDescriptor(typed, name).get;
    try {
        const tag = intrinsic(Symbol.toStringTag).call(value);
        if (typeof tag === "string") {
            const length = intrinsic("length").call(value);
            let own;
            try { own = value.length; } catch (error) { own = undefined; }
            const View = { Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
                           Float32Array, Float64Array, BigInt64Array, BigUint64Array, Float16Array: globalThis.Float16Array }[tag];
            const view = new View(intrinsic("buffer").call(value), intrinsic("byteOffset").call(value), length);
            return Emval.toHandle({ kind: "typed", tag, length, own: typeof own === "number" ? own : String(own), view });
        }
        if (Array.isArray(value)) {
            const length = value.length;
            return Emval.toHandle({ kind: "array", length });
        }
    } catch (error) {
        return Emval.toHandle({ kind: "other", got: "term.got.other" });
    }
    if (value === null || value === undefined) return Emval.toHandle({ kind: "other", got: "term.got.null" });
    if (typeof value === "string") return Emval.toHandle({ kind: "other", got: "term.got.string", got_text: value.length > 40 ? value.slice(0, 40) + String.fromCharCode(8230) : value });
    if (typeof value === "number" || typeof value === "boolean") return Emval.toHandle({ kind: "other", got: "term.got.value", got_text: String(value) });
    if (typeof value === "bigint") return Emval.toHandle({ kind: "other", got: "term.got.value", got_text: String(value) + "n" });
    if (typeof value === "object") return Emval.toHandle({ kind: "other", got: "term.got.object" });
    return Emval.toHandle({ kind: "other", got: "term.got.other" });
});

// An Array's values as a Float32Array, each element read once, or where the first one that is
// not a finite float32 number sits: {index, problem: "hole" | "special" | "range" | "type" |
// "unreadable", text (the value as written), got, got_text (for "type"), detail (for
// "unreadable": what a getter threw)}. Never throws, and copies nothing into wasm memory.
EM_JS(EM_VAL, js_array_floats, (EM_VAL handle), {
    const array = Emval.toValue(handle);
    let floats;
    try {
        floats = new Float32Array(array.length);
    } catch (error) {
        return Emval.toHandle({ index: 0, problem: "unreadable", detail: String(error && error.message) });
    }
    for (let i = 0; i < floats.length; i++) {
        let value;
        try {
            value = array[i];
            if (value === undefined && !(i in array)) return Emval.toHandle({ index: i, problem: "hole" });
        } catch (error) {
            let detail;
            try { detail = String(error && error.message !== undefined ? error.message : error); } catch (e) { detail = "?"; }
            return Emval.toHandle({ index: i, problem: "unreadable", detail });
        }
        if (typeof value === "number") {
            if (value !== value || value === Infinity || value === -Infinity) return Emval.toHandle({ index: i, problem: "special", text: String(value) });
            if (Math.abs(value) > 3.4028234663852886e38) return Emval.toHandle({ index: i, problem: "range", text: String(value) });
            floats[i] = value;
            continue;
        }
        const problem = { index: i, problem: "type", got: "term.got.other" };
        if (value === null || value === undefined || typeof value === "function" || typeof value === "symbol") problem.got = "term.got.null";
        else if (typeof value === "string") Object.assign(problem, { got: "term.got.string", got_text: value.length > 40 ? value.slice(0, 40) + String.fromCharCode(8230) : value });
        else if (typeof value === "boolean") Object.assign(problem, { got: "term.got.value", got_text: String(value) });
        else if (typeof value === "bigint") Object.assign(problem, { got: "term.got.value", got_text: String(value) + "n" });
        else if (Array.isArray(value)) Object.assign(problem, { got: "term.got.array", got_text: String(value.length) });
        else if (typeof value === "object") problem.got = "term.got.object";
        return Emval.toHandle(problem);
    }
    return Emval.toHandle(floats);
});


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

// A config as web/src/engine/config-tape.js writes it: one Float64Array of value kinds, numbers
// and UTF-16 text, read in one crossing, the same way JsValue reads the object (read_config
// cannot tell them apart).
enum Tape { t_null, t_missing, t_boolean, t_number, t_special, t_string, t_array, t_object, t_shallow_array, t_other };

struct TapeNode {
    int tag = t_null;
    double number = 0;
    std::string text;                // a string, or a number's digits as JS writes them ("" for a whole number)
    std::size_t length = 0;          // an array's length
    std::vector<std::size_t> items;  // an array's elements, or an object's values
    std::vector<std::string> keys;   // an object's keys, with the items they hold
    std::vector<bool> unreadable;    // a key with a lone surrogate, written as JSON escapes it
};

class TapeValue {
public:
    explicit TapeValue(std::shared_ptr<const std::vector<TapeNode>> nodes, std::size_t at = 0) : nodes_(std::move(nodes)), at_(at) {}

    mha::ValueKind kind() const {
        switch (node().tag) {
            case t_missing: return mha::ValueKind::missing;
            case t_boolean: return mha::ValueKind::boolean;
            case t_number: return mha::ValueKind::number;
            case t_string: return mha::ValueKind::string;
            case t_array:
            case t_shallow_array: return mha::ValueKind::array;
            case t_object: return mha::ValueKind::object;
            case t_null: return mha::ValueKind::null;
            default: return mha::ValueKind::other;
        }
    }
    std::optional<std::string> special_number() const {
        if (node().tag != t_special) return std::nullopt;
        const double n = node().number;
        return std::isnan(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
    }
    bool boolean() const { return node().number != 0; }
    double number() const { return node().number; }
    std::optional<std::int64_t> integer() const {
        const double n = number();
        if (std::floor(n) != n || !(std::fabs(n) < 9223372036854775808.0)) return std::nullopt;
        return static_cast<std::int64_t>(n);
    }
    std::string string() const { return node().text; }
    std::string text() const {
        if (node().tag == t_number && node().text.empty()) return std::to_string(static_cast<std::int64_t>(node().number));
        return node().text;
    }
    std::size_t size() const { return node().tag == t_object ? node().keys.size() : node().length; }
    TapeValue at(std::size_t i) const {
        if (node().tag != t_array) throw std::logic_error("the config tape holds no elements this deep");
        return TapeValue(nodes_, node().items.at(i));
    }
    std::vector<std::string> keys() const {
        const TapeNode& n = node();
        for (std::size_t i = 0; i < n.keys.size(); ++i)
            if (n.unreadable[i])
                throw mha::MhaError("config", "unknown_key.unnamed", {{"key", n.keys[i]}, {"known", mha::config_reader::known_key_list()}});
        std::vector<std::string> held = n.keys;
        std::sort(held.begin(), held.end());  // config_from_json's order (a std::map's): the same first error
        return held;
    }
    bool has(const char* key) const { return find(key) != nullptr; }
    TapeValue get(const char* key) const {
        const std::size_t* item = find(key);
        return item ? TapeValue(nodes_, *item) : TapeValue(nodes_, 0).null_value();
    }

private:
    const TapeNode& node() const { return (*nodes_)[at_]; }
    const std::size_t* find(const char* key) const {
        const TapeNode& n = node();
        for (std::size_t i = 0; i < n.keys.size(); ++i)
            if (!n.unreadable[i] && n.keys[i] == key) return &n.items[i];
        return nullptr;
    }
    // A key the object does not have reads as null, as JsValue reads an absent key.
    TapeValue null_value() const { return TapeValue(nodes_, nodes_->size() - 1); }

    std::shared_ptr<const std::vector<TapeNode>> nodes_;
    std::size_t at_;
};

// UTF-16 code units as UTF-8 (the tape's text has no lone surrogates: they come escaped).
std::string utf8(const std::vector<double>& tape, std::size_t& at) {
    const std::size_t n = static_cast<std::size_t>(tape.at(at++));
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t c = static_cast<std::uint32_t>(tape.at(at++));
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < n) {
            c = 0x10000 + ((c - 0xD800) << 10) + (static_cast<std::uint32_t>(tape.at(at++)) - 0xDC00);
            ++i;
        }
        if (c < 0x80) out += static_cast<char>(c);
        else if (c < 0x800) out += {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
        else if (c < 0x10000) out += {static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
        else out += {static_cast<char>(0xF0 | (c >> 18)), static_cast<char>(0x80 | ((c >> 12) & 0x3F)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
    }
    return out;
}

std::size_t parse_tape(const std::vector<double>& tape, std::size_t& at, std::vector<TapeNode>& nodes) {
    const std::size_t index = nodes.size();
    nodes.emplace_back();
    TapeNode node;
    node.tag = static_cast<int>(tape.at(at++));
    switch (node.tag) {
        case t_boolean:
        case t_special: node.number = tape.at(at++); break;
        case t_number: node.number = tape.at(at++); node.text = utf8(tape, at); break;
        case t_string: node.text = utf8(tape, at); break;
        case t_shallow_array: node.length = static_cast<std::size_t>(tape.at(at++)); break;
        case t_array:
            node.length = static_cast<std::size_t>(tape.at(at++));
            for (std::size_t i = 0; i < node.length; ++i) node.items.push_back(parse_tape(tape, at, nodes));
            break;
        case t_object: {
            const std::size_t count = static_cast<std::size_t>(tape.at(at++));
            for (std::size_t i = 0; i < count; ++i) {
                node.unreadable.push_back(tape.at(at++) != 0);
                node.keys.push_back(utf8(tape, at));
                node.items.push_back(parse_tape(tape, at, nodes));
            }
            break;
        }
        default: break;
    }
    nodes[index] = std::move(node);
    return index;
}

val tensor_facts(const val& tensor) { return val::take_ownership(js_tensor_facts(tensor.as_handle())); }

mha::Params described_by(const val& facts) {
    mha::Params params{{"got", facts["got"].as<std::string>()}};
    if (facts["got_text"].isString()) params.push_back({"got_text", facts["got_text"].as<std::string>()});
    return params;
}

// A typed array's real element count; its own `length` saying otherwise is refused by name (the
// engine would otherwise size its copy by one and fill it from the other).
std::uint64_t typed_length(const std::string& field, const val& facts) {
    const val own = facts["own"];
    const double length = facts["length"].as<double>();
    if (!own.strictlyEquals(facts["length"]))
        throw mha::MhaError(field, "bad_tensor.length_mismatch",
                            {{"field", field}, {"length", val::global("String")(own).as<std::string>()},
                             {"count", val::global("String")(facts["length"]).as<std::string>()}});
    return static_cast<std::uint64_t>(length);
}

bool is_bigint_tag(const std::string& tag) { return tag == "BigInt64Array" || tag == "BigUint64Array"; }

}  // namespace

mha::Config config_from_js(const val& config) { return mha::read_config(JsValue(config)); }

mha::Config config_from_tape(const val& tape) {
    std::vector<double> numbers(tape["length"].as<std::size_t>());
    val(emscripten::typed_memory_view(numbers.size(), numbers.data())).call<void>("set", tape);
    auto nodes = std::make_shared<std::vector<TapeNode>>();
    std::size_t at = 0;
    parse_tape(numbers, at, *nodes);
    nodes->emplace_back();  // the null an absent key reads as
    return mha::read_config(TapeValue(nodes));
}

std::uint64_t tensor_length_of(const std::string& field, const val& tensor) {
    const val facts = tensor_facts(tensor);
    const std::string kind = facts["kind"].as<std::string>();
    if (kind == "array") return static_cast<std::uint64_t>(facts["length"].as<double>());
    mha::Params params{{"field", field}};
    if (kind == "typed") {
        const std::string tag = facts["tag"].as<std::string>();
        if (!is_bigint_tag(tag)) return typed_length(field, facts);
        params.insert(params.end(), {{"got", "term.got.kind"}, {"got_text", tag}});
    } else {
        for (auto& param : described_by(facts)) params.push_back(std::move(param));
    }
    throw mha::MhaError(field, "bad_type.tensor", std::move(params));
}

std::vector<float> floats_from_js(const std::string& field, const val& tensor) {
    const std::uint64_t n = tensor_length_of(field, tensor);  // checked again: the copy is sized by it
    const val facts = tensor_facts(tensor);
    val numbers = facts["view"];
    if (facts["kind"].as<std::string>() == "array") {
        // Every element is read and checked in JS before anything is copied in: a hole, a string
        // or a getter that throws is named without growing wasm memory for the rest.
        numbers = val::take_ownership(js_array_floats(tensor.as_handle()));
        if (!numbers.instanceof(val::global("Float32Array"))) {
            const std::string where = field + "[" + val::global("String")(numbers["index"]).as<std::string>() + "]";
            const std::string problem = numbers["problem"].as<std::string>();
            if (problem == "hole") throw mha::MhaError(where, "missing.hole", {{"field", where}});
            if (problem == "special") throw mha::MhaError(field, "non_finite.value", {{"field", where}, {"value", numbers["text"].as<std::string>()}});
            if (problem == "range") throw mha::MhaError(field, "non_finite.range", {{"field", where}, {"value", numbers["text"].as<std::string>()}});
            if (problem == "unreadable") throw mha::MhaError(where, "bad_tensor.unreadable", {{"field", where}, {"detail", numbers["detail"].as<std::string>()}});
            mha::Params params{{"field", where}, {"wanted", "term.wanted.number"}};
            for (auto& param : described_by(numbers)) params.push_back(std::move(param));
            throw mha::MhaError(where, "bad_type.value", std::move(params));
        }
    }
    // Copied in without zero-filling first (std::vector(n) would fill them, at libc's speed: 4%
    // of a T=128 run without snapshots), then moved into a vector by one memcpy. Every one of the
    // n floats is written: n is the view's own, real length.
    const std::unique_ptr<float[]> copied(new float[n]);
    val(emscripten::typed_memory_view(n, copied.get())).call<void>("set", numbers);
    std::vector<float> values(copied.get(), copied.get() + n);
    if (mha::largest_magnitude(values.data(), values.size()) <= 3.4028234663852886e38f) return values;
    // A typed array's value beyond float32 (a Float64Array's 1e39) became Infinity, or was NaN.
    const auto bad = std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
    const std::string where = field + "[" + std::to_string(bad - values.begin()) + "]";
    throw mha::MhaError(field, "non_finite.value",
                        {{"field", where}, {"value", std::isnan(*bad) ? "NaN" : *bad > 0 ? "Infinity" : "-Infinity"}});
}

mha::MaskInput mask_from_js(const std::string& field, const val& mask) {
    mha::MaskInput m = mha::config_reader::parse_mask(field, JsValue(mask), false);
    const char* form = mha::mask_form_name(m.form);
    const std::string values_field = field + "." + form;
    const val values = mask[form];
    // A typed array, or an Array of finite numbers, is copied in at once; anything else (booleans,
    // −Infinity, a value that is not a number) is read value by value, for the message that names it.
    const val facts = tensor_facts(values);
    const std::string kind = facts["kind"].as<std::string>();
    val numbers = val::undefined();
    if (kind == "typed") numbers = val::global("Float32Array").call<val>("from", facts["view"]);
    if (kind == "array") numbers = val::take_ownership(js_array_floats(values.as_handle()));
    if (!numbers.isUndefined() && numbers.instanceof(val::global("Float32Array"))) {
        m.values.resize(numbers["length"].as<std::size_t>());
        val(emscripten::typed_memory_view(m.values.size(), m.values.data())).call<void>("set", numbers);
    } else {
        m.values = mha::config_reader::mask_values(values_field, m.form, JsValue(values));
    }
    return m;
}

std::string typed_array_tag(const val& array) {
    const val facts = tensor_facts(array);
    return facts["kind"].as<std::string>() == "typed" ? facts["tag"].as<std::string>() : "";
}

val plain_typed_array(const std::string& field, const val& array, const char* tag) {
    const val facts = tensor_facts(array);
    if (facts["kind"].as<std::string>() != "typed" || facts["tag"].as<std::string>() != tag) {
        mha::Params params{{"field", field}, {"wanted", "term.wanted.typed"}, {"tag", tag}};
        if (facts["kind"].as<std::string>() == "typed") params.insert(params.end(), {{"got", "term.got.kind"}, {"got_text", facts["tag"].as<std::string>()}});
        else for (auto& param : described_by(facts)) params.push_back(std::move(param));
        throw mha::MhaError(field, "bad_type.value", std::move(params));
    }
    typed_length(field, facts);
    return facts["view"];
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
