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

/// @brief The largest of the n values of a row (−∞ when n is 0 or every value is −∞).
float row_max(const float* in, std::size_t n);

/// @brief out[j] = e^(in[j] − shift) for the n values of a row, and their sum: softmax_row's
///        numerator, and what the tiled pass's online softmax adds to its running sum ℓ. `shift`
///        is finite and at least every in[j]; an in[j] of −∞ gives 0. `in` and `out` may be the same.
float exp_shifted_row(const float* in, float* out, std::size_t n, float shift);

}  // namespace mha
