#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "mha/config_json.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/seeded.hpp"

namespace {

mha::Config classic() {
    mha::Config c;
    c.B = 2; c.T = 4; c.C = 8; c.H = 2;
    return c;
}

// The code and message validate() raises for `c`, or "" if it passes.
std::pair<std::string, std::string> error_of(const mha::Config& c) {
    try {
        mha::validate(c);
    } catch (const mha::MhaError& e) {
        return {e.code(), e.what()};
    }
    return {"", ""};
}

std::string caught_field(const mha::Config& c) {
    try {
        mha::validate(c);
    } catch (const mha::MhaError& e) {
        return e.field();
    }
    return "";
}

std::pair<std::string, std::string> json_error_of(const std::string& text) {
    try {
        mha::validate(mha::config_from_json(text));
    } catch (const mha::MhaError& e) {
        return {e.field(), e.what()};
    }
    return {"", ""};
}

}  // namespace

TEST_CASE("a valid config fills in the defaults") {
    const mha::Dims d = mha::validate(classic());
    CHECK(d.Tk == 4);
    CHECK(d.Hkv == 2);
    CHECK(d.D == 4);
    CHECK_FALSE(d.cross);
}

TEST_CASE("each invalid config names its problem and the fix") {
    auto c = classic();
    c.C = 10; c.H = 4;
    CHECK(error_of(c) == std::pair<std::string, std::string>{
                             "not_divisible",
                             "C=10 is not divisible by H=4: every head needs D = C/H features. Choose H from the "
                             "divisors of C=10: 1, 2, 5, 10."});

    c = classic(); c.C = 24; c.H = 6; c.Hkv = 4;
    CHECK(error_of(c).second ==
          "H=6 is not divisible by Hkv=4: each key/value head is shared by H/Hkv query heads. Choose Hkv from the "
          "divisors of H=6: 1, 2, 3, 6.");
    c.Hkv = 12;
    CHECK(error_of(c).second.rfind("Hkv=12 is larger than H=6", 0) == 0);

    for (auto field : {"B", "T", "C", "H"}) {
        c = classic();
        (field == std::string("B") ? c.B : field == std::string("T") ? c.T : field == std::string("C") ? c.C : c.H) = 0;
        const auto [code, message] = error_of(c);
        CHECK(code == "bad_size");
        CHECK(message.rfind(std::string(field) + "=0 is not allowed", 0) == 0);
    }
    c = classic(); c.Tk = -3;
    CHECK(error_of(c).second.rfind("Tk=-3 is not allowed: Tk is the key/value length", 0) == 0);
    c = classic(); c.Hkv = 0;
    CHECK(error_of(c).first == "bad_size");
    c = classic(); c.T = 5'000'000'000;
    CHECK(error_of(c).second.rfind("T=5000000000 is too large", 0) == 0);

    c = classic(); c.key_lengths = std::vector<std::int64_t>{4, 3, 2};
    CHECK(error_of(c).second == "keyLengths has 3 entries but B=2: give one valid key length per batch row.");
    c.key_lengths = std::vector<std::int64_t>{4, 7};
    CHECK(error_of(c).second ==
          "keyLengths[1]=7 is outside [0, Tk=4]: it counts the keys of batch row 1 that are not padding.");
    c.key_lengths = std::vector<std::int64_t>{-1, 2};
    CHECK(error_of(c).first == "bad_key_lengths");

    c = classic(); c.x = std::vector<float>(60, 0.5f);
    CHECK(error_of(c).second == "x has 60 values but needs B·T·C = 2·4·8 = 64.");
    c.x = std::vector<float>(64, 0.5f);
    (*c.x)[5] = std::numeric_limits<float>::quiet_NaN();
    CHECK(error_of(c).second == "x[5] is NaN: explicit tensors must hold finite numbers.");
    (*c.x)[5] = -std::numeric_limits<float>::infinity();
    CHECK(error_of(c).second == "x[5] is -Infinity: explicit tensors must hold finite numbers.");

    c = classic(); c.Tk = 6; c.kv = std::vector<float>(2 * 4 * 8, 0.f);
    CHECK(error_of(c).second == "kv has 64 values but needs B·Tk·C = 2·6·8 = 96.");

    c = classic(); c.weights = mha::Weights{};
    CHECK(error_of(c).second ==
          "weights.Wq is missing: explicit weights need Wq, Wk, Wv and Wo, and bq, bk, bv and bo because bias is true.");
    c.weights->Wq.assign(64, 0.1f); c.weights->Wk.assign(64, 0.1f); c.weights->Wv.assign(64, 0.1f);
    c.weights->Wo.assign(63, 0.1f);
    CHECK(error_of(c).second == "weights.Wo has 63 values but needs C·C = 8·8 = 64.");
    c.weights->Wo.assign(64, 0.1f);
    c.bias = false; c.weights->bq.assign(8, 0.f);
    CHECK(error_of(c).second == "weights.bq is given but bias is false: remove the biases or set bias to true.");
}

TEST_CASE("the memory cap is checked before any work, with the size needed") {
    auto c = classic();
    c.B = 1; c.T = 2048; c.C = 768; c.H = 12;
    const auto [code, message] = error_of(c);
    CHECK(code == "memory_cap");
    // Snapshots: four scores-sized steps of 12·2048² values and 15 steps of 2048·768, 858.0 MiB;
    // working tensors (q, k, v, one head's scores, concat, output and its copy, the context) 58.0
    // MiB; weights 4·768² + 4·768 values, 9.0 MiB; x 6.0 MiB.
    CHECK(message == "This config needs 931.0 MiB of memory, above the memory cap of 256.0 MiB: its snapshots alone take "
                     "858.0 MiB. Lower B, T, Tk or H, or raise memoryCap.");
    c.memory_cap = 2ull << 30;
    CHECK(error_of(c).first == "");
    // Without snapshots, the weights and the pass's own tensors count: at C = 8192, 4·8192² weights.
    c = classic(); c.C = 8192; c.H = 8; c.snapshots = mha::Snapshots::none;
    CHECK(error_of(c).second == "This config needs 1.00 GiB of memory, above the memory cap of 256.0 MiB: the weights alone "
                                "take 1.00 GiB. Lower C, or raise memoryCap.");
    CHECK(caught_field(c) == "C");

    // Sizes whose product overflows 32 (and 64) bits are still refused, not wrapped around.
    c = classic(); c.B = 1'000'000; c.T = 1'000'000; c.C = 1'000'000; c.H = 1'000'000;
    CHECK(error_of(c).first == "memory_cap");
}

TEST_CASE("config_from_json reports types, unknown keys and missing sizes by field") {
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2})").first == "");
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8})") ==
          std::pair<std::string, std::string>{"H", "H is missing: set the number of heads, for example H: 2."});
    CHECK(json_error_of(R"({"B":"2","T":4,"C":8,"H":2})").second ==
          "B must be a whole number ≥ 1, not the string \"2\".");
    CHECK(json_error_of(R"({"B":2.5,"T":4,"C":8,"H":2})").second ==
          "B=2.5 is not a whole number: B counts things, so it must be a whole number ≥ 1.");
    CHECK(json_error_of(R"({"B":{"$number":"NaN"},"T":4,"C":8,"H":2})").second == "B must be a whole number ≥ 1, not NaN.");
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2,"heads":2})").first == "heads");
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2,"hkv":2})").second.rfind(
              "Unknown config key \"hkv\" (did you mean \"Hkv\"?)", 0) == 0);
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2,"mask":"future"})").second ==
          "mask must be \"none\" or \"causal\", not the string \"future\". A padding mask is set with keyLengths, "
          "and combines with either.");
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2,"x":[1,2,"a"]})").second == "x[2] must be a number, not the string \"a\".");
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2,"x":"abc"})").first == "x");
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2,"weights":{"Wz":[]}})").first == "weights.Wz");
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2,"seed":-1})").first == "seed");
    CHECK(json_error_of(R"({"B":2,"T":4,"C":8,"H":2,"bias":"yes"})").second == "bias must be true or false, not the string \"yes\".");
    CHECK(json_error_of(R"({"B":2,)").second.rfind("The config is not valid JSON", 0) == 0);
    CHECK(json_error_of(R"([1,2])").first == "config");
}

TEST_CASE("forward refuses an invalid config before doing any work") {
    auto c = classic();
    c.C = 10; c.H = 4;
    CHECK_THROWS_AS(mha::forward(c), mha::MhaError);
}

TEST_CASE("largest_magnitude agrees with a plain loop on every length, sign and special value") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const float specials[] = {0.0f, -0.0f, 1e-45f, -3.4e38f, 3.4e38f, inf, -inf, nan, -nan, 7.5f};
    mha::Mulberry32 rng(11);
    for (std::size_t n = 0; n <= 37; ++n) {
        for (std::size_t trial = 0; trial < 40; ++trial) {
            std::vector<float> values(n);
            for (float& v : values) v = rng.uniform() * 1000.0f;
            // One or two special values at random places (the vector body and the tail alike).
            for (std::size_t s = 0; n > 0 && s < 1 + trial % 2; ++s) values[rng.next() % n] = specials[rng.next() % 10];
            bool any_nan = false;
            float expected = 0.0f;
            for (const float v : values) {
                any_nan |= std::isnan(v);
                if (!std::isnan(v)) expected = std::max(expected, std::fabs(v));
            }
            const float got = mha::largest_magnitude(values.data(), values.size());
            if (any_nan) CHECK(std::isnan(got));
            else CHECK(got == expected);
        }
    }
}

TEST_CASE("an explicit tensor's length is checked before its values, by the same rule the bindings use") {
    auto c = classic();
    const mha::Dims d = mha::validate(c);
    CHECK(mha::tensor_length("x", d) == 64);
    CHECK(mha::tensor_length("weights.Wk", d) == 64);
    CHECK(mha::tensor_length("weights.bo", d) == 8);
    CHECK_NOTHROW(mha::check_tensor_length("x", 64, d));
    try {
        mha::check_tensor_length("weights.bq", 1, d);
        FAIL("a bias of one value was accepted");
    } catch (const mha::MhaError& e) {
        CHECK(e.field() == "weights.bq");
        CHECK(std::string(e.what()) == "weights.bq has 1 value but needs H·D = 8.");
    }
}
