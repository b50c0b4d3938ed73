// Incremental decoding with a KV cache (cpp/src/attention_incremental.cpp) beside the causal
// forward pass: every output row the same within 1e-5 on every fixture made causal
// self-attention, under MHA, GQA and MQA, against PyTorch where the fixture is causal
// self-attention already and against the plain-loop reference everywhere; the cache's shape and
// contents at every step t; the one-row scores and weights as rows of the causal matrices.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "fixture_files.hpp"
#include "mha/catalogue.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/messages.hpp"
#include "reference.hpp"

namespace {

constexpr float minus_inf = -std::numeric_limits<float>::infinity();

mha::Config incremental(mha::Config c) {
    c.algorithm = mha::Algorithm::incremental;
    return c;
}

// A fixture's config as causal self-attention: K and V from x, padding lengths kept within T.
mha::Config causal_self(mha::Config c) {
    c.kv.reset();
    c.Tk.reset();
    c.mask = mha::MaskKind::causal;
    if (c.key_lengths)
        for (auto& n : *c.key_lengths) n = std::min<std::int64_t>(n, c.T);
    return c;
}

mha::Trace at_step(const mha::Config& c, const char* id, std::int64_t t) {
    mha::RunOptions options;
    options.only = mha::StepRequest{id, std::nullopt, std::nullopt, t};
    return mha::forward(c, options);
}

// Within `tolerance`, or the same infinity (masked scores are −∞ in both).
void check_close(const std::vector<float>& actual, const std::vector<float>& expected, double tolerance, const std::string& what) {
    REQUIRE_MESSAGE(actual.size() == expected.size(), what);
    double max_abs = 0;
    long first_bad = -1;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (actual[i] == expected[i]) continue;
        const double diff = std::fabs(double(actual[i]) - double(expected[i]));
        if (!(diff <= max_abs)) max_abs = diff;
        if (!(diff <= tolerance) && first_bad < 0) first_bad = long(i);
    }
    INFO(what << ": max |diff| " << max_abs << ", first index over " << tolerance << ": " << first_bad);
    CHECK(first_bad == -1);
}

std::string warnings_text(const mha::Trace& t) {
    std::string text;
    for (const mha::Warning& w : t.warnings) text += mha::message_of(w) + "\n";
    return text;
}

}  // namespace

TEST_CASE("incremental: every fixture, made causal self-attention, row for row as the causal forward pass") {
    const auto fixtures = load_fixtures();
    REQUIRE(fixtures.size() >= 13);
    int grouped = 0, single_kv = 0;
    for (const Fixture& f : fixtures) {
        INFO("fixture " << f.name);
        const mha::Config c = causal_self(f.config);
        const mha::Trace naive = mha::forward(c);
        const mha::Trace decoded = mha::forward(incremental(c));
        const mha::Dims& d = naive.dims;
        grouped += d.Hkv < d.H && d.Hkv > 1;
        single_kv += d.Hkv == 1 && d.H > 1;
        check_close(decoded.output, naive.output, 1e-5, f.name + " output vs the causal forward pass");
        const ref::Result expected = ref::attention(d.B, d.T, d.T, d.C, d.H, d.Hkv, naive.step("x").data, {}, naive.weights, true,
                                                    c.key_lengths.value_or(std::vector<std::int64_t>{}));
        check_close(decoded.output, expected.output, 1e-5, f.name + " output vs the reference");
        // A fixture that was causal self-attention already: PyTorch's own numbers.
        if (f.config.mask == mha::MaskKind::causal && !f.config.kv && f.config.Tk.value_or(f.config.T) == f.config.T)
            check_close(decoded.output, expected_data(f, "output"), 1e-5, f.name + " output vs PyTorch");
        // The one-row scores and weights are the rows of the causal matrices; the cache is K and V.
        check_close(decoded.step("decode_scores").data, naive.step("masked").data, 1e-6, f.name + " scores");
        check_close(decoded.step("decode_weights").data, naive.step("weights").data, 1e-6, f.name + " weights");
        check_close(decoded.step("decode_q").data, naive.step("q_heads").data, 0, f.name + " q");
        check_close(decoded.step("cache_k").data, naive.step("k_heads").data, 0, f.name + " K cache");
        check_close(decoded.step("cache_v").data, naive.step("v_heads").data, 0, f.name + " V cache");
        check_close(decoded.step("decode_output").data, naive.output, 1e-5, f.name + " output rows");
        CHECK(warnings_text(decoded) == warnings_text(naive));
    }
    CHECK(grouped > 0);    // GQA
    CHECK(single_kv > 0);  // MQA
}

TEST_CASE("incremental: MHA, GQA and MQA on seeded configs, with padding and a fully masked row") {
    for (const std::int64_t Hkv : {6, 3, 2, 1}) {
        mha::Config c;
        c.B = 3; c.T = 9; c.C = 24; c.H = 6; c.Hkv = Hkv; c.seed = 5; c.mask = mha::MaskKind::causal;
        c.key_lengths = std::vector<std::int64_t>{9, 4, 0};
        INFO("Hkv=" << Hkv);
        const mha::Trace naive = mha::forward(c);
        const mha::Trace decoded = mha::forward(incremental(c));
        check_close(decoded.output, naive.output, 1e-5, "output");
        CHECK(warnings_text(decoded) == warnings_text(naive));
        CHECK(decoded.warnings.size() == 1);  // batch row 2, every query
        // The cache holds Hkv heads: what GQA and MQA shrink.
        CHECK(decoded.step("cache_k").shape == std::vector<std::size_t>{3, static_cast<std::size_t>(Hkv), 9, 4});
        CHECK(decoded.kv_cache_bytes_per_token == 2u * Hkv * 4 * 4);
    }
}

TEST_CASE("incremental: each step's tensors as they were at step t, the cache growing") {
    mha::Config c;
    c.B = 2; c.T = 6; c.C = 12; c.H = 4; c.Hkv = 2; c.seed = 3; c.mask = mha::MaskKind::causal;
    c = incremental(c);
    const mha::Trace whole = mha::forward(c);
    mha::Config naive_config = c;
    naive_config.algorithm = mha::Algorithm::naive;
    const mha::Trace naive = mha::forward(naive_config);
    const mha::Snapshot& k_heads = naive.step("k_heads");
    for (std::int64_t t = 0; t < 6; ++t) {
        INFO("t=" << t);
        const std::size_t n = static_cast<std::size_t>(t) + 1;
        const mha::Snapshot cache = at_step(c, "cache_k", t).steps.at(0);
        CHECK(cache.id == "cache_k");
        CHECK(cache.shape == std::vector<std::size_t>{2, 2, n, 3});
        CHECK(cache.axes() == std::vector<std::string>{"B", "Hkv", "t+1", "D"});
        CHECK(cache.bytes == 2 * 2 * n * 3 * sizeof(float));
        // Rows 0 … t of K, per (batch row, K/V head).
        for (std::size_t bg = 0; bg < 4; ++bg)
            for (std::size_t j = 0; j < n * 3; ++j) CHECK(cache.data[bg * n * 3 + j] == k_heads.data[bg * 6 * 3 + j]);
        const mha::Snapshot scores = at_step(c, "decode_scores", t).steps.at(0);
        CHECK(scores.shape == std::vector<std::size_t>{2, 4, 1, n});
        const auto& all = whole.step("decode_scores").data;  // [B, H, T, T]: row t, its first t+1
        for (std::size_t bh = 0; bh < 8; ++bh)
            for (std::size_t j = 0; j < 6; ++j) {
                const float whole_value = all[(bh * 6 + t) * 6 + j];
                if (j < n) CHECK(scores.data[bh * n + j] == whole_value);
                else CHECK(whole_value == minus_inf);  // not in the cache yet
            }
        CHECK(at_step(c, "decode_weights", t).steps.at(0).shape == std::vector<std::size_t>{2, 4, 1, n});
        CHECK(at_step(c, "decode_q", t).steps.at(0).shape == std::vector<std::size_t>{2, 4, 1, 3});
        CHECK(at_step(c, "decode_k", t).steps.at(0).shape == std::vector<std::size_t>{2, 2, 1, 3});
        CHECK(at_step(c, "decode_context", t).steps.at(0).shape == std::vector<std::size_t>{2, 4, 1, 3});
        const mha::Snapshot y = at_step(c, "decode_output", t).steps.at(0);
        CHECK(y.shape == std::vector<std::size_t>{2, 1, 12});
        for (std::size_t b = 0; b < 2; ++b)
            for (std::size_t k = 0; k < 12; ++k) CHECK(y.data[b * 12 + k] == whole.output[(b * 6 + t) * 12 + k]);
    }
}

TEST_CASE("incremental: the step list, shapes and axes come from the catalogue") {
    mha::Config c;
    c.B = 2; c.T = 5; c.C = 12; c.H = 3; c.Hkv = 1; c.mask = mha::MaskKind::causal;
    const mha::Trace t = mha::forward(incremental(c));
    std::vector<std::string> ids, expected;
    for (const mha::StepSpec& s : mha::catalogue())
        if (mha::appears(s, t.dims)) expected.push_back(s.id);
    for (const mha::Snapshot& s : t.steps) {
        ids.emplace_back(s.id);
        INFO(s.id);
        CHECK(s.shape == mha::step_shape(*mha::find_step(s.id), t.dims));
        CHECK(s.data.size() == s.numel);
    }
    CHECK(ids == expected);
    CHECK(ids == std::vector<std::string>{"x", "decode_q", "decode_k", "decode_v", "cache_k", "cache_v", "decode_scores", "decode_weights",
                                          "decode_context", "decode_output"});
    CHECK(t.step("decode_scores").axes() == std::vector<std::string>{"B", "H", "t", "t+1"});
    CHECK(t.step("cache_k").changes_values == false);
}

TEST_CASE("incremental: errors name algorithm (cross-attention, no causal mask) and the slice, before any work") {
    mha::Config c;
    c.B = 1; c.T = 4; c.C = 8; c.H = 2;
    c = incremental(c);
    auto error_of = [](const mha::Config& config, const mha::RunOptions& options = {}) -> std::pair<std::string, std::string> {
        try {
            mha::validate(config, options);
        } catch (const mha::MhaError& e) {
            CHECK(mha::message_of(e, mha::Lang::zh).find("{@") == std::string::npos);
            CHECK(mha::message_of(e, mha::Lang::zh).find("term.") == std::string::npos);
            return {e.field(), e.what()};
        }
        return {"", ""};
    };
    CHECK(error_of(c) == std::pair<std::string, std::string>{
                             "algorithm", "algorithm \"incremental\" decodes one token at a time, and a token cannot attend to the tokens after "
                                          "it: it needs mask \"causal\". Set mask to \"causal\", or choose algorithm \"naive\" or \"tiled\"."});
    c.mask = mha::MaskKind::causal;
    CHECK(error_of(c).first == "");
    c.Tk = 6;
    CHECK(error_of(c) == std::pair<std::string, std::string>{
                             "algorithm", "algorithm \"incremental\" decodes a sequence's own tokens (causal self-attention), but this "
                                          "config is cross-attention (kv given, or Tk=6 ≠ T=4). Remove Tk and kv, or choose algorithm \"naive\" "
                                          "or \"tiled\"."});
    c.Tk.reset();
    c.kv = std::vector<float>(32, 0.5f);
    CHECK(error_of(c).first == "algorithm");
    c.kv.reset();
    mha::RunOptions options;
    options.only = mha::StepRequest{"cache_k", std::nullopt, std::nullopt, 4};
    CHECK(error_of(c, options) == std::pair<std::string, std::string>{"t", "t=4 is not a whole number from 0 to 3."});
    options.only = mha::StepRequest{"x", std::nullopt, std::nullopt, 1};
    CHECK(error_of(c, options).second ==
          "A slice by decoding step t is asked only of the decoding steps of an incremental run (decode_q, decode_k, decode_v, cache_k, cache_v, "
          "decode_scores, decode_weights, decode_context, decode_output), without batch or head; \"x\" is asked for whole.");
    options.only = mha::StepRequest{"decode_scores", 0, 0, std::nullopt};
    CHECK(error_of(c, options).first == "step");
    mha::Config many;
    many.B = 64; many.T = 65536; many.C = 64; many.H = 64; many.mask = mha::MaskKind::causal;
    many = incremental(many);
    many.snapshots = mha::Snapshots::none;
    CHECK(error_of(many).second ==
          "Incremental decoding attends B·H·T = 64·64·65536 = 268,435,456 times (one query of one head per token), more than one run may "
          "do (16,777,216). Lower B, H or T.");
}
