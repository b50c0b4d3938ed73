#include "mha/messages.hpp"

#include <cctype>

namespace mha {

namespace {

// The engine's part of the table (cpp/data/messages.json). Keys: an error's key starts with its
// code ("bad_size.below_one" is a bad_size); "warning." keys are warnings; "term." keys are phrases
// that a template pulls in with {@name}.
const MessageEntry messages[] = {
#include "mha/messages.inc"
};

const MessageEntry* find_entry(std::string_view key) {
    for (const MessageEntry& entry : message_table())
        if (key == entry.key) return &entry;
    return nullptr;
}

const std::string* param(const Params& params, std::string_view name) {
    for (const auto& [key, value] : params)
        if (key == name) return &value;
    return nullptr;
}

const char* in(const MessageEntry* entry, Lang lang) { return entry ? (lang == Lang::zh ? entry->zh : entry->en) : ""; }

// "a, b or c" in English, "a、b 或 c" in Chinese: the separator and the last joiner are terms.
std::string joined(const std::vector<std::string>& items, std::string_view join, Lang lang) {
    const std::string separator = in(find_entry("term.join.list"), lang);
    const std::string last = join == "list" ? separator : in(find_entry(join == "or" ? "term.join.or" : "term.join.and"), lang);
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? last : separator) + items[i];
    return out;
}

bool is_name(std::string_view text) {
    if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
    for (const char ch : text)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
    return true;
}

std::string render_template(std::string_view text, const Params& params, Lang lang, int depth) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t open = text.find('{', at);
        const std::size_t close = open == std::string_view::npos ? open : text.find('}', open);
        if (close == std::string_view::npos) {
            out += text.substr(at);
            break;
        }
        const bool term = text[open + 1] == '@';
        std::string_view name = text.substr(open + 1 + term, close - open - 1 - term);
        // {name:list}, {name:or}, {name:and}: a list parameter, joined as the language joins lists.
        std::string_view join;
        if (const std::size_t colon = name.find(':'); !term && colon != std::string_view::npos) {
            join = name.substr(colon + 1);
            name = name.substr(0, colon);
        }
        out += text.substr(at, open - at);
        const bool slot = is_name(name) && (join.empty() || join == "list" || join == "or" || join == "and");
        if (!slot) {
            out += '{';  // text, as in "{batch, head}"
            at = open + 1;
            continue;
        }
        if (const std::string* value = param(params, name)) {
            const MessageEntry* entry = term && depth < 2 ? find_entry(*value) : nullptr;
            if (entry) out += render_template(lang == Lang::zh ? entry->zh : entry->en, params, lang, depth + 1);
            else if (!term) out += join.empty() ? *value : joined(list_items(*value), join, lang);
        }
        at = close + 1;
    }
    return out;
}

}  // namespace

const std::vector<MessageEntry>& message_table() {
    static const std::vector<MessageEntry> table(std::begin(messages), std::end(messages));
    return table;
}

std::string render_message(std::string_view key, const Params& params, Lang lang) {
    const MessageEntry* entry = find_entry(key);
    if (!entry) return std::string(key);
    return render_template(lang == Lang::zh ? entry->zh : entry->en, params, lang, 0);
}

std::string message_of(const MhaError& error, Lang lang) { return render_message(error.key(), error.params(), lang); }
std::string message_of(const Warning& warning, Lang lang) { return render_message(warning.key, warning.params, lang); }

std::string list_param(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? std::string(1, list_separator) : "") + items[i];
    return out;
}

std::vector<std::string> list_items(const std::string& value) {
    std::vector<std::string> items(1);
    for (const char ch : value) {
        if (ch == list_separator) items.emplace_back();
        else items.back() += ch;
    }
    return items;
}

MhaError::MhaError(std::string field, std::string key, Params params)
    : std::runtime_error(render_message(key, params)), field_(std::move(field)), key_(std::move(key)), params_(std::move(params)) {}

}  // namespace mha
