#pragma once
/// @file torch_params.hpp
/// @brief PyTorch `nn.MultiheadAttention` parameters → the walkthrough's layout.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config.hpp"

namespace mha {

/// @brief Checks embed_dim C and the four tensors' lengths (0 for an absent bias) before any values
///        are read: what weights_from_torch checks first, for a caller that copies tensors in.
/// @throws MhaError naming the parameter at fault.
void check_torch_lengths(std::uint64_t C, std::uint64_t in_proj_weight, std::uint64_t in_proj_bias,
                         std::uint64_t out_proj_weight, std::uint64_t out_proj_bias);

/// @brief PyTorch computes y = x·Wᵀ + b with in_proj_weight = [Wq; Wk; Wv] stacked as [3C, C];
///        the walkthrough writes Q = X·Wq + bq, so each block is transposed.
/// @param C             embed_dim
/// @param in_proj_weight  [3C, C]
/// @param in_proj_bias    [3C], or empty when the module has bias=False
/// @param out_proj_weight [C, C]
/// @param out_proj_bias   [C], or empty when the module has bias=False
/// @throws MhaError(bad_tensor_length) naming the parameter whose length is wrong.
Weights weights_from_torch(std::size_t C, const std::vector<float>& in_proj_weight,
                           const std::vector<float>& in_proj_bias,
                           const std::vector<float>& out_proj_weight,
                           const std::vector<float>& out_proj_bias);

}  // namespace mha
