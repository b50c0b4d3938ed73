// This checkout's gemm beside another checkout's, in one binary (scripts/bench/gemm.js builds it):
// the other's cpp/src/matmul.cpp is compiled with -Dmha=mha_base, so both kernels run in one
// process on the same buffers, alternately, and their outputs can be compared bit for bit.
//
// The wasm build exports the entry points below and JS drives them; the native build's main does
// the same rounds itself and prints one JSON line per round.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "mha/matmul.hpp"

// The other checkout's gemm, renamed. Same signature and operand struct as this checkout's.
namespace mha_base {
struct MatrixView {
    const float* data;
    std::ptrdiff_t row_stride;
    std::ptrdiff_t col_stride = 1;
};
void gemm(std::size_t M, std::size_t K, std::size_t N, MatrixView a, MatrixView b, float* c, std::ptrdiff_t ldc,
          const float* bias);
}  // namespace mha_base

#if defined(__wasm__)
#define PROBE_EXPORT(name) extern "C" __attribute__((export_name(name)))
#else
#define PROBE_EXPORT(name) extern "C"
#endif

PROBE_EXPORT("floats") float* floats(std::int32_t count) {
    return static_cast<float*>(std::malloc(static_cast<std::size_t>(count) * sizeof(float)));
}

// c = a · b (+ bias). b_transposed: b is read as the transpose of a row-major N×K buffer, as Kᵀ
// is in Q·Kᵀ. which: 0 this checkout's gemm, 1 the other's, 2 this checkout's gemm_reference.
PROBE_EXPORT("run") void run(std::int32_t which, std::int32_t M, std::int32_t K, std::int32_t N, const float* a,
                             const float* b, std::int32_t b_transposed, float* c, const float* bias) {
    const std::ptrdiff_t b_rows = b_transposed ? 1 : N, b_cols = b_transposed ? K : 1;
    if (which == 1)
        mha_base::gemm(M, K, N, {a, K, 1}, {b, b_rows, b_cols}, c, N, bias);
    else if (which == 0)
        mha::gemm(M, K, N, {a, K, 1}, {b, b_rows, b_cols}, c, N, bias);
    else
        mha::gemm_reference(M, K, N, {a, K, 1}, {b, b_rows, b_cols}, c, N, bias);
}

#if !defined(__wasm__)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

double now(clockid_t clock = CLOCK_MONOTONIC) {
    timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

// scripts/bench/noise.js, the same numbers: mulberry32, uniform in [-bound, bound).
void noise(float* x, std::size_t n, std::uint32_t seed, float bound) {
    std::uint32_t state = seed;
    for (std::size_t i = 0; i < n; ++i) {
        state += 0x6d2b79f5u;
        std::uint32_t z = state;
        z = (z ^ (z >> 15)) * (z | 1u);
        z ^= z + (z ^ (z >> 7)) * (z | 61u);
        z ^= z >> 14;
        x[i] = static_cast<float>(((z >> 8) / 8388608.0 - 1.0) * bound);
    }
}

// FNV-1a over the bits of c, the same as gemm.js computes for the wasm build's output.
std::uint32_t bits_hash(const float* c, std::size_t n) {
    std::uint32_t hash = 2166136261u;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, c + i, sizeof bits);
        hash = (hash ^ bits) * 16777619u;
    }
    return hash;
}

}  // namespace

// gemm_probe M K N [rounds] [b_transposed]
int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s M K N [rounds] [b_transposed 0|1]\n", argv[0]);
        return 2;
    }
    const int M = std::atoi(argv[1]), K = std::atoi(argv[2]), N = std::atoi(argv[3]);
    const int rounds = argc > 4 ? std::atoi(argv[4]) : 15;
    const int b_transposed = argc > 5 ? std::atoi(argv[5]) : 0;
    float *a = floats(M * K), *b = floats(K * N), *bias = floats(N);
    float* c[2] = {floats(M * N), floats(M * N)};
    noise(a, M * K, 1, 1.0f);
    noise(b, K * N, 2, 1.0f);
    noise(bias, N, 3, 1.0f);
    for (int which = 0; which < 2; ++which) run(which, M, K, N, a, b, b_transposed, c[which], bias);
    const bool identical = std::memcmp(c[0], c[1], sizeof(float) * M * N) == 0;
    std::printf("{\"M\":%d,\"K\":%d,\"N\":%d,\"b_transposed\":%d,\"identical\":%s,\"hash\":%u}\n", M, K, N,
                b_transposed, identical ? "true" : "false", static_cast<unsigned>(bits_hash(c[0], std::size_t(M) * N)));
    for (int round = 0; round < rounds; ++round) {
        double wall[2], cpu[2];
        for (int i = 0; i < 2; ++i) {
            const int which = (round + i) % 2;  // alternate which one goes first
            const double start = now(), cpu_start = now(CLOCK_PROCESS_CPUTIME_ID);
            run(which, M, K, N, a, b, b_transposed, c[which], bias);
            wall[which] = now() - start;
            cpu[which] = now(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
        }
        std::printf("{\"this\":{\"wall\":%.6g,\"cpu\":%.6g},\"base\":{\"wall\":%.6g,\"cpu\":%.6g}}\n", wall[0], cpu[0],
                    wall[1], cpu[1]);
        std::fflush(stdout);
    }
    return identical ? 0 : 1;
}
#endif
