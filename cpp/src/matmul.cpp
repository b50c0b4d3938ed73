#include "mha/matmul.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace mha {
namespace {

// --- Four-float vectors: WebAssembly SIMD128, or GCC/Clang vector extensions natively (SSE on x86) ---
#if defined(__wasm_simd128__)
using vec4 = v128_t;
inline vec4 load4(const float* p) { return wasm_v128_load(p); }
inline void store4(float* p, vec4 v) { wasm_v128_store(p, v); }
inline vec4 splat4(const float* p) { return wasm_v128_load32_splat(p); }
inline vec4 zero4() { return wasm_f32x4_const_splat(0.0f); }
inline vec4 add4(vec4 a, vec4 b) { return wasm_f32x4_add(a, b); }
inline vec4 mul4(vec4 a, vec4 b) { return wasm_f32x4_mul(a, b); }
template <int i0, int i1, int i2, int i3>
inline vec4 shuffle4(vec4 a, vec4 b) { return wasm_i32x4_shuffle(a, b, i0, i1, i2, i3); }
#else
typedef float vec4 __attribute__((vector_size(16)));
inline vec4 load4(const float* p) { vec4 v; std::memcpy(&v, p, sizeof v); return v; }
inline void store4(float* p, vec4 v) { std::memcpy(p, &v, sizeof v); }
inline vec4 splat4(const float* p) { return vec4{*p, *p, *p, *p}; }
inline vec4 zero4() { return vec4{0.0f, 0.0f, 0.0f, 0.0f}; }
inline vec4 add4(vec4 a, vec4 b) { return a + b; }
inline vec4 mul4(vec4 a, vec4 b) { return a * b; }
template <int i0, int i1, int i2, int i3>
inline vec4 shuffle4(vec4 a, vec4 b) { return __builtin_shufflevector(a, b, i0, i1, i2, i3); }
#endif

// Rows a, b, c, d become columns: a = (a0 b0 c0 d0), b = (a1 b1 c1 d1), ...
inline void transpose4(vec4& a, vec4& b, vec4& c, vec4& d) {
    const vec4 ab_low = shuffle4<0, 4, 1, 5>(a, b), ab_high = shuffle4<2, 6, 3, 7>(a, b);
    const vec4 cd_low = shuffle4<0, 4, 1, 5>(c, d), cd_high = shuffle4<2, 6, 3, 7>(c, d);
    a = shuffle4<0, 1, 4, 5>(ab_low, cd_low);
    b = shuffle4<2, 3, 6, 7>(ab_low, cd_low);
    c = shuffle4<0, 1, 4, 5>(ab_high, cd_high);
    d = shuffle4<2, 3, 6, 7>(ab_high, cd_high);
}

// Register tile: MR rows × NR columns of c live in MR·NR/4 vector accumulators while the kernel
// walks k. 4×8 is 8 accumulators + 2 b vectors + 1 broadcast a + 1 product, inside the 15 SIMD
// registers V8 allocates on x86-64. Per k it issues 8 multiplies and 8 adds for 6 loads, and on
// panels that sit in L1 V8 runs it at ~94% of the core's multiply+add ceiling
// (scripts/bench/roofline.js: kernel_l1_4x8 against mul_add_chains); 6×8, 8×8 and 4×16 spill
// there (50–75%). 2×16 ties it under V8 and ran the whole product ~20% slower natively.
constexpr std::size_t MR = 4;
constexpr std::size_t NR = 8;
// Cache blocks: a KC×NR panel of packed b (8 KiB) stays in L1 while MC rows of a stream past it;
// the MC×KC block of packed a (64 KiB) and a KC×NC panel of packed b (up to 1 MiB) stay in L2.
// Packing both costs ~2–3% of a 512×768 @ 768×768 product. Any blocking gives the same bits: c
// holds each partial sum between k blocks exactly, and the blocks run in k order.
constexpr std::size_t KC = 256;
constexpr std::size_t MC = 64;
constexpr std::size_t NC = 1024;
static_assert(MC % MR == 0 && NC % NR == 0, "the packing buffers are sized for whole tiles");

// Packs rows [0, m) × depth [0, kc) of `a` into MR-row panels, k-major: panel p holds
// a[p·MR + r][k] at p·MR·kc + k·MR + r. Rows past m are zeros, so edge tiles need no special case.
void pack_a(std::size_t m, std::size_t kc, const float* a, std::ptrdiff_t rs, std::ptrdiff_t cs, float* packed) {
    for (std::size_t p = 0; p < m; p += MR) {
        const std::size_t rows = std::min(MR, m - p);
        std::size_t k = 0;
        if (cs == 1 && rows == MR) {  // rows of a are contiguous: four k at a time, transposed in registers
            const float* row = a + p * rs;
            for (; k + 4 <= kc; k += 4) {
                vec4 r0 = load4(row + k), r1 = load4(row + rs + k), r2 = load4(row + 2 * rs + k), r3 = load4(row + 3 * rs + k);
                transpose4(r0, r1, r2, r3);
                store4(packed + k * MR, r0);
                store4(packed + (k + 1) * MR, r1);
                store4(packed + (k + 2) * MR, r2);
                store4(packed + (k + 3) * MR, r3);
            }
        }
        for (; k < kc; ++k) {
            for (std::size_t r = 0; r < rows; ++r) packed[k * MR + r] = a[(p + r) * rs + k * cs];
            for (std::size_t r = rows; r < MR; ++r) packed[k * MR + r] = 0.0f;
        }
        packed += MR * kc;
    }
}

// Packs depth [0, kc) × columns [0, n) of `b` into NR-column panels: panel p holds b[k][p·NR + j]
// at p·NR·kc + k·NR + j, zeros past n.
void pack_b(std::size_t kc, std::size_t n, const float* b, std::ptrdiff_t rs, std::ptrdiff_t cs, float* packed) {
    for (std::size_t p = 0; p < n; p += NR) {
        const std::size_t cols = std::min(NR, n - p);
        if (cs == 1 && cols == NR) {
            for (std::size_t k = 0; k < kc; ++k) std::memcpy(packed + k * NR, b + k * rs + p, NR * sizeof(float));
        } else if (rs == 1 && cols == NR) {  // b read transposed (Kᵀ): each column contiguous in k
            std::size_t k = 0;
            const float* column = b + p * cs;
            for (; k + 4 <= kc; k += 4) {
                for (std::size_t half = 0; half < NR; half += 4) {
                    const float* c0 = column + half * cs + k;
                    vec4 v0 = load4(c0), v1 = load4(c0 + cs), v2 = load4(c0 + 2 * cs), v3 = load4(c0 + 3 * cs);
                    transpose4(v0, v1, v2, v3);
                    store4(packed + k * NR + half, v0);
                    store4(packed + (k + 1) * NR + half, v1);
                    store4(packed + (k + 2) * NR + half, v2);
                    store4(packed + (k + 3) * NR + half, v3);
                }
            }
            for (; k < kc; ++k)
                for (std::size_t j = 0; j < NR; ++j) packed[k * NR + j] = b[k + (p + j) * cs];
        } else {
            for (std::size_t k = 0; k < kc; ++k) {
                for (std::size_t j = 0; j < cols; ++j) packed[k * NR + j] = b[k * rs + (p + j) * cs];
                for (std::size_t j = cols; j < NR; ++j) packed[k * NR + j] = 0.0f;
            }
        }
        packed += NR * kc;
    }
}

// c[0..MR)[0..NR) (rows ldc apart) = start + Σ_k a_panel[k] ⊗ b_panel[k], in k order, where start is
// c itself (accumulate), else the bias row (may be null: zeros). The loops over the tile have
// constant bounds, so the compiler unrolls them and keeps every accumulator in a register.
void micro_kernel(std::size_t kc, const float* a, const float* b, float* c, std::ptrdiff_t ldc, bool accumulate,
                  const float* bias) {
    vec4 acc[MR][NR / 4];
    for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NR / 4; ++v)
            acc[r][v] = accumulate ? load4(c + r * ldc + 4 * v) : bias ? load4(bias + 4 * v) : zero4();
    for (std::size_t k = 0; k < kc; ++k) {
        vec4 bk[NR / 4];
        for (std::size_t v = 0; v < NR / 4; ++v) bk[v] = load4(b + 4 * v);
        for (std::size_t r = 0; r < MR; ++r) {
            const vec4 ak = splat4(a + r);
            for (std::size_t v = 0; v < NR / 4; ++v) acc[r][v] = add4(acc[r][v], mul4(ak, bk[v]));
        }
        a += MR;
        b += NR;
    }
    for (std::size_t r = 0; r < MR; ++r)
        for (std::size_t v = 0; v < NR / 4; ++v) store4(c + r * ldc + 4 * v, acc[r][v]);
}

// One tile that may stick out of c: the kernel works on a full MR×NR scratch tile, and only the
// m×n corner that exists is read from and written back to c.
void edge_tile(std::size_t m, std::size_t n, std::size_t kc, const float* a, const float* b, float* c,
               std::ptrdiff_t ldc, bool accumulate, const float* bias) {
    float tile[MR * NR] = {};
    float bias_row[NR] = {};
    if (accumulate)
        for (std::size_t i = 0; i < m; ++i) std::copy_n(c + i * ldc, n, tile + i * NR);
    if (bias) std::copy_n(bias, n, bias_row);
    micro_kernel(kc, a, b, tile, NR, accumulate, bias ? bias_row : nullptr);
    for (std::size_t i = 0; i < m; ++i) std::copy_n(tile + i * NR, n, c + i * ldc);
}

// Scratch for the packed operands, kept between calls (the engine is single-threaded).
std::vector<float>& packed_a_buffer() {
    static std::vector<float> buffer(MC * KC);
    return buffer;
}
std::vector<float>& packed_b_buffer(std::size_t size) {
    static std::vector<float> buffer;
    if (buffer.size() < size) buffer.resize(size);
    return buffer;
}

}  // namespace

void gemm(std::size_t M, std::size_t K, std::size_t N, MatrixView a, MatrixView b, float* c, std::ptrdiff_t ldc,
          const float* bias) {
    if (M == 0 || N == 0) return;
    if (K == 0) {  // an empty sum: the bias, or zeros
        for (std::size_t i = 0; i < M; ++i)
            for (std::size_t j = 0; j < N; ++j) c[i * ldc + j] = bias ? bias[j] : 0.0f;
        return;
    }
    float* packed_a = packed_a_buffer().data();
    const std::size_t nc_max = std::min(NC, (N + NR - 1) / NR * NR);
    float* packed_b = packed_b_buffer(nc_max * KC).data();

    for (std::size_t jc = 0; jc < N; jc += NC) {
        const std::size_t nc = std::min(NC, N - jc);
        // k blocks in increasing order: every c[i][j] sums its products for k = 0, 1, … in turn.
        for (std::size_t pc = 0; pc < K; pc += KC) {
            const std::size_t kc = std::min(KC, K - pc);
            const bool accumulate = pc > 0;
            pack_b(kc, nc, b.data + pc * b.row_stride + jc * b.col_stride, b.row_stride, b.col_stride, packed_b);
            for (std::size_t ic = 0; ic < M; ic += MC) {
                const std::size_t mc = std::min(MC, M - ic);
                pack_a(mc, kc, a.data + ic * a.row_stride + pc * a.col_stride, a.row_stride, a.col_stride, packed_a);
                for (std::size_t jr = 0; jr < nc; jr += NR) {
                    const std::size_t n = std::min(NR, nc - jr);
                    const float* b_panel = packed_b + jr * kc;
                    const float* bias_row = bias ? bias + jc + jr : nullptr;
                    for (std::size_t ir = 0; ir < mc; ir += MR) {
                        const std::size_t m = std::min(MR, mc - ir);
                        float* c_tile = c + (ic + ir) * ldc + jc + jr;
                        const float* a_panel = packed_a + ir * kc;
                        if (m == MR && n == NR) micro_kernel(kc, a_panel, b_panel, c_tile, ldc, accumulate, bias_row);
                        else edge_tile(m, n, kc, a_panel, b_panel, c_tile, ldc, accumulate, bias_row);
                    }
                }
            }
        }
    }
}

void gemm_reference(std::size_t M, std::size_t K, std::size_t N, MatrixView a, MatrixView b, float* c,
                    std::ptrdiff_t ldc, const float* bias) {
    for (std::size_t i = 0; i < M; ++i) {
        float* c_row = c + i * ldc;
        for (std::size_t j = 0; j < N; ++j) c_row[j] = bias ? bias[j] : 0.0f;
        // i-k-j order: the inner loop walks a row of b and of c.
        for (std::size_t k = 0; k < K; ++k) {
            const float a_ik = a.data[i * a.row_stride + k * a.col_stride];
            for (std::size_t j = 0; j < N; ++j) c_row[j] += a_ik * b.data[k * b.row_stride + j * b.col_stride];
        }
    }
}

void batched_matmul(const float* a, const float* b, float* c, std::size_t batch, std::size_t M, std::size_t K,
                    std::size_t N, const float* bias) {
    const auto lda = static_cast<std::ptrdiff_t>(K), ldb = static_cast<std::ptrdiff_t>(N);
    for (std::size_t n = 0; n < batch; ++n)
        gemm(M, K, N, {a + n * M * K, lda}, {b + n * K * N, ldb}, c + n * M * N, ldb, bias);
}

}  // namespace mha
