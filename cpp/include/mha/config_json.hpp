#pragma once
/// @file config_json.hpp
/// @brief Turns config text (fixtures, native callers, the fuzzer) into a Config, naming any field
///        of the wrong type. Semantic checks (divisibility, lengths) are `validate`'s job. The JS
///        API reads the config object itself with the same reader (config_reader.hpp).

#include <string>

#include "config.hpp"

namespace mha {

/// @brief Parses a JSON object with the keys B, T, Tk, C, H, Hkv, bias, seed, mask, keyLengths,
///        x, kv, weights {Wq, Wk, Wv, Wo, bq, bk, bv, bo}, memoryCap, snapshots.
///        A number may also be written {"$number": "NaN" | "Infinity" | "-Infinity"}, which JSON
///        cannot hold, so that the message can name it.
/// @throws MhaError(bad_json | unknown_key | bad_type | missing | bad_size | bad_value | non_finite)
Config config_from_json(const std::string& text);

}  // namespace mha
