#include "mha/config_json.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "mha/config_reader.hpp"
#include "mha/error.hpp"

namespace mha {
namespace {

using json = nlohmann::json;

// A parsed JSON value as read_config reads it (config_reader.hpp). A number may also be written
// {"$number": "NaN" | "Infinity" | "-Infinity"}, so that a message can name such a value.
class JsonValue {
public:
    explicit JsonValue(const json* value) : value_(value) {}

    ValueKind kind() const {
        switch (value_->type()) {
            case json::value_t::null: return ValueKind::null;
            case json::value_t::boolean: return ValueKind::boolean;
            case json::value_t::number_integer:
            case json::value_t::number_unsigned:
            case json::value_t::number_float: return ValueKind::number;
            case json::value_t::string: return ValueKind::string;
            case json::value_t::array: return ValueKind::array;
            case json::value_t::object: return special_number() ? ValueKind::other : ValueKind::object;
            default: return ValueKind::other;
        }
    }
    std::optional<std::string> special_number() const {
        if (value_->is_object() && value_->size() == 1 && value_->contains("$number") && (*value_)["$number"].is_string())
            return (*value_)["$number"].get<std::string>();
        return std::nullopt;
    }
    bool boolean() const { return value_->get<bool>(); }
    double number() const { return value_->get<double>(); }
    std::optional<std::int64_t> integer() const {
        if (value_->is_number_unsigned() && value_->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
        if (value_->is_number_integer()) return value_->get<std::int64_t>();
        return std::nullopt;
    }
    std::string string() const { return value_->get<std::string>(); }
    std::string text() const { return value_->dump(); }
    std::size_t size() const { return value_->size(); }
    JsonValue at(std::size_t i) const { return JsonValue(&(*value_)[i]); }
    std::vector<std::string> keys() const {  // a std::map's, in sorted order
        std::vector<std::string> names;
        for (const auto& item : value_->items()) names.push_back(item.key());
        return names;
    }
    bool has(const char* key) const { return value_->contains(key); }
    JsonValue get(const char* key) const { return JsonValue(&(*value_)[key]); }

private:
    const json* value_;
};

}  // namespace

Config config_from_json(const std::string& text) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        throw MhaError("config", "bad_json.syntax", {{"detail", e.what()}});
    } catch (const json::exception& e) {  // out_of_range 406: a number beyond a double, such as 1e400
        throw MhaError("config", "bad_json.number", {{"detail", e.what()}});
    }
    return read_config(JsonValue(&root));
}

}  // namespace mha
