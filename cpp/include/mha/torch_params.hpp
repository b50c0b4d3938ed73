#pragma once
/// @file torch_params.hpp
/// @brief PyTorch `nn.MultiheadAttention` parameters → the walkthrough's layout.

#include <cstddef>
#include <vector>

#include "config.hpp"

namespace mha {

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
