#include "mha/seeded.hpp"

namespace mha {

std::vector<float> seeded_values(std::uint32_t seed, Stream which, std::size_t count, float bound) {
    Mulberry32 rng(seed ^ (static_cast<std::uint32_t>(which) * 0x9E3779B9u));
    std::vector<float> values(count);
    for (auto& value : values) value = rng.uniform() * bound;
    return values;
}

}  // namespace mha
