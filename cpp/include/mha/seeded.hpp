#pragma once
/// @file seeded.hpp
/// @brief Seeded inputs and weights that are bit-identical natively and in WebAssembly.
///
/// The generator is mulberry32 (a 32-bit counter hashed by two multiply-xorshift rounds): only
/// 32-bit integer arithmetic, so every platform and JavaScript reproduce it exactly, unlike
/// std::uniform_real_distribution whose output differs between standard libraries.
/// A uniform float in [-1, 1) is the top 24 bits scaled by 2^-23 minus 1, which is exact in float32.

#include <cstdint>
#include <vector>

namespace mha {

class Mulberry32 {
public:
    explicit Mulberry32(std::uint32_t state) : state_(state) {}

    std::uint32_t next() {
        state_ += 0x6D2B79F5u;
        std::uint32_t z = state_;
        z = (z ^ (z >> 15)) * (z | 1u);
        z ^= z + (z ^ (z >> 7)) * (z | 61u);
        return z ^ (z >> 14);
    }

    /// The state, to carry a stream on later (a trainer's checkpoint holds it).
    std::uint32_t state() const { return state_; }

    /// Uniform in [-1, 1), a multiple of 2^-23.
    float uniform() { return static_cast<float>(next() >> 8) * (1.0f / 8388608.0f) - 1.0f; }

private:
    std::uint32_t state_;
};

/// Which seeded tensor a stream fills; each has its own stream so that changing H does not
/// change X.
enum class Stream : std::uint32_t { x = 1, kv, Wq, Wk, Wv, Wo, bq, bk, bv, bo, bias_k, bias_v };

/// @brief `count` values uniform in [-bound, bound) from the stream (seed, which).
///        The start state is seed ^ (which · 0x9E3779B9).
std::vector<float> seeded_values(std::uint32_t seed, Stream which, std::size_t count, float bound);

}  // namespace mha
