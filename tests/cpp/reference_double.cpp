#include "reference_double.hpp"

#include <cmath>
#include <limits>

namespace ref {

double attention_loss(const Block& m, const std::vector<double>& dY) {
    const std::size_t B = m.B, T = m.T, Tk = m.Tk, C = m.C, H = m.H, Hkv = m.Hkv, D = C / H, group = H / Hkv;
    const std::vector<double>& src = m.cross ? m.kv : m.x;
    auto project = [&](const std::vector<double>& in, std::size_t L, const std::vector<double>& W, const std::vector<double>& b,
                       std::size_t N) {
        std::vector<double> out(B * L * N);
        for (std::size_t r = 0; r < B * L; ++r)
            for (std::size_t n = 0; n < N; ++n) {
                double acc = b.empty() ? 0.0 : b[n];
                for (std::size_t c = 0; c < C; ++c) acc += in[r * C + c] * W[c * N + n];
                out[r * N + n] = acc;
            }
        return out;
    };
    const std::vector<double> q = project(m.x, T, m.Wq, m.bq, H * D);
    const std::vector<double> k = project(src, Tk, m.Wk, m.bk, Hkv * D);
    const std::vector<double> v = project(src, Tk, m.Wv, m.bv, Hkv * D);
    std::vector<double> context(B * T * C, 0.0);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t i = 0; i < T; ++i) {
                const std::size_t g = h / group;
                std::vector<double> s(Tk);
                std::vector<bool> masked(Tk);
                double row_max = -std::numeric_limits<double>::infinity();
                for (std::size_t j = 0; j < Tk; ++j) {
                    double dot = 0;
                    for (std::size_t e = 0; e < D; ++e) dot += q[(b * T + i) * H * D + h * D + e] * k[(b * Tk + j) * Hkv * D + g * D + e];
                    s[j] = dot / std::sqrt(double(D));
                    masked[j] = (m.causal && j > i) || (!m.key_lengths.empty() && std::int64_t(j) >= m.key_lengths[b]);
                    if (!masked[j]) row_max = std::max(row_max, s[j]);
                }
                if (std::isinf(row_max)) continue;
                double sum = 0;
                for (std::size_t j = 0; j < Tk; ++j) sum += masked[j] ? 0.0 : std::exp(s[j] - row_max);
                for (std::size_t j = 0; j < Tk; ++j) {
                    const double a = masked[j] ? 0.0 : std::exp(s[j] - row_max) / sum;
                    for (std::size_t e = 0; e < D; ++e) context[(b * T + i) * C + h * D + e] += a * v[(b * Tk + j) * Hkv * D + g * D + e];
                }
            }
    const std::vector<double> output = project(context, T, m.Wo, m.bo, C);
    double L = 0;
    for (std::size_t i = 0; i < output.size(); ++i) L += output[i] * dY[i];
    return L;
}

}  // namespace ref
