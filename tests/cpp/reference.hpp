#pragma once
// An independent plain-loop multi-head attention, written from the formulas with std::vector and
// nested loops only (no xtensor, no engine code), for the engine's results to be checked against.

#include <cstdint>
#include <string>
#include <vector>

#include "mha/config.hpp"
#include "mha/trace.hpp"

namespace ref {

struct Result {
    std::vector<float> q;        // [B, T, H·D]
    std::vector<float> scores;   // [B, H, T, Tk], before scaling
    std::vector<float> weights;  // [B, H, T, Tk]
    std::vector<float> output;   // [B, T, C]
};

// `kv` empty means self-attention (K and V from x). Fully masked rows get weights 0.
Result attention(std::size_t B, std::size_t T, std::size_t Tk, std::size_t C, std::size_t H, std::size_t Hkv,
                 const std::vector<float>& x, const std::vector<float>& kv, const mha::Weights& w, bool causal,
                 const std::vector<std::int64_t>& key_lengths);

// Max |a - b| and the first index where it exceeds `tolerance` (or -1).
struct Diff {
    double max_abs = 0;
    long first_bad = -1;
};
Diff compare(const std::vector<float>& actual, const std::vector<float>& expected, double tolerance);

// Deterministic pseudo-random floats for test inputs (not the engine's generator).
std::vector<float> noise(std::size_t count, std::uint32_t seed, float scale = 1.0f);

// FNV-1a over the bit patterns of the values.
std::uint32_t checksum(const std::vector<float>& values);

}  // namespace ref
