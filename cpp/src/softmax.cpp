#include "mha/softmax.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace mha {
namespace {

// GCC/Clang vector extensions: SSE natively, SIMD128 under Emscripten with -msimd128, and the
// same arithmetic (lane by lane IEEE float, no fused multiply-add) on both.
typedef float f32x4 __attribute__((vector_size(16)));
typedef std::int32_t i32x4 __attribute__((vector_size(16)));

inline f32x4 splat(float v) { return f32x4{v, v, v, v}; }
inline f32x4 load(const float* p) { f32x4 v; std::memcpy(&v, p, sizeof v); return v; }
inline void store(float* p, f32x4 v) { std::memcpy(p, &v, sizeof v); }
inline f32x4 select(i32x4 mask, f32x4 yes, f32x4 no) {
    return reinterpret_cast<f32x4>((mask & reinterpret_cast<i32x4>(yes)) | (~mask & reinterpret_cast<i32x4>(no)));
}

// Cephes' expf: e^x = 2^n · e^r with n = round(x·log2 e) and |r| ≤ ln2/2, e^r by a degree-7
// polynomial, ln 2 split in two so that r is exact. For x ≤ 0 only.
inline f32x4 exp4(f32x4 x) {
    const f32x4 lowest = splat(-87.3365f);  // e^x is below the smallest normal float from here on
    const i32x4 underflow = x < lowest;
    x = select(underflow, lowest, x);
    // Round to nearest by adding and subtracting 1.5·2^23; the sum's low mantissa bits hold n.
    const f32x4 magic = splat(12582912.0f);
    const f32x4 shifted = x * splat(1.44269504088896341f) + magic;
    const f32x4 n = shifted - magic;
    const f32x4 r = (x - n * splat(0.693359375f)) - n * splat(-2.12194440e-4f);
    f32x4 p = splat(1.9875691500e-4f);
    p = p * r + splat(1.3981999507e-3f);
    p = p * r + splat(8.3334519073e-3f);
    p = p * r + splat(4.1665795894e-2f);
    p = p * r + splat(1.6666665459e-1f);
    p = p * r + splat(5.0000001201e-1f);
    p = p * (r * r) + r + splat(1.0f);
    const i32x4 n_int = reinterpret_cast<i32x4>(shifted) - reinterpret_cast<i32x4>(magic);
    const f32x4 two_to_n = reinterpret_cast<f32x4>((n_int + 127) << 23);
    return select(underflow, splat(0.0f), p * two_to_n);
}

}  // namespace

float exp_nonpositive(float x) {
    const f32x4 e = exp4(splat(x));
    return e[0];
}

float row_max(const float* in, std::size_t n) {
    constexpr float minus_inf = -std::numeric_limits<float>::infinity();
    const std::size_t n4 = n / 4 * 4;
    // Exact in any order.
    f32x4 max4 = splat(minus_inf);
    for (std::size_t j = 0; j < n4; j += 4) {
        const f32x4 v = load(in + j);
        max4 = select(v > max4, v, max4);
    }
    float result = std::max(std::max(max4[0], max4[1]), std::max(max4[2], max4[3]));
    for (std::size_t j = n4; j < n; ++j) result = std::max(result, in[j]);
    return result;
}

float exp_shifted_row(const float* in, float* out, std::size_t n, float shift) {
    const std::size_t n4 = n / 4 * 4;
    // e^(x − shift) and four running sums, one a lane; the tail goes through the same exp4.
    const f32x4 shift_v = splat(shift);
    f32x4 sum4 = splat(0.0f);
    for (std::size_t j = 0; j < n4; j += 4) {
        const f32x4 e = exp4(load(in + j) - shift_v);
        store(out + j, e);
        sum4 += e;
    }
    float sum = (sum4[0] + sum4[1]) + (sum4[2] + sum4[3]);
    for (std::size_t j = n4; j < n; ++j) sum += (out[j] = exp_nonpositive(in[j] - shift));
    return sum;
}

bool softmax_row(const float* in, float* out, std::size_t n) {
    const float max = row_max(in, n);  // subtracting it keeps e^x finite
    if (max == -std::numeric_limits<float>::infinity()) {
        std::fill(out, out + n, 0.0f);
        return false;
    }
    const float sum = exp_shifted_row(in, out, n, max);
    const std::size_t n4 = n / 4 * 4;
    const f32x4 sum_v = splat(sum);
    for (std::size_t j = 0; j < n4; j += 4) store(out + j, load(out + j) / sum_v);
    for (std::size_t j = n4; j < n; ++j) out[j] /= sum;
    return true;
}

}  // namespace mha
