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
