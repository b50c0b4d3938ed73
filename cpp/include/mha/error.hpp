#pragma once
/// @file error.hpp
/// @brief The one error type of the engine. An error is data: the config field at fault, a message
///        key ("bad_size.below_one") and the parameters of its sentence ({"field": "B", "value": "0"}).
///        Each language renders its sentence from those through the message table (messages.hpp);
///        nothing parses a sentence back apart. Raised before any work is done.

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mha {

/// The named values a message is rendered from, in the order they were given. A list parameter is
/// its items joined by list_separator (list_param makes one); each language joins it its own way.
using Params = std::vector<std::pair<std::string, std::string>>;

/// Between the items of a list parameter: a character no item holds.
constexpr char list_separator = '\x1f';

/// @brief A list parameter of these items ({name:list}, {name:or} or {name:and} in a template).
std::string list_param(const std::vector<std::string>& items);

/// @brief The items of a list parameter (one item for a plain parameter).
std::vector<std::string> list_items(const std::string& value);

class MhaError : public std::runtime_error {
public:
    /// @param field  the config field at fault ("C", "keyLengths", "weights.Wq", ...)
    /// @param key    the message's key in the table (messages.cpp); its part before the first '.'
    ///               is the error's code ("bad_size.below_one" → "bad_size")
    /// @param params the values its sentence names
    MhaError(std::string field, std::string key, Params params);

    /// Stable snake_case kind of problem, as JS callers see it in `error.code`.
    std::string code() const { return key_.substr(0, key_.find('.')); }
    const std::string& key() const noexcept { return key_; }
    const std::string& field() const noexcept { return field_; }
    const Params& params() const noexcept { return params_; }

private:
    std::string field_;
    std::string key_;
    Params params_;
};

/// A warning of a run: what is unusual about the result, as data like an error.
struct Warning {
    std::string key;
    Params params;
};

}  // namespace mha
