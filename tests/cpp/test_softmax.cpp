#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "mha/softmax.hpp"
#include "reference.hpp"

TEST_CASE("exp_nonpositive is within 3 ulp of e^x in double, and 0 below the normal range") {
    double worst = 0;
    float worst_x = 0;
    for (float x = 0.0f; x > -87.0f; x -= 0.000731f) {
        const double expected = std::exp(static_cast<double>(x));
        const double ulps = std::fabs(mha::exp_nonpositive(x) - expected) / (expected * 1.1920929e-7);
        if (ulps > worst) worst = ulps, worst_x = x;
    }
    INFO("worst error " << worst << " ulp at x = " << worst_x);
    CHECK(worst < 3.0);
    CHECK(mha::exp_nonpositive(0.0f) == 1.0f);
    CHECK(mha::exp_nonpositive(-90.0f) == 0.0f);
    CHECK(mha::exp_nonpositive(-std::numeric_limits<float>::infinity()) == 0.0f);
}

TEST_CASE("softmax_row matches a double-precision softmax on every row length around the lane width") {
    constexpr float minus_inf = -std::numeric_limits<float>::infinity();
    std::uint32_t seed = 77;
    for (std::size_t n = 1; n <= 67; ++n) {
        for (int masked_tail = 0; masked_tail < 2; ++masked_tail) {
            auto row = ref::noise(n, seed++, 8.0f);
            if (masked_tail)
                for (std::size_t j = n / 2 + 1; j < n; ++j) row[j] = minus_inf;
            double max = row[0], sum = 0;
            for (float v : row) max = std::max(max, static_cast<double>(v));
            for (float v : row) sum += std::exp(v - max);
            std::vector<float> out(n, 5.0f);
            CHECK(mha::softmax_row(row.data(), out.data(), n));
            double worst = 0;
            for (std::size_t j = 0; j < n; ++j) worst = std::max(worst, std::fabs(out[j] - std::exp(row[j] - max) / sum));
            INFO("n=" << n << " masked tail=" << masked_tail << " max |diff|=" << worst);
            CHECK(worst < 1e-6);
            std::vector<float> in_place(row);  // in and out may be the same buffer
            mha::softmax_row(in_place.data(), in_place.data(), n);
            CHECK(in_place == out);
        }
    }
}

TEST_CASE("softmax_row gives zeros, not NaN, to a row whose keys are all masked") {
    const float minus_inf = -std::numeric_limits<float>::infinity();
    for (std::size_t n : {1, 4, 7}) {
        std::vector<float> row(n, minus_inf), out(n, 5.0f);
        CHECK_FALSE(mha::softmax_row(row.data(), out.data(), n));
        CHECK(out == std::vector<float>(n, 0.0f));
    }
}
