#include <doctest/doctest.h>

#include "mha/matmul.hpp"
#include "reference.hpp"

namespace {

// c = a · b (+ bias), the textbook triple loop in double.
std::vector<float> plain_matmul(const std::vector<float>& a, const std::vector<float>& b, std::size_t batch,
                                std::size_t M, std::size_t K, std::size_t N, const std::vector<float>& bias) {
    std::vector<float> c(batch * M * N);
    for (std::size_t n = 0; n < batch; ++n)
        for (std::size_t i = 0; i < M; ++i)
            for (std::size_t j = 0; j < N; ++j) {
                double acc = bias.empty() ? 0.0 : bias[j];
                for (std::size_t k = 0; k < K; ++k) acc += double(a[(n * M + i) * K + k]) * b[(n * K + k) * N + j];
                c[(n * M + i) * N + j] = float(acc);
            }
    return c;
}

}  // namespace

TEST_CASE("batched_matmul matches a plain triple loop on awkward sizes") {
    const std::size_t sizes[] = {1, 3, 17, 129};
    std::uint32_t seed = 1;
    for (std::size_t M : sizes)
        for (std::size_t K : sizes)
            for (std::size_t N : sizes)
                for (bool with_bias : {false, true}) {
                    const std::size_t batch = (M * K * N < 5000) ? 3 : 1;
                    const auto a = ref::noise(batch * M * K, seed++);
                    const auto b = ref::noise(batch * K * N, seed++);
                    const auto bias = with_bias ? ref::noise(N, seed++) : std::vector<float>{};
                    std::vector<float> c(batch * M * N, 123.0f);  // garbage the kernel must overwrite
                    mha::batched_matmul(a.data(), b.data(), c.data(), batch, M, K, N, with_bias ? bias.data() : nullptr);
                    const auto diff = ref::compare(c, plain_matmul(a, b, batch, M, K, N, bias), 1e-4);
                    INFO("batch=" << batch << " M=" << M << " K=" << K << " N=" << N << " bias=" << with_bias
                                  << " max |diff|=" << diff.max_abs << " first bad index=" << diff.first_bad);
                    CHECK(diff.first_bad == -1);
                }
}
