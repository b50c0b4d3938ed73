#include "mha/attention_incremental.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mha/matmul.hpp"
#include "mha/softmax.hpp"
#include "mha/tensor.hpp"

namespace mha {
namespace {

constexpr float minus_inf = -std::numeric_limits<float>::infinity();

// The decoding steps, in catalogue order.
enum DecodeStep { q_step, k_step, v_step, k_cache_step, v_cache_step, scores_step, weights_step, context_step, output_step, decode_steps };
constexpr const char* decode_ids[decode_steps] = {"decode_q", "decode_k", "decode_v", "cache_k", "cache_v",
                                                  "decode_scores", "decode_weights", "decode_context", "decode_output"};

// What one decoding step made, for its snapshots: the token's q, k, v rows, the caches so far, each
// (batch row, head)'s scores and weights over the cache, the context and the output row.
struct StepState {
    std::size_t t;
    const std::vector<float>& q;        // [B, H·D]
    const std::vector<float>& k;        // [B, Hkv·D]
    const std::vector<float>& v;        // [B, Hkv·D]
    const float* k_cache;               // [B, Hkv, T, D], rows 0 … t filled
    const float* v_cache;
    const std::vector<float>& scores;   // [B, H, t+1]
    const std::vector<float>& weights;  // [B, H, t+1]
    const std::vector<float>& context;  // [B, H·D]
    const float* output;                // row t of the output, rows T·C apart
};

// The decoding steps' snapshots. A whole run's: each step's values written where the docs' layout
// puts them (axis t: row t made at step t, scores −∞ and weights 0 past the cache; axis t+1: the
// cache after the last step, which is the cache itself). A request for step t: that step's tensor
// as it was then.
class DecodeSteps {
public:
    DecodeSteps(const Dims& d, Recorder& rec) : d_(d), rec_(rec), at_(rec.t_request()) {
        if (at_) return;
        const std::size_t B = d.B, H = d.H, Hkv = d.Hkv, T = d.T, D = d.D;
        const shape_t shapes[decode_steps] = {{B, H, T, D}, {B, Hkv, T, D}, {B, Hkv, T, D}, {B, Hkv, T, D}, {B, Hkv, T, D},
                                              {B, H, T, T}, {B, H, T, T},   {B, H, T, D},   {B, T, d.C}};
        for (std::size_t s = 0; s < decode_steps; ++s) values_[s] = rec.record_in_place(decode_ids[s], shapes[s], s == scores_step ? minus_inf : 0.0f);
    }

    /// The steps to decode: up to the one asked for.
    std::size_t steps() const { return at_ ? static_cast<std::size_t>(*at_->t) + 1 : d_.T; }
    /// Whether step t needs the scores and weights of every (batch row, head).
    bool keeps_rows(std::size_t t) const {
        if (at_) return t == steps() - 1 && (at_->id == decode_ids[scores_step] || at_->id == decode_ids[weights_step]);
        return values_[scores_step] || values_[weights_step];
    }
    /// A whole run's K or V cache, when its snapshot keeps it: the pass decodes into it.
    float* cache(DecodeStep step) const { return values_[step]; }

    void put(const StepState& s) {
        if (at_) {
            if (s.t == steps() - 1) record_at(s);
            return;
        }
        const std::size_t B = d_.B, H = d_.H, Hkv = d_.Hkv, T = d_.T, D = d_.D, t = s.t, n = t + 1;
        // [B, heads, T, D] ← row t of each head of a [B, heads·D] row.
        auto put_heads = [&](DecodeStep step, const std::vector<float>& row, std::size_t heads) {
            if (!values_[step]) return;
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t h = 0; h < heads; ++h)
                    std::copy_n(row.data() + (b * heads + h) * D, D, values_[step] + ((b * heads + h) * T + t) * D);
        };
        put_heads(q_step, s.q, H);
        put_heads(k_step, s.k, Hkv);
        put_heads(v_step, s.v, Hkv);
        put_heads(context_step, s.context, H);
        for (const DecodeStep step : {scores_step, weights_step}) {
            if (!values_[step]) continue;
            const std::vector<float>& rows = step == scores_step ? s.scores : s.weights;
            for (std::size_t bh = 0; bh < B * H; ++bh) std::copy_n(rows.data() + bh * n, n, values_[step] + (bh * T + t) * T);
        }
        if (values_[output_step])
            for (std::size_t b = 0; b < B; ++b)
                std::copy_n(s.output + b * T * d_.C, d_.C, values_[output_step] + (b * T + t) * d_.C);
    }

private:
    // The one step asked for, as it was at step t.
    void record_at(const StepState& s) {
        const std::size_t B = d_.B, H = d_.H, Hkv = d_.Hkv, T = d_.T, D = d_.D, n = s.t + 1;
        std::size_t step = 0;
        while (at_->id != decode_ids[step]) ++step;
        auto record = [&](const shape_t& shape, const float* from) {
            float* to = rec_.record_in_place(decode_ids[step], shape);
            std::size_t count = 1;
            for (const std::size_t extent : shape) count *= extent;
            if (to) std::copy_n(from, count, to);
        };
        switch (step) {
            case q_step: record({B, H, 1, D}, s.q.data()); break;
            case k_step: record({B, Hkv, 1, D}, s.k.data()); break;
            case v_step: record({B, Hkv, 1, D}, s.v.data()); break;
            case k_cache_step:
            case v_cache_step: {
                const float* cache = step == k_cache_step ? s.k_cache : s.v_cache;
                std::vector<float> values;
                for (std::size_t bg = 0; bg < B * Hkv; ++bg) values.insert(values.end(), cache + bg * T * D, cache + (bg * T + n) * D);
                record({B, Hkv, n, D}, values.data());
                break;
            }
            case scores_step: record({B, H, 1, n}, s.scores.data()); break;
            case weights_step: record({B, H, 1, n}, s.weights.data()); break;
            case context_step: record({B, H, 1, D}, s.context.data()); break;
            default: {
                std::vector<float> values;
                for (std::size_t b = 0; b < B; ++b) values.insert(values.end(), s.output + b * T * d_.C, s.output + b * T * d_.C + d_.C);
                record({B, 1, d_.C}, values.data());
            }
        }
    }

    const Dims& d_;
    Recorder& rec_;
    const StepRequest* at_;
    float* values_[decode_steps] = {};
};

}  // namespace

void decode(const Dims& d, const KeyMask& mask, const float* x, const Weights& w, Recorder& rec, std::vector<float>& output,
            std::vector<Warning>& warnings) {
    const std::size_t B = d.B, T = d.T, C = d.C, H = d.H, Hkv = d.Hkv, D = d.D, HD = H * D, KD = Hkv * D;
    const auto bias = [](const std::vector<float>& b) { return b.empty() ? nullptr : b.data(); };

    DecodeSteps kept(d, rec);
    const std::size_t steps = kept.steps();
    // The caches, as long as the sequence: step t fills row t of every (batch row, K/V head). A
    // cache that grew by reallocating would copy itself ever again; real decoders allocate the
    // length they will reach, as here. A whole run's cache snapshots are the caches themselves.
    // // [B, Hkv, T, D]
    std::vector<float> own_k, own_v;
    float* k_cache = kept.cache(k_cache_step);
    float* v_cache = kept.cache(v_cache_step);
    if (!k_cache) k_cache = (own_k.assign(B * Hkv * T * D, 0.0f), own_k.data());
    if (!v_cache) v_cache = (own_v.assign(B * Hkv * T * D, 0.0f), own_v.data());
    std::vector<float> q(B * HD), k(B * KD), v(B * KD), context(B * C);
    std::vector<float> scores, weights;  // [B, H, t+1], kept only for a snapshot
    std::vector<float> row(T);           // one (batch row, head)'s weights over the cache
    std::vector<std::uint8_t> fully_masked(B * T, 0);
    output.assign(B * T * C, 0.0f);

    for (std::size_t t = 0; t < steps; ++t) {
        const std::size_t n = t + 1;  // tokens in the cache once this one is appended

        // 1. The new token's projections, for every batch row (x_t rows are T·C apart). // [B, H·D], [B, Hkv·D]
        const MatrixView x_t{x + t * C, static_cast<std::ptrdiff_t>(T * C)};
        gemm(B, C, HD, x_t, {w.Wq.data(), static_cast<std::ptrdiff_t>(HD)}, q.data(), static_cast<std::ptrdiff_t>(HD), bias(w.bq));
        gemm(B, C, KD, x_t, {w.Wk.data(), static_cast<std::ptrdiff_t>(KD)}, k.data(), static_cast<std::ptrdiff_t>(KD), bias(w.bk));
        gemm(B, C, KD, x_t, {w.Wv.data(), static_cast<std::ptrdiff_t>(KD)}, v.data(), static_cast<std::ptrdiff_t>(KD), bias(w.bv));

        // 2. Append k_t and v_t: the caches grow to [B, Hkv, t+1, D].
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t g = 0; g < Hkv; ++g) {
                std::copy_n(k.data() + b * KD + g * D, D, k_cache + ((b * Hkv + g) * T + t) * D);
                std::copy_n(v.data() + b * KD + g * D, D, v_cache + ((b * Hkv + g) * T + t) * D);
            }

        // 3. The one query of each head against its K/V head's cache, with the kernel every pass
        // uses (Tq = 1, Tk = t+1). // [B, H, 1, t+1]
        const bool keep_rows = kept.keeps_rows(t);
        if (keep_rows) {
            scores.resize(B * H * n);
            weights.resize(B * H * n);
        }
        for (std::size_t b = 0; b < B; ++b) {
            const HeadMask head_mask{mask, b, t};  // t+1 keys, or fewer past a padding length
            for (std::size_t h = 0; h < H; ++h) {
                const std::size_t g = h / d.group();
                const auto ld = static_cast<std::ptrdiff_t>(D);
                const HeadInput head{1, n, D, q.data() + b * HD + h * D, static_cast<std::ptrdiff_t>(HD),
                                     k_cache + (b * Hkv + g) * T * D, ld, v_cache + (b * Hkv + g) * T * D, ld};
                HeadSteps seen;
                if (keep_rows) {
                    seen.steps[2] = scores.data() + (b * H + h) * n;   // scaled and masked
                    seen.steps[3] = weights.data() + (b * H + h) * n;
                }
                head_weights(head, head_mask, row.data(), seen, fully_masked.data() + b * T + t);
                // o_t = a_t·V_cache, into head h's columns of the context. // [1, D]
                head_context(head, head_mask, row.data(), nullptr, context.data() + b * C + h * D, static_cast<std::ptrdiff_t>(C));
            }
        }

        // 4. y_t = concat(o_t)·Wo + bo: row t of the output. // [B, C]
        float* const y = output.data() + t * C;
        gemm(B, C, C, {context.data(), static_cast<std::ptrdiff_t>(C)}, {w.Wo.data(), static_cast<std::ptrdiff_t>(C)}, y,
             static_cast<std::ptrdiff_t>(T * C), bias(w.bo));

        kept.put({t, q, k, v, k_cache, v_cache, scores, weights, context, y});
    }
    if (steps == T) warn_fully_masked(fully_masked, d, warnings);
}

}  // namespace mha
