#pragma once
// JS values → the engine's types: the config object, and the tensors that come with it.

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "mha/config.hpp"

/// @brief The Config a JS config object describes (without its tensors: engine.js hands x, kv
///        and weights over separately). Reads own enumerable keys only.
/// @throws mha::MhaError naming the field at fault, as config_from_json does for JSON text.
mha::Config config_from_js(const emscripten::val& config);

/// @brief The same from the config as web/src/engine/config-tape.js writes it: one Float64Array,
///        read in one crossing.
mha::Config config_from_tape(const emscripten::val& tape);

/// @brief The length of a tensor as JS holds it (an Array or a numeric typed array), read without
///        touching its values; throws MhaError(bad_type.tensor) for anything else.
std::uint64_t tensor_length_of(const std::string& field, const emscripten::val& tensor);

/// @brief A typed array of kind `tag` ("Uint8Array", "Int32Array") as a plain view over the same
///        bytes, its real length checked against its `length` property (a mismatch is refused
///        by name): what is copied into wasm memory is sized by the data itself.
emscripten::val plain_typed_array(const std::string& field, const emscripten::val& array, const char* tag);

/// @brief A typed array's real kind ("Uint8Array"), or "" for anything else.
std::string typed_array_tag(const emscripten::val& array);

/// @brief A tensor's values as float32, once its length has been checked: a typed array by one
///        copy, an Array by Float32Array.from. A value that is not a finite number, or a hole, is
///        refused naming its index.
std::vector<float> floats_from_js(const std::string& field, const emscripten::val& tensor);

/// @brief attnMask or keyPaddingMask as JS holds it: {shape, masked | attend | add}, the values an
///        Array (of booleans or numbers, −Infinity allowed in `add`) or a numeric typed array.
mha::MaskInput mask_from_js(const std::string& field, const emscripten::val& mask);

/// @brief The names of the weights object's tensors, each a known weight name (Wq … bo).
/// @throws MhaError for a weights value that is not an object, or a key that is not a weight.
std::vector<std::string> weight_names(const emscripten::val& weights);
