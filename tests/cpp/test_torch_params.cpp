#include <doctest/doctest.h>

#include "mha/error.hpp"
#include "mha/torch_params.hpp"
#include "reference.hpp"

TEST_CASE("weights_from_torch transposes each block of in_proj_weight and out_proj.weight") {
    const std::size_t C = 6;
    const auto in_w = ref::noise(3 * C * C, 11), in_b = ref::noise(3 * C, 12);
    const auto out_w = ref::noise(C * C, 13), out_b = ref::noise(C, 14);
    const mha::Weights w = mha::weights_from_torch(C, in_w, in_b, out_w, out_b);

    // PyTorch: q[n] = Σ_c x[c] · in_proj_weight[n, c]; the walkthrough: q[n] = Σ_c x[c] · Wq[c, n].
    for (std::size_t c = 0; c < C; ++c)
        for (std::size_t n = 0; n < C; ++n) {
            CHECK(w.Wq[c * C + n] == in_w[n * C + c]);
            CHECK(w.Wk[c * C + n] == in_w[(C + n) * C + c]);
            CHECK(w.Wv[c * C + n] == in_w[(2 * C + n) * C + c]);
            CHECK(w.Wo[c * C + n] == out_w[n * C + c]);
        }
    for (std::size_t n = 0; n < C; ++n) {
        CHECK(w.bq[n] == in_b[n]);
        CHECK(w.bk[n] == in_b[C + n]);
        CHECK(w.bv[n] == in_b[2 * C + n]);
        CHECK(w.bo[n] == out_b[n]);
    }
}

TEST_CASE("weights_from_torch without biases, and its errors") {
    const std::size_t C = 4;
    const mha::Weights w = mha::weights_from_torch(C, ref::noise(3 * C * C, 1), {}, ref::noise(C * C, 2), {});
    CHECK(w.bq.empty());
    CHECK(w.bo.empty());

    CHECK_THROWS_WITH_AS(mha::weights_from_torch(C, ref::noise(3 * C * C - 1, 1), {}, ref::noise(C * C, 2), {}),
                         "in_proj_weight has 47 values but needs 3C·C = 48 for embed_dim C.", mha::MhaError);
    CHECK_THROWS_WITH_AS(mha::weights_from_torch(C, ref::noise(3 * C * C, 1), ref::noise(3 * C, 3), ref::noise(C * C, 2), {}),
                         doctest::Contains("Give both in_proj_bias and out_proj_bias"), mha::MhaError);
}

TEST_CASE("separate q/k/v/out projections split from in_proj convert as weights_from_torch does") {
    const std::size_t C = 5;
    std::vector<float> in_w(3 * C * C), in_b(3 * C), out_w(C * C), out_b(C);
    for (std::size_t i = 0; i < in_w.size(); ++i) in_w[i] = 0.01f * static_cast<float>(i % 17) - 0.07f;
    for (std::size_t i = 0; i < in_b.size(); ++i) in_b[i] = 0.1f * static_cast<float>(i);
    for (std::size_t i = 0; i < out_w.size(); ++i) out_w[i] = 0.02f * static_cast<float>(i % 11);
    for (std::size_t i = 0; i < out_b.size(); ++i) out_b[i] = -0.3f * static_cast<float>(i);
    auto rows = [&](const std::vector<float>& v, std::size_t first, std::size_t count) {
        return std::vector<float>(v.begin() + first, v.begin() + first + count);
    };
    const mha::LinearParams p{rows(in_w, 0, C * C), rows(in_b, 0, C), rows(in_w, C * C, C * C), rows(in_b, C, C),
                              rows(in_w, 2 * C * C, C * C), rows(in_b, 2 * C, C), out_w, out_b};
    const mha::Weights linear = mha::weights_from_linear(C, p);
    const mha::Weights packed = mha::weights_from_torch(C, in_w, in_b, out_w, out_b);
    for (const mha::WeightField& f : mha::weight_fields) {
        INFO(f.name);
        CHECK(linear.*f.member == packed.*f.member);
    }
    mha::LinearParams gqa = p;
    gqa.v_weight.resize(2 * C);
    CHECK_THROWS_WITH(mha::weights_from_linear(C, gqa), "v_proj.weight has 10 values but k_proj.weight has 25: K and V have as many heads as each other.");
}
