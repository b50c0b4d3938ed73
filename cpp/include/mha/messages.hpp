#pragma once
/// @file messages.hpp
/// @brief The one table of the engine's sentences, in English and Chinese, and how a message is
///        rendered from its key and parameters. The C++ tests read errors through it, and the
///        bindings hand the same table to JS (web/src/text/), which renders it by the same rule.
///
/// A template holds `{name}`, replaced by the parameter `name` (nothing if it is absent), and
/// `{@name}`, replaced by the table entry whose key the parameter `name` holds, rendered with the
/// same parameters (a phrase that changes with the language, such as "the batch size"). Any other
/// brace, as in "{batch, head}", is text.

#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace mha {

enum class Lang { en, zh };

struct MessageEntry {
    const char* key;  ///< "not_divisible", "bad_size.below_one", "term.size.B", ...
    const char* en;
    const char* zh;
};

/// @brief Every sentence and phrase the engine says, in both languages.
const std::vector<MessageEntry>& message_table();

/// @brief The message `key` with `params` filled in; the key itself if the table lacks it.
std::string render_message(std::string_view key, const Params& params, Lang lang = Lang::en);

/// @brief An error's or warning's message in `lang`.
std::string message_of(const MhaError& error, Lang lang = Lang::en);
std::string message_of(const Warning& warning, Lang lang = Lang::en);

}  // namespace mha
