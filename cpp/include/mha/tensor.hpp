#pragma once
/// @file tensor.hpp
/// @brief The only header that includes xtensor: it names the tensor types mha-lens uses,
///        so an xtensor upgrade touches this file alone.

#include <cstddef>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xtensor.hpp>

namespace mha {

/// Fixed-rank float32 tensors, row-major and contiguous.
template <std::size_t N>
using tensor = xt::xtensor<float, N>;
using tensor1 = tensor<1>;
using tensor2 = tensor<2>;
using tensor3 = tensor<3>;
using tensor4 = tensor<4>;

using shape_t = std::vector<std::size_t>;
using strides_t = std::vector<std::ptrdiff_t>;

/// @brief A view of `data` with the given fixed-rank shape, sharing the buffer (no copy).
template <std::size_t N>
auto view_as(float* data, const std::array<std::size_t, N>& shape) {
    std::size_t size = 1;
    for (auto extent : shape) size *= extent;
    return xt::adapt(data, size, xt::no_ownership(), shape);
}

/// @brief A view with axes permuted; like PyTorch's `permute`, it moves strides, not values.
template <class E>
auto permuted(E&& e, std::vector<std::size_t> perm) {
    return xt::transpose(std::forward<E>(e), std::move(perm));
}

}  // namespace mha
