#pragma once
// What every binding hands back to JS: owned copies of float arrays (never views of the wasm heap,
// which memory growth would detach) and {ok, value} or {ok: false, error} instead of a thrown
// exception, so that the module stays usable after any error. Shared by bindings.cpp (runs) and
// trainer_bindings.cpp (the trainer).

#include <emscripten/val.h>

#include <new>
#include <string>
#include <vector>

#include "mha/error.hpp"
#include "mha/messages.hpp"
#include "mha/trace.hpp"

namespace js_result {

using emscripten::val;

inline val owned_floats(const std::vector<float>& values) {
    return val(emscripten::typed_memory_view(values.size(), values.data())).call<val>("slice");
}

// A list parameter (mha::list_param) as an array, any other as its text.
inline val params_to_js(const mha::Params& params) {
    val object = val::object();
    for (const auto& [name, value] : params) {
        if (value.find(mha::list_separator) == std::string::npos) {
            object.set(name, value);
            continue;
        }
        val items = val::array();
        const std::vector<std::string> list = mha::list_items(value);
        for (std::size_t i = 0; i < list.size(); ++i) items.set(i, list[i]);
        object.set(name, items);
    }
    return object;
}

inline val error_to_js(const std::string& code, const std::string& key, const std::string& field, const mha::Params& params) {
    val error = val::object();
    error.set("code", code);
    error.set("key", key);
    error.set("field", field);
    error.set("params", params_to_js(params));
    return error;  // its message is rendered in JS, from the key and the parameters
}

// Runs `fn`, returning {ok: true, value} or {ok: false, error}: nothing thrown reaches JS, so the
// module stays usable after any error.
template <class Fn>
inline val guarded(Fn&& fn) {
    val result = val::object();
    try {
        val value = fn();
        result.set("ok", true);
        result.set("value", value);
        return result;
    } catch (const mha::MhaError& e) {
        result.set("error", error_to_js(e.code(), e.key(), e.field(), e.params()));
    } catch (const std::bad_alloc&) {
        result.set("error", error_to_js("out_of_memory", "out_of_memory", "memoryCap", {}));
    } catch (const std::exception& e) {
        result.set("error", error_to_js("internal", "internal", "engine", {{"detail", e.what()}}));
    }
    result.set("ok", false);
    return result;
}

}  // namespace js_result

/// A run's trace as engine.run hands it to JS (bindings.cpp).
emscripten::val trace_as_js(const mha::Trace& trace, bool with_weights);
