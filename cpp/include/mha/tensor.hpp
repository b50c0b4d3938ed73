#pragma once
/// @file tensor.hpp
/// @brief The only header that includes xtensor: it names the tensor types mha-lens uses,
///        so an xtensor upgrade touches this file alone.

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

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

/// @brief Writes the values of `e` in row-major order of its shape to `out`. A container or a
///        strided view of one buffer is walked through its strides, a row at a time (xtensor's
///        generic iterator, which steps index by index, is many times slower on large steps).
template <class E>
void copy_row_major(const E& e, float* out) {
    if constexpr (xt::has_data_interface<std::decay_t<E>>::value) {
        const std::size_t rank = e.dimension();
        if (rank == 0 || e.size() == 0) {
            if (e.size()) *out = *(e.data() + e.data_offset());
            return;
        }
        const auto& shape = e.shape();
        const auto& strides = e.strides();
        const std::size_t inner = shape[rank - 1];
        const std::ptrdiff_t inner_stride = strides[rank - 1];
        std::vector<std::size_t> index(rank - 1, 0);
        const float* base = e.data() + e.data_offset();
        for (std::size_t row = 0, rows = e.size() / inner; row < rows; ++row) {
            const float* from = base;
            for (std::size_t axis = 0; axis + 1 < rank; ++axis) from += static_cast<std::ptrdiff_t>(index[axis]) * strides[axis];
            if (inner_stride == 1 || inner == 1) std::memcpy(out, from, inner * sizeof(float));
            else for (std::size_t i = 0; i < inner; ++i) out[i] = from[static_cast<std::ptrdiff_t>(i) * inner_stride];
            out += inner;
            for (std::size_t axis = rank - 1; axis-- > 0;) {  // odometer over the outer axes
                if (++index[axis] < shape[axis]) break;
                index[axis] = 0;
            }
        }
    } else {
        std::copy(e.begin(), e.end(), out);
    }
}

}  // namespace mha
