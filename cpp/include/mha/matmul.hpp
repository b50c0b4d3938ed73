#pragma once
/// @file matmul.hpp
/// @brief Batched matrix products over contiguous row-major buffers.
///
/// xtensor-blas would need a BLAS, which the browser does not have; these loops are the engine's
/// own. tests/cpp/test_matmul.cpp checks them against a plain triple loop.

#include <cstddef>

namespace mha {

/// @brief c[i] = a[i] · b[i] for i < batch, each a[i] M×K, b[i] K×N, c[i] M×N, packed one after
///        another. If `bias` is not null it holds N values added to every row of every c[i].
void batched_matmul(const float* a, const float* b, float* c, std::size_t batch, std::size_t M,
                    std::size_t K, std::size_t N, const float* bias = nullptr);

}  // namespace mha
