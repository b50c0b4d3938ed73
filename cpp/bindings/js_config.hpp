#pragma once
// The engine's Config from the JS config object (without its tensors), as engine.js passes it.

#include <emscripten/val.h>

#include "mha/config.hpp"

/// @throws mha::MhaError naming the field at fault, as config_from_json does for JSON text.
mha::Config config_from_js(const emscripten::val& config);
