// nn.MultiheadAttention's other options against PyTorch: every golden file in
// tests/fixtures/options (scripts/make_fixtures.py, from the module itself) reproduced within 1e-5
// by the naive and the tiled pass; and what the engine refuses about them, by name.
#include <doctest/doctest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mha/config_json.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "reference.hpp"

namespace {

std::vector<nlohmann::json> option_fixtures() {
    const std::string folder = std::string(MHA_FIXTURES_DIR) + "/options";
    std::vector<std::string> files;
    if (DIR* dir = opendir(folder.c_str())) {
        while (dirent* entry = readdir(dir)) {
            const std::string name = entry->d_name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) files.push_back(folder + "/" + name);
        }
        closedir(dir);
    }
    std::sort(files.begin(), files.end());
    std::vector<nlohmann::json> fixtures;
    for (const std::string& file : files) {
        std::ifstream in(file);
        std::stringstream text;
        text << in.rdbuf();
        fixtures.push_back(nlohmann::json::parse(text.str()));
    }
    return fixtures;
}

std::string refusal(const nlohmann::json& config) {
    try {
        mha::forward(mha::config_from_json(config.dump()));
    } catch (const mha::MhaError& e) {
        return e.field() + " " + e.key();
    }
    return "ran";
}

}  // namespace

TEST_CASE("add_bias_kv and PyTorch's masks, as nn.MultiheadAttention computes them, naive and tiled") {
    const auto fixtures = option_fixtures();
    REQUIRE(fixtures.size() >= 13);
    for (const auto& fixture : fixtures) {
        const std::string name = fixture.at("name");
        for (const char* algorithm : {"naive", "tiled"}) {
            INFO("fixture " << name << ", " << algorithm);
            nlohmann::json config = fixture.at("config");
            config["algorithm"] = algorithm;
            if (std::string(algorithm) == "tiled") config["blockK"] = 3;  // a tile across the appended key
            const mha::Trace trace = mha::forward(mha::config_from_json(config.dump()));
            const auto& output = fixture.at("expected").at("output");
            const auto out_diff = ref::compare(trace.output, output.at("data").get<std::vector<float>>(), 1e-5);
            INFO("output: max |diff| " << out_diff.max_abs << ", first index over 1e-5: " << out_diff.first_bad);
            CHECK(out_diff.first_bad == -1);
            const bool bias_kv = config.value("addBiasKv", false), zero_attn = config.value("addZeroAttn", false);
            const std::size_t Tk = config.at("Tk"), keys = Tk + (bias_kv ? 1 : 0) + (zero_attn ? 1 : 0);
            if (std::string(algorithm) == "naive") {
                const auto& weights = fixture.at("expected").at("weights");
                const auto& step = trace.step("weights");
                CHECK(step.shape == weights.at("shape").get<std::vector<std::size_t>>());
                CHECK(step.shape.back() == keys);
                const auto diff = ref::compare(step.data, weights.at("data").get<std::vector<float>>(), 1e-5);
                INFO("weights: max |diff| " << diff.max_abs << ", first index over 1e-5: " << diff.first_bad);
                CHECK(diff.first_bad == -1);
            } else {
                CHECK(trace.step("tile_probs").shape.back() == keys);
            }
            CHECK(trace.warnings.empty());
            if (keys == Tk) {
                CHECK(trace.step("k_t").shape[3] == Tk);
                continue;
            }
            // The steps say where the key came in: K and its heads are the source's Tk long, the
            // appended heads and everything after them one longer, their axis named Tk+1.
            CHECK(trace.step("k_heads").shape[2] == Tk);
            CHECK(trace.step("k_appended").shape[2] == keys);
            CHECK(trace.step("k_appended").axes()[2] == "Tk+" + std::to_string(keys - Tk));
            CHECK(trace.step("k_heads").axes()[2] == "Tk");
            CHECK(trace.step("k_t").shape[3] == keys);
            // The appended keys of every batch row and head: bias_k itself, then zeros.
            const auto bias_k = bias_kv ? config.at("weights").at("bias_k").get<std::vector<float>>() : std::vector<float>();
            const auto& appended = trace.step("k_appended");
            const std::size_t H = appended.shape[1], D = appended.shape[3];
            for (std::size_t b = 0; b < appended.shape[0]; ++b)
                for (std::size_t h = 0; h < H; ++h)
                    for (std::size_t e = 0; e < D; ++e) {
                        if (bias_kv) CHECK(appended.data[((b * H + h) * keys + Tk) * D + e] == bias_k[h * D + e]);
                        if (zero_attn) CHECK(appended.data[((b * H + h) * keys + keys - 1) * D + e] == 0.0f);
                    }
        }
    }
}

TEST_CASE("add_bias_kv: what the engine does not compute with it is refused by name") {
    const auto fixtures = option_fixtures();
    const auto bias_kv = std::find_if(fixtures.begin(), fixtures.end(), [](const nlohmann::json& f) { return f.at("name") == "bias_kv"; });
    REQUIRE(bias_kv != fixtures.end());
    const nlohmann::json base = bias_kv->at("config");

    nlohmann::json incremental = base;
    incremental["algorithm"] = "incremental";
    incremental["mask"] = "causal";
    CHECK(refusal(incremental) == "addBiasKv bad_value.incremental_bias_kv");

    nlohmann::json backward = base;
    backward["dOutput"] = std::vector<float>(base.at("x").size(), 0.5f);
    CHECK(refusal(backward) == "dOutput bad_value.backward_bias_kv");

    nlohmann::json said_no = base;
    said_no["addBiasKv"] = false;
    CHECK(refusal(said_no) == "weights.bias_k bad_value.bias_kv_given");

    nlohmann::json half = base;
    half["weights"].erase("bias_v");
    CHECK(refusal(half) == "weights.bias_v missing.bias_kv");

    nlohmann::json short_row = base;
    short_row["weights"]["bias_k"] = std::vector<float>{1.0f, 2.0f};
    CHECK(refusal(short_row) == "weights.bias_k bad_tensor_length");

    // Seeded: addBiasKv alone appends seeded bias_k and bias_v, counted among the parameters.
    const mha::Trace seeded = mha::forward(mha::config_from_json(R"({"B": 1, "T": 3, "C": 8, "H": 2, "addBiasKv": true})"));
    const mha::Trace plain = mha::forward(mha::config_from_json(R"({"B": 1, "T": 3, "C": 8, "H": 2})"));
    CHECK(seeded.weights.bias_k.size() == 8);
    CHECK(seeded.step("weights").shape == std::vector<std::size_t>{1, 2, 3, 4});
    CHECK(seeded.parameter_count == plain.parameter_count + 16);
}

TEST_CASE("a PyTorch argument name as a config key says what the engine calls it") {
    auto message = [](const char* json) {
        try {
            mha::config_from_json(json);
        } catch (const mha::MhaError& e) {
            return e.field() + ": " + std::string(e.what());
        }
        return std::string("read");
    };
    CHECK(message(R"({"B": 1, "T": 2, "C": 4, "H": 2, "is_causal": true})").find("PyTorch's is_causal: here mask: \"causal\"") !=
          std::string::npos);
    CHECK(message(R"({"B": 1, "T": 2, "C": 4, "num_heads": 2})").find("num_heads: Unknown config key \"num_heads\" (PyTorch's num_heads: here H)") == 0);
    CHECK(message(R"({"B": 1, "T": 2, "C": 4, "H": 2, "attn_mask": [0]})").find("mask: \"causal\" for a causal mask") != std::string::npos);
    CHECK(message(R"({"B": 1, "T": 2, "C": 4, "H": 2, "batch_first": false})").find("always batch first") != std::string::npos);
    CHECK(message(R"({"B": 1, "T": 2, "C": 4, "H": 2, "kdim": 3})").find("not computed by the engine yet") != std::string::npos);
    CHECK(message(R"({"B": 1, "T": 2, "C": 4, "H": 2, "add_zero_attn": true})").find("here addZeroAttn") != std::string::npos);
    CHECK(message(R"({"B": 1, "T": 2, "C": 4, "H": 2, "key_lengths": [2]})").find("did you mean \"keyLengths\"") != std::string::npos);
}

TEST_CASE("attnMask and keyPaddingMask: shapes that do not broadcast and values that are not masks are refused by name") {
    const nlohmann::json base = nlohmann::json::parse(R"({"B": 2, "T": 3, "C": 4, "H": 2})");
    auto with = [&](const char* key, const char* mask) {
        nlohmann::json config = base;
        config[key] = nlohmann::json::parse(mask);
        return refusal(config);
    };
    CHECK(with("attnMask", R"({"shape": [3, 3], "masked": [false, true, true, false, false, true, false, false, false]})") == "ran");
    CHECK(with("attnMask", R"({"shape": [3, 2], "add": [0, 0, 0, 0, 0, 0]})") == "attnMask bad_mask.shape");
    CHECK(with("attnMask", R"({"shape": [3, 3, 3], "add": []})") == "attnMask bad_mask.shape");  // B·H = 4, H = 2
    CHECK(with("attnMask", R"({"shape": [3], "add": [0, 0, 0]})") == "attnMask bad_mask.rank");
    CHECK(with("attnMask", R"({"shape": [1, 3], "add": [0, 0]})") == "attnMask.add bad_mask.length");
    CHECK(with("attnMask", R"({"shape": [1, 3], "masked": [0, 2, 0]})") == "attnMask.masked bad_mask.bool_value");
    CHECK(with("attnMask", R"({"shape": [1, 3], "add": [0, "-Infinity", 1.5]})") == "ran");
    CHECK(with("attnMask", R"({"shape": [1, 3], "masked": [0, 1, 0], "add": [0, 0, 0]})") == "attnMask bad_mask.form");
    CHECK(with("attnMask", R"({"shape": [1, 3], "hidden": [0, 1, 0]})") == "attnMask.hidden unknown_key.mask");
    CHECK(with("keyPaddingMask", R"({"masked": [true, false, false, false, false, true]})") == "ran");
    CHECK(with("keyPaddingMask", R"({"shape": [3, 2], "masked": [true, false, false, false, false, true]})") == "keyPaddingMask bad_mask.padding_shape");
    nlohmann::json incremental = base;
    incremental["algorithm"] = "incremental";
    incremental["mask"] = "causal";
    incremental["keyPaddingMask"] = nlohmann::json::parse(R"({"masked": [false, false, false, false, false, false]})");
    CHECK(refusal(incremental) == "keyPaddingMask bad_value.incremental_attn_mask");
}

TEST_CASE("a fully masked query row under attnMask gets zero weights and a warning, naive and tiled alike") {
    for (const char* algorithm : {"naive", "tiled"}) {
        nlohmann::json config = nlohmann::json::parse(R"({"B": 1, "T": 2, "C": 4, "H": 2,
            "attnMask": {"shape": [2, 2], "masked": [true, true, false, true]}})");
        config["algorithm"] = algorithm;
        const mha::Trace trace = mha::forward(mha::config_from_json(config.dump()));
        REQUIRE(trace.warnings.size() == 1);
        CHECK(trace.warnings[0].key == "warning.fully_masked");
        for (std::size_t i = 0; i < 4; ++i) CHECK(trace.output[i] == trace.weights.bo[i]);  // zero context: the output is bo
    }
}

TEST_CASE("the backward pass through attnMask and keyPaddingMask matches autograd") {
    std::size_t checked = 0;
    for (const auto& fixture : option_fixtures()) {
        if (!fixture.contains("backward")) continue;
        const std::string name = fixture.at("name");
        INFO("fixture " << name);
        nlohmann::json config = fixture.at("config");
        config["dOutput"] = fixture.at("backward").at("dOutput");
        const mha::Trace trace = mha::forward(mha::config_from_json(config.dump()));
        for (const auto& item : fixture.at("backward").at("gradients").items()) {
            // Not a structured binding: INFO captures the name in a lambda, which C++17 forbids for one.
            const std::string grad_name = item.key();
            const nlohmann::json& expected = item.value();
            const std::vector<float>* actual = grad_name == "x" ? &trace.gradients.x : grad_name == "kv" ? &trace.gradients.kv : nullptr;
            for (const mha::WeightField& f : mha::weight_fields)
                if (grad_name == f.name) actual = &(trace.gradients.weights.*f.member);
            REQUIRE(actual != nullptr);
            const auto diff = ref::compare(*actual, expected.at("data").get<std::vector<float>>(), 1e-5);
            INFO(grad_name << ": max |diff| " << diff.max_abs << ", first index over 1e-5: " << diff.first_bad);
            CHECK(diff.first_bad == -1);
        }
        ++checked;
    }
    CHECK(checked >= 7);
}
