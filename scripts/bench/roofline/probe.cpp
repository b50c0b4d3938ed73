// The single-precision ceiling of one core for the GEMM's instruction mix: separate f32x4 multiplies
// and adds (no fused multiply-add; built with -ffp-contract=off, as the engine is), register only.
//
// One source, two builds (scripts/bench/roofline.js builds and runs both, roofline/build.js says
// the flags):
//   WebAssembly SIMD128, run by V8:  em++ -O3 -msimd128 -ffp-contract=off --no-entry -sSTANDALONE_WASM
//   native (SSE2 through GCC vector extensions):  g++ -O3 -ffp-contract=off
// The wasm build exports the loops and JS times them; the native build times them itself and
// prints one JSON line per measurement.
//
// Each loop keeps enough independent chains that the operations' latency is covered (throughput
// = ports per cycle, not 1 / latency). The multiplier is 1 and the addend 0, read at run time so
// that the compiler can fold nothing: the values stay finite and normal.

#include <cstdint>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
using vec4 = v128_t;
inline vec4 splat(float x) { return wasm_f32x4_splat(x); }
inline vec4 add4(vec4 a, vec4 b) { return wasm_f32x4_add(a, b); }
inline vec4 mul4(vec4 a, vec4 b) { return wasm_f32x4_mul(a, b); }
inline float lane0(vec4 v) { return wasm_f32x4_extract_lane(v, 0); }
#define PROBE_EXPORT(name) extern "C" __attribute__((export_name(name)))
#else
typedef float vec4 __attribute__((vector_size(16)));
inline vec4 splat(float x) { return vec4{x, x, x, x}; }
inline vec4 add4(vec4 a, vec4 b) { return a + b; }
inline vec4 mul4(vec4 a, vec4 b) { return a * b; }
inline float lane0(vec4 v) { return v[0]; }
#define PROBE_EXPORT(name) extern "C"
#endif

namespace {

// Per iteration: `muls` chains each take one f32x4 multiply, `adds` chains one f32x4 add.
template <int muls, int adds>
float mix(std::int32_t iterations, float one, float zero) {
    const vec4 factor = splat(one), addend = splat(zero);
    vec4 product[muls > 0 ? muls : 1], sum[adds > 0 ? adds : 1];
    for (int c = 0; c < muls; ++c) product[c] = splat(1.0f + 0.125f * c);
    for (int c = 0; c < adds; ++c) sum[c] = splat(2.0f + 0.125f * c);
    for (std::int32_t i = 0; i < iterations; ++i) {
        for (int c = 0; c < muls; ++c) product[c] = mul4(product[c], factor);
        for (int c = 0; c < adds; ++c) sum[c] = add4(sum[c], addend);
    }
    float out = 0.0f;  // every chain reaches the result, so none is dead code
    for (int c = 0; c < muls; ++c) out += lane0(product[c]);
    for (int c = 0; c < adds; ++c) out += lane0(sum[c]);
    return out;
}

// The ceiling: `chains` independent chains, each step a multiply and then an add on its result
// (acc = acc · 1 + 0), the GEMM's mix of one multiply per add. A step's latency is the multiply's
// plus the add's, so with enough chains every multiply and add port has work each cycle; register
// only, and few enough chains (plus the two constants) to fit the 15 SIMD registers V8 allocates
// on x86-64.
template <int chains>
float mul_then_add(std::int32_t iterations, float one, float zero) {
    const vec4 factor = splat(one), addend = splat(zero);
    vec4 acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = splat(1.0f + 0.125f * c);
    for (std::int32_t i = 0; i < iterations; ++i)
        for (int c = 0; c < chains; ++c) acc[c] = add4(mul4(acc[c], factor), addend);
    float out = 0.0f;
    for (int c = 0; c < chains; ++c) out += lane0(acc[c]);
    return out;
}

// Not register only: the GEMM's micro-kernel itself (rows × cols register tile, acc += a · b with
// the product rounded and then added), reading its operands from packed panels 256 deep that stay
// in L1, as the real kernel's do. What the kernel's loads, broadcasts and loop cost on top of the
// arithmetic: the gap between this and the register-only mix.
constexpr int depth = 256;
alignas(16) float a_panel[depth * 8];
alignas(16) float b_panel[depth * 16];

inline vec4 load4(const float* p) {
#if defined(__wasm_simd128__)
    return wasm_v128_load(p);
#else
    vec4 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
#endif
}
inline vec4 splat_load(const float* p) {
#if defined(__wasm_simd128__)
    return wasm_v128_load32_splat(p);
#else
    return splat(*p);
#endif
}

template <int rows, int cols>
float kernel_l1(std::int32_t iterations, float one, float zero) {
    for (int i = 0; i < depth * rows; ++i) a_panel[i] = one;
    for (int i = 0; i < depth * cols; ++i) b_panel[i] = zero;
    vec4 acc[rows][cols / 4];
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < cols / 4; ++v) acc[r][v] = splat(float(r + v));
    for (std::int32_t pass = 0; pass < iterations / depth; ++pass) {
        const float* a = a_panel;
        const float* b = b_panel;
        for (int k = 0; k < depth; ++k) {
            vec4 bk[cols / 4];
            for (int v = 0; v < cols / 4; ++v) bk[v] = load4(b + 4 * v);
            for (int r = 0; r < rows; ++r) {
                const vec4 ak = splat_load(a + r);
                for (int v = 0; v < cols / 4; ++v) acc[r][v] = add4(acc[r][v], mul4(ak, bk[v]));
            }
            a += rows;
            b += cols;
        }
    }
    float out = 0.0f;
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < cols / 4; ++v) out += lane0(acc[r][v]);
    return out;
}

}  // namespace

// name → (flops per iteration, function). Flops count 4 lanes per f32x4 operation.
#define PROBES(X)                                                  \
    X(mul_add_chains_6, 4 * 2 * 6, (mul_then_add<6>))              \
    X(mul_add_chains_8, 4 * 2 * 8, (mul_then_add<8>))              \
    X(mul_add_chains_10, 4 * 2 * 10, (mul_then_add<10>))           \
    X(mul_add_chains_12, 4 * 2 * 12, (mul_then_add<12>))           \
    X(mul_add_chains_13, 4 * 2 * 13, (mul_then_add<13>))           \
    X(mul_add_6x6, 4 * (6 + 6), (mix<6, 6>))                       \
    X(mul_only_8, 4 * 8, (mix<8, 0>))                              \
    X(add_only_8, 4 * 8, (mix<0, 8>))                              \
    X(add_latency_1, 4 * 1, (mix<0, 1>))                           \
    X(mul_latency_1, 4 * 1, (mix<1, 0>))                           \
    X(kernel_l1_4x8, 2 * 4 * 8, (kernel_l1<4, 8>))                 \
    X(kernel_l1_6x8, 2 * 6 * 8, (kernel_l1<6, 8>))                 \
    X(kernel_l1_8x8, 2 * 8 * 8, (kernel_l1<8, 8>))                 \
    X(kernel_l1_4x16, 2 * 4 * 16, (kernel_l1<4, 16>))

#define DEFINE_EXPORT(name, flops, fn)                                                           \
    PROBE_EXPORT(#name) float name(std::int32_t iterations, float one, float zero) {             \
        return fn(iterations, one, zero);                                                        \
    }                                                                                            \
    PROBE_EXPORT("flops_" #name) std::int32_t flops_##name() { return flops; }
PROBES(DEFINE_EXPORT)

#if !defined(__wasm__)
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

double now() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

// A chain of dependent integer adds takes one cycle each on every x86-64 core, so their rate is
// the clock the core actually runs at (with turbo), which /proc/cpuinfo does not say.
double clock_hz(long iterations) {
    long x = 0;
    const double start = now();
    for (long i = 0; i < iterations; ++i) {
        asm volatile(
            "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
            "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
            : "+r"(x));
    }
    const double seconds = now() - start;
    if (x != 10 * iterations) std::abort();
    return 10.0 * iterations / seconds;
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
    const std::int32_t iterations = 1 << 21;  // ~2 ms a probe, as roofline.js times the wasm build
    // Opaque to the optimiser: 1 and 0, but only known at run time.
    volatile float one_in = 1.0f, zero_in = 0.0f;
    const float one = one_in, zero = zero_in;
    for (int round = 0; round < rounds; ++round) {
        std::printf("{\"probe\":\"clock\",\"hz\":%.6g}\n", clock_hz(1'000'000));
#define RUN(name, flops, fn)                                                                      \
    {                                                                                             \
        const double start = now();                                                               \
        const float result = name(iterations, one, zero);                                         \
        const double seconds = now() - start;                                                     \
        std::printf("{\"probe\":\"%s\",\"seconds\":%.6g,\"flops\":%.6g,\"check\":%g}\n", #name, \
                    seconds, double(flops) * iterations, result);                                 \
    }
        PROBES(RUN)
#undef RUN
        std::fflush(stdout);
    }
}
#endif
