#include <doctest/doctest.h>

#include <cstring>

#include "mha/error.hpp"
#include "mha/forward.hpp"

namespace {

mha::Config causal_gqa() {
    mha::Config c;
    c.B = 2; c.T = 5; c.C = 12; c.H = 4; c.Hkv = 2; c.seed = 9;
    c.mask = mha::MaskKind::causal;
    c.key_lengths = std::vector<std::int64_t>{5, 3};
    return c;
}

mha::RunOptions only(const char* id, std::optional<std::int64_t> batch, std::optional<std::int64_t> head) {
    mha::RunOptions options;
    options.only = mha::StepRequest{id, batch, head};
    return options;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("a lazy run records every step's metadata and no values, and the same output") {
    const mha::Trace eager = mha::forward(causal_gqa());
    mha::Config c = causal_gqa();
    c.snapshots = mha::Snapshots::lazy;
    const mha::Trace lazy = mha::forward(c);
    REQUIRE(lazy.steps.size() == eager.steps.size());
    CHECK(same_bits(lazy.output, eager.output));
    for (std::size_t i = 0; i < eager.steps.size(); ++i) {
        const auto &l = lazy.steps[i], &e = eager.steps[i];
        INFO(e.id);
        CHECK(l.id == e.id);
        CHECK(l.data.empty());
        CHECK(l.shape == e.shape);
        CHECK(l.strides == e.strides);
        CHECK(l.numel == e.numel);
        CHECK(l.changes_values == e.changes_values);
    }
}

TEST_CASE("a request records one step, or one {batch, head} of a scores-sized step, as the eager run has it") {
    const mha::Trace eager = mha::forward(causal_gqa());
    for (const char* id : {"q_heads", "k_t", "scores", "masked", "weights", "context", "output"}) {
        const mha::Trace asked = mha::forward(causal_gqa(), only(id, std::nullopt, std::nullopt));
        INFO(id);
        REQUIRE(asked.steps.size() == 1);
        CHECK(same_bits(asked.steps[0].data, eager.step(id).data));
    }
    for (const char* id : {"scores", "scaled", "masked", "weights"})
        for (std::int64_t b = 0; b < 2; ++b)
            for (std::int64_t h = 0; h < 4; ++h) {
                const mha::Trace asked = mha::forward(causal_gqa(), only(id, b, h));
                INFO(id << " batch " << b << " head " << h);
                REQUIRE(asked.steps.size() == 1);
                CHECK(asked.steps[0].shape == std::vector<std::size_t>{1, 1, 5, 5});
                const auto& whole = eager.step(id).data;
                const std::vector<float> expected(whole.begin() + (b * 4 + h) * 25, whole.begin() + (b * 4 + h + 1) * 25);
                CHECK(same_bits(asked.steps[0].data, expected));
            }
}

TEST_CASE("a request is checked before any work: the step, the slice, and the memory cap") {
    CHECK_THROWS_WITH(mha::forward(causal_gqa(), only("nope", std::nullopt, std::nullopt)),
                      doctest::Contains("There is no step \"nope\" in this run. Its steps are: x, q, k, v,"));
    CHECK_THROWS_WITH(mha::forward(causal_gqa(), only("source", std::nullopt, std::nullopt)),
                      doctest::Contains("There is no step \"source\""));  // self-attention has none
    CHECK_THROWS_AS(mha::forward(causal_gqa(), only("q", 0, 0)), mha::MhaError);
    CHECK_THROWS_AS(mha::forward(causal_gqa(), only("weights", 2, 0)), mha::MhaError);
    CHECK_THROWS_AS(mha::forward(causal_gqa(), only("weights", 0, std::nullopt)), mha::MhaError);
    mha::Config big;
    big.B = 1; big.T = 4096; big.C = 768; big.H = 12;
    big.snapshots = mha::Snapshots::lazy;
    CHECK_NOTHROW(mha::validate(big));
    // The whole step is 768 MiB > 256 MiB; one head of it 64 MiB, with the pass's own tensors.
    CHECK_THROWS_WITH(mha::validate(big, only("weights", std::nullopt, std::nullopt)),
                      doctest::Contains("ask for one {batch, head} of it"));
    CHECK_NOTHROW(mha::validate(big, only("weights", 0, 11)));
}
