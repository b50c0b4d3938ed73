#pragma once
/// @file softmax.hpp
/// @brief Softmax over one row of scores, four lanes at a time.

#include <cstddef>

namespace mha {

/// @brief e^x for x ≤ 0 (what softmax feeds it, after subtracting the row maximum), accurate to
///        about 2 ulp; 0 below −87.3 and for −∞. Pure float arithmetic without fused multiply-add,
///        so it gives the same bits natively and in WebAssembly (unlike each platform's libm).
float exp_nonpositive(float x);

/// @brief out[j] = e^(in[j] − max) / Σ e^(in[k] − max) over the n values of a row; `in` and `out`
///        may be the same. Subtracting the maximum keeps e^x finite. A row whose values are all −∞
///        (every key masked) gets zeros instead of the NaN of 0/0, and the function returns false.
bool softmax_row(const float* in, float* out, std::size_t n);

}  // namespace mha
