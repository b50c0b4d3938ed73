#pragma once
/// @file torch_params.hpp
/// @brief PyTorch parameters → the walkthrough's layout: `nn.MultiheadAttention`'s packed
///        in_proj, and the separate q/k/v/out projections of Hugging Face-style modules.

#include <array>
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

/// @brief Checks nn.MultiheadAttention's bias_k and bias_v (add_bias_kv=True), [1, 1, C] each:
///        both or neither (0: absent), C values each.
/// @throws MhaError naming the parameter at fault.
void check_torch_bias_kv(std::uint64_t C, std::uint64_t bias_k, std::uint64_t bias_v);

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

/// The separate projections of a Hugging Face-style attention module (BERT, GPT-style `q_proj`,
/// `k_proj`, `v_proj`, `out_proj`): each nn.Linear weight is [out_features, C] and computes
/// y = x·Wᵀ + b. K and V may have fewer heads than Q (GQA/MQA). An empty vector is "not given".
struct LinearParams {
    std::vector<float> q_weight, q_bias;      ///< [H·D, C], [H·D]
    std::vector<float> k_weight, k_bias;      ///< [Hkv·D, C], [Hkv·D]
    std::vector<float> v_weight, v_bias;      ///< [Hkv·D, C], [Hkv·D]
    std::vector<float> out_weight, out_bias;  ///< [C, C], [C]
};

/// The number of values of each of LinearParams' tensors, in its order (0: not given).
using LinearLengths = std::array<std::uint64_t, 8>;

/// @brief Checks the lengths of the eight tensors for embed_dim C before any values are read.
/// @throws MhaError naming the parameter at fault.
void check_linear_lengths(std::uint64_t C, const LinearLengths& lengths);

/// @brief The walkthrough's weights (Q = X·Wq + bq) from separate projections: each weight
///        transposed from [out, C] to [C, out].
Weights weights_from_linear(std::size_t C, const LinearParams& params);

}  // namespace mha
