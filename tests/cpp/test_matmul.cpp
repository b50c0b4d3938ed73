#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

namespace {

// gemm against gemm_reference, bit for bit, in one of three operand layouts:
// 0: plain row-major; 1: b read transposed (as Kᵀ is) and c inside a wider buffer;
// 2: a read transposed, every row of a and c padded (as a head slice of q is).
void check_bit_identical(std::size_t M, std::size_t K, std::size_t N, int layout, std::uint32_t& seed) {
    const bool with_bias = layout != 1;
    const std::size_t pad = layout == 2 ? 5 : 0;
    const auto a = ref::noise((M + pad) * (K + pad), seed++);
    const auto b = ref::noise((K + pad) * (N + pad), seed++);
    const auto bias = ref::noise(N, seed++);
    mha::MatrixView av{a.data(), static_cast<std::ptrdiff_t>(K + pad), 1};
    mha::MatrixView bv{b.data(), static_cast<std::ptrdiff_t>(N + pad), 1};
    if (layout == 1) bv = {b.data(), 1, static_cast<std::ptrdiff_t>(K)};
    if (layout == 2) av = {a.data(), 1, static_cast<std::ptrdiff_t>(M + pad)};
    const std::ptrdiff_t ldc = static_cast<std::ptrdiff_t>(N + (layout ? 3 : 0));
    std::vector<float> fast(M * ldc, 7.0f), slow(M * ldc, 7.0f);
    const float* bias_ptr = with_bias ? bias.data() : nullptr;
    mha::gemm(M, K, N, av, bv, fast.data(), ldc, bias_ptr);
    mha::gemm_reference(M, K, N, av, bv, slow.data(), ldc, bias_ptr);
    long first_bad = -1;
    for (std::size_t i = 0; i < fast.size() && first_bad < 0; ++i)
        if (std::memcmp(&fast[i], &slow[i], sizeof(float)) != 0) first_bad = static_cast<long>(i);
    INFO("M=" << M << " K=" << K << " N=" << N << " layout=" << layout << " first differing index=" << first_bad
              << (first_bad >= 0 ? " fast=" + std::to_string(fast[first_bad]) + " reference=" + std::to_string(slow[first_bad])
                                 : std::string()));
    CHECK(first_bad == -1);  // includes the padding columns of c, which both leave alone
}

}  // namespace

TEST_CASE("the SIMD gemm is bit-identical to the plain reference loop on awkward sizes and strides") {
    // Sizes straddle the 4×8 register tile, the 64-row and 256-deep cache blocks, and 1.
    const std::size_t sizes[] = {1, 3, 4, 8, 17, 129, 257, 300};
    std::uint32_t seed = 1000;
    for (std::size_t M : sizes)
        for (std::size_t K : sizes)
            for (std::size_t N : sizes) {
                if (M * K * N > 3'000'000) continue;
                for (int layout = 0; layout < 3; ++layout) check_bit_identical(M, K, N, layout, seed);
            }
}

TEST_CASE("the SIMD gemm is bit-identical to the plain reference loop across its 1024-column blocks") {
    // N past one column block (the bias and c are offset by the block; b is packed block by block),
    // with a partial last tile, with depths on both sides of the 256-deep block.
    std::uint32_t seed = 5000;
    for (std::size_t M : {5, 70})
        for (std::size_t K : {3, 260})
            for (std::size_t N : {1024, 1029, 2061})
                for (int layout = 0; layout < 3; ++layout) check_bit_identical(M, K, N, layout, seed);
}
