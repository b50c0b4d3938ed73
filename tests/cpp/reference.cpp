#include "reference.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace ref {

Result attention(std::size_t B, std::size_t T, std::size_t Tk, std::size_t C, std::size_t H, std::size_t Hkv,
                 const std::vector<float>& x, const std::vector<float>& kv, const mha::Weights& w, bool causal,
                 const std::vector<std::int64_t>& key_lengths) {
    const std::size_t D = C / H, group = H / Hkv;
    const std::vector<float>& src = kv.empty() ? x : kv;
    const bool bias = !w.bq.empty();

    // Projections, one output feature at a time: y[b, t, n] = Σ_c in[b, t, c] · W[c, n] + bias[n].
    auto project = [&](const std::vector<float>& in, std::size_t L, const std::vector<float>& W,
                       const std::vector<float>& bvec, std::size_t N) {
        std::vector<float> out(B * L * N);
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t t = 0; t < L; ++t)
                for (std::size_t n = 0; n < N; ++n) {
                    double acc = bias ? bvec[n] : 0.0;
                    for (std::size_t c = 0; c < C; ++c) acc += double(in[(b * L + t) * C + c]) * W[c * N + n];
                    out[(b * L + t) * N + n] = float(acc);
                }
        return out;
    };

    Result r;
    r.q = project(x, T, w.Wq, w.bq, H * D);
    std::vector<float> k = project(src, Tk, w.Wk, w.bk, Hkv * D);
    std::vector<float> v = project(src, Tk, w.Wv, w.bv, Hkv * D);

    r.scores.assign(B * H * T * Tk, 0.0f);
    r.weights.assign(B * H * T * Tk, 0.0f);
    std::vector<float> context(B * T * C, 0.0f);  // already in [B, T, H·D] order
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h) {
            const std::size_t g = h / group;  // the K/V head this query head reads
            for (std::size_t i = 0; i < T; ++i) {
                std::vector<double> logits(Tk);
                std::vector<bool> masked(Tk);
                double row_max = -std::numeric_limits<double>::infinity();
                for (std::size_t j = 0; j < Tk; ++j) {
                    double dot = 0;
                    for (std::size_t d = 0; d < D; ++d)
                        dot += double(r.q[(b * T + i) * C + h * D + d]) * k[(b * Tk + j) * Hkv * D + g * D + d];
                    r.scores[((b * H + h) * T + i) * Tk + j] = float(dot);
                    masked[j] = (causal && j > i) || (!key_lengths.empty() && std::int64_t(j) >= key_lengths[b]);
                    logits[j] = dot / std::sqrt(double(D));
                    if (!masked[j] && logits[j] > row_max) row_max = logits[j];
                }
                if (std::isinf(row_max)) continue;  // every key masked: weights stay 0
                double sum = 0;
                for (std::size_t j = 0; j < Tk; ++j) sum += masked[j] ? 0.0 : std::exp(logits[j] - row_max);
                for (std::size_t j = 0; j < Tk; ++j) {
                    const double a = masked[j] ? 0.0 : std::exp(logits[j] - row_max) / sum;
                    r.weights[((b * H + h) * T + i) * Tk + j] = float(a);
                    for (std::size_t d = 0; d < D; ++d)
                        context[(b * T + i) * C + h * D + d] += float(a * v[(b * Tk + j) * Hkv * D + g * D + d]);
                }
            }
        }
    r.output = project(context, T, w.Wo, w.bo, C);
    return r;
}

Diff compare(const std::vector<float>& actual, const std::vector<float>& expected, double tolerance) {
    Diff diff;
    if (actual.size() != expected.size()) {
        diff.max_abs = std::numeric_limits<double>::infinity();
        diff.first_bad = 0;
        return diff;
    }
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double d = std::fabs(double(actual[i]) - double(expected[i]));
        if (!(d <= diff.max_abs)) diff.max_abs = d;  // also catches NaN
        if (!(d <= tolerance) && diff.first_bad < 0) diff.first_bad = long(i);
    }
    return diff;
}

std::vector<float> noise(std::size_t count, std::uint32_t seed, float scale) {
    // xorshift32: deliberately a different generator from the engine's mulberry32.
    std::uint32_t s = seed * 2654435761u + 1u;
    std::vector<float> values(count);
    for (auto& value : values) {
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        value = (float(s >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
    }
    return values;
}

std::uint32_t checksum(const std::vector<float>& values) {
    std::uint32_t hash = 2166136261u;
    for (float value : values) {
        unsigned char bytes[4];
        std::memcpy(bytes, &value, 4);
        for (unsigned char byte : bytes) hash = (hash ^ byte) * 16777619u;
    }
    return hash;
}

}  // namespace ref
