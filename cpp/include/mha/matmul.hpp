#pragma once
/// @file matmul.hpp
/// @brief Matrix products over row-major buffers: a fast packed, blocked, SIMD kernel and the
///        plain loop it must agree with.
///
/// xtensor-blas would need a BLAS, which the browser does not have; these loops are the engine's
/// own. Both accumulate every c[i][j] in the same order (the bias, or 0, then k = 0, 1, …, K−1, each
/// product rounded before it is added: the build has no fused multiply-add), so the fast kernel
/// gives bit-identical results to the reference. tests/cpp/test_matmul.cpp checks both against a
/// plain triple loop and against each other on awkward sizes.

#include <cstddef>

namespace mha {

/// A read-only matrix operand seen through strides: element (r, c) is data[r·row_stride + c·col_stride].
/// A transposed or head-sliced view of a buffer is an operand without a copy.
struct MatrixView {
    const float* data;
    std::ptrdiff_t row_stride;
    std::ptrdiff_t col_stride = 1;
};

/// @brief c = a · b (+ bias) for a M×K, b K×N, and c M×N with rows `ldc` floats apart.
///        If `bias` is not null it holds N values added to every row.
///        The fast kernel: B packed in panels, A in blocks, a 4×8 register tile of SIMD
///        accumulators (WebAssembly SIMD128 under Emscripten, GCC vector extensions natively).
void gemm(std::size_t M, std::size_t K, std::size_t N, MatrixView a, MatrixView b, float* c, std::ptrdiff_t ldc,
          const float* bias = nullptr);

/// @brief The plain i-k-j loop `gemm` is checked against (same operands, same accumulation order).
void gemm_reference(std::size_t M, std::size_t K, std::size_t N, MatrixView a, MatrixView b, float* c,
                    std::ptrdiff_t ldc, const float* bias = nullptr);

/// @brief c[i] = a[i] · b[i] for i < batch, each a[i] M×K, b[i] K×N, c[i] M×N, packed one after
///        another. If `bias` is not null it holds N values added to every row of every c[i].
void batched_matmul(const float* a, const float* b, float* c, std::size_t batch, std::size_t M,
                    std::size_t K, std::size_t N, const float* bias = nullptr);

}  // namespace mha
