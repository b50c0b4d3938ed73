#pragma once
/// @file error.hpp
/// @brief The one error type of the engine: a code, the config field at fault, and a message a
///        learner can act on. Raised before any work is done.

#include <stdexcept>
#include <string>

namespace mha {

enum class ErrorCode {
    bad_json,          ///< the config text is not JSON, or not an object
    unknown_key,       ///< a config key the engine does not know
    bad_type,          ///< a field has the wrong JSON type (string for a size, ...)
    missing,           ///< a required field is absent
    bad_size,          ///< a size is < 1, fractional or too large
    not_divisible,     ///< C is not divisible by H
    heads_not_divisible,  ///< H is not divisible by Hkv
    bad_key_lengths,   ///< keyLengths of the wrong count or out of [0, Tk]
    bad_tensor_length, ///< an explicit tensor has the wrong number of values
    non_finite,        ///< an explicit tensor holds NaN or Infinity
    bad_value,         ///< an option outside its allowed values (mask, seed, memoryCap, ...)
    memory_cap,        ///< the snapshots would need more memory than the cap allows
    unknown_step,      ///< a step id that the trace does not have
};

/// @brief Stable snake_case name of a code, as JS callers see it in `error.code`.
const char* code_name(ErrorCode code);

class MhaError : public std::runtime_error {
public:
    MhaError(ErrorCode code, std::string field, const std::string& message)
        : std::runtime_error(message), code_(code), field_(std::move(field)) {}

    ErrorCode code() const noexcept { return code_; }
    /// The config field at fault ("C", "keyLengths", "weights.Wq", ...).
    const std::string& field() const noexcept { return field_; }

private:
    ErrorCode code_;
    std::string field_;
};

}  // namespace mha
