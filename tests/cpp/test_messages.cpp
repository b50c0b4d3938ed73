// Errors are data: a key and parameters, rendered in English and Chinese from one table.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "mha/config_json.hpp"
#include "mha/forward.hpp"
#include "mha/messages.hpp"

TEST_CASE("every entry of the message table has both languages, and keys are unique") {
    std::set<std::string> keys;
    for (const mha::MessageEntry& entry : mha::message_table()) {
        INFO(entry.key);
        CHECK(keys.insert(entry.key).second);
        CHECK(std::string(entry.en).size() > 0);
        CHECK(std::string(entry.zh).size() > 0);
    }
}

TEST_CASE("a message renders its parameters and phrases in the reader's language") {
    mha::Config c;
    c.B = 2; c.T = 4; c.C = 10; c.H = 4;
    try {
        mha::validate(c);
        FAIL("C=10, H=4 was accepted");
    } catch (const mha::MhaError& e) {
        CHECK(e.code() == "not_divisible");
        CHECK(e.field() == "H");
        // A list parameter is its items; each language joins them its own way.
        CHECK(e.params() == mha::Params{{"C", "10"}, {"H", "4"}, {"divisors", mha::list_param({"1", "2", "5", "10"})}});
        CHECK(mha::message_of(e, mha::Lang::zh) == "C=10 不能被 H=4 整除：每个头需要 D = C/H 个特征。请从 C=10 的约数中选 H：1、2、5、10。");
    }
    c.C = 8; c.B = 0;
    try {
        mha::validate(c);
        FAIL("B=0 was accepted");
    } catch (const mha::MhaError& e) {
        CHECK(e.key() == "bad_size.below_one");
        CHECK(std::string(e.what()) == "B=0 is not allowed: B is the batch size (sequences per batch) and must be at least 1.");
        CHECK(mha::message_of(e, mha::Lang::zh) == "B=0 不合法：B 是批大小（每批的序列数），至少为 1。");
    }
}

TEST_CASE("braces that are not a slot stay text; a missing parameter renders as nothing") {
    CHECK(mha::render_message("bad_value.slice", {{"step", "q"}}) ==
          "A slice {batch, head} takes both, and only of scores, scaled, masked or weights; \"q\" is asked for whole.");
    CHECK(mha::render_message("unknown_key.config", {{"key", "hkv"}, {"known", "B, T"}}) == "Unknown config key \"hkv\". Known keys: B, T.");
    CHECK(mha::render_message("no.such.key", {}) == "no.such.key");
}

TEST_CASE("every error of the config reader and of validate has a message with no slot left in either language") {
    const char* configs[] = {
        "[1]", "{\"B\":2,", "{\"B\":2,\"T\":4,\"C\":8}", "{\"B\":\"2\",\"T\":4,\"C\":8,\"H\":2}",
        "{\"B\":2.5,\"T\":4,\"C\":8,\"H\":2}", "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"hkv\":2}", "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"\":2}",
        "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"mask\":3}", "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"seed\":-1}",
        "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"memoryCap\":0}", "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"x\":[1,\"a\"]}",
        "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"x\":[1e39]}", "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"weights\":{\"Wz\":[]}}",
        "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"weights\":{}}", "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"keyLengths\":[1]}",
        "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"keyLengths\":[1,9]}", "{\"B\":2,\"T\":4,\"C\":8,\"H\":3}",
        "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"Hkv\":4}", "{\"B\":2,\"T\":4,\"C\":8,\"H\":4,\"Hkv\":3}",
        "{\"B\":0,\"T\":4,\"C\":8,\"H\":2}", "{\"B\":2,\"T\":4000000,\"C\":8,\"H\":2}",
        "{\"B\":1,\"T\":4096,\"C\":768,\"H\":12}", "{\"B\":1,\"T\":1,\"C\":32768,\"H\":1}",
        "{\"B\":2,\"T\":4,\"C\":8,\"H\":2,\"x\":[1]}", "{\"B\":1,\"T\":1,\"C\":1,\"H\":1,\"x\":[1e30],\"weights\":{\"Wq\":[1e30],\"Wk\":[1e30],\"Wv\":[1],\"Wo\":[1],\"bq\":[0],\"bk\":[0],\"bv\":[0],\"bo\":[0]}}",
        "{\"B\":1,\"T\":1,\"C\":1,\"H\":1,\"bias\":false,\"weights\":{\"Wq\":[1],\"Wk\":[1],\"Wv\":[1],\"Wo\":[1],\"bq\":[0]}}",
        "{\"B\":1,\"T\":1,\"C\":1,\"H\":1,\"snapshots\":\"some\"}"};
    std::set<std::string> keys;
    for (const char* text : configs) {
        INFO(text);
        try {
            mha::validate(mha::config_from_json(text));
            FAIL("accepted");
        } catch (const mha::MhaError& e) {
            keys.insert(e.key());
            CHECK_FALSE(e.field().empty());
            for (const mha::Lang lang : {mha::Lang::en, mha::Lang::zh}) {
                const std::string message = mha::message_of(e, lang);
                INFO(message);
                CHECK(message != e.key());
                CHECK(message.find("{@") == std::string::npos);
                CHECK(message.find("term.") == std::string::npos);
            }
        }
    }
    CHECK(keys.size() >= 20);
}
