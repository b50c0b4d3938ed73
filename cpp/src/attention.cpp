#include "mha/attention.hpp"

#include <limits>
#include <string>

namespace mha {

namespace {

constexpr float minus_inf = -std::numeric_limits<float>::infinity();

// A mask's values as added to the scores: a boolean mask's hidden keys −∞, the rest 0.
std::vector<float> added_values(const MaskInput& m) {
    std::vector<float> added(m.values.size());
    for (std::size_t i = 0; i < added.size(); ++i) {
        const bool hidden = m.form == MaskInput::Form::masked ? m.values[i] != 0.0f : m.values[i] == 0.0f;
        added[i] = m.form == MaskInput::Form::add ? m.values[i] : hidden ? minus_inf : 0.0f;
    }
    return added;
}

}  // namespace

KeyMask key_mask(const Config& config, const Dims& d) {
    KeyMask mask{config.mask == MaskKind::causal, config.key_lengths.value_or(std::vector<std::int64_t>{}), d.Tk, d.appended};
    if (config.attn_mask) {
        // The strides that broadcast the mask's shape (checked by validate) to [B, H, Tq, Tk].
        const std::vector<std::int64_t>& shape = config.attn_mask->shape;
        const std::size_t rank = shape.size();
        const auto Tk = static_cast<std::ptrdiff_t>(shape[rank - 1]), Tq = static_cast<std::ptrdiff_t>(shape[rank - 2]);
        mask.stride_k = Tk == 1 ? 0 : 1;
        mask.stride_q = Tq == 1 ? 0 : Tk;
        const std::ptrdiff_t matrix = Tq * Tk;
        if (rank == 3 && shape[0] == static_cast<std::int64_t>(d.B * d.H) && d.B > 1) {  // nn.MultiheadAttention's [B·H, Tq, Tk]
            mask.stride_b = static_cast<std::ptrdiff_t>(d.H) * matrix;
            mask.stride_h = matrix;
        } else if (rank == 3) {  // [1 or H, Tq, Tk], as scaled_dot_product_attention broadcasts it
            mask.stride_h = shape[0] == 1 ? 0 : matrix;
        } else if (rank == 4) {
            mask.stride_h = shape[1] == 1 ? 0 : matrix;
            mask.stride_b = shape[0] == 1 ? 0 : shape[1] * matrix;
        }
        mask.added = added_values(*config.attn_mask);
    }
    if (config.key_padding_mask) mask.padding = added_values(*config.key_padding_mask);
    return mask;
}

HeadInput head_input(const Dims& d, Projections in, std::size_t b, std::size_t h) {
    const auto HD = static_cast<std::ptrdiff_t>(d.H * d.D), KD = static_cast<std::ptrdiff_t>(d.Hkv * d.D);
    const std::size_t kv_head = h / d.group(), keys = d.keys();
    return {d.T, keys, d.D,
            in.q + b * d.T * d.H * d.D + h * d.D, HD,
            in.k + b * keys * d.Hkv * d.D + kv_head * d.D, KD,
            in.v + b * keys * d.Hkv * d.D + kv_head * d.D, KD};
}

// A padding length of 0 masks every query of its row: one line, not T.
void warn_fully_masked(const std::vector<std::uint8_t>& fully_masked, const Dims& d, std::vector<Warning>& warnings) {
    for (std::size_t b = 0; b < d.B; ++b)
        for (std::size_t i = 0; i < d.T; ++i) {
            if (!fully_masked[b * d.T + i]) continue;
            std::size_t last = i;
            while (last + 1 < d.T && fully_masked[b * d.T + last + 1]) ++last;
            Params params{{"b", std::to_string(b)}, {"first", std::to_string(i)}, {"last", std::to_string(last)},
                          {"rows", last == i ? "term.rows.one" : "term.rows.range"}};
            warnings.push_back({"warning.fully_masked", std::move(params)});
            i = last;
        }
}

void attend(const Dims& d, const KeyMask& mask, Projections in, float* concat, Recorder& rec, std::vector<Warning>& warnings) {
    const std::size_t T = d.T, Tk = d.keys();
    const shape_t per_head{T, Tk};
    const Recorder::Heads scores = rec.record_heads("scores", per_head), scaled = rec.record_heads("scaled", per_head),
                          masked = rec.record_heads("masked", per_head), weights = rec.record_heads("weights", per_head);
    std::vector<float> A(T * Tk);  // one head's [Tq, Tk] matrix, reused head after head
    std::vector<std::uint8_t> fully_masked(d.B * T, 0);
    for (std::size_t b = 0; b < d.B; ++b)
        for (std::size_t h = 0; h < d.H; ++h) {
            if (!rec.wanted(b, h)) continue;
            const HeadInput head = head_input(d, in, b, h);
            const HeadMask head_mask{mask, b, 0, h};
            // 12–15. A = softmax(mask(Q·Kᵀ / √D)). // [Tq, Tk] of [B, H, Tq, Tk]
            head_weights(head, head_mask, A.data(), {{scores.at(b, h), scaled.at(b, h), masked.at(b, h), weights.at(b, h)}},
                         fully_masked.data() + b * T);
            if (rec.head_request()) continue;  // one head's matrices are the whole answer
            // 16. Context: each query's weighted sum of the values, into head h's columns of
            // concat. // [Tq, D] of [B, Tq, H, D]
            head_context(head, head_mask, A.data(), nullptr, concat + b * T * d.C + h * d.D, static_cast<std::ptrdiff_t>(d.C));
        }
    warn_fully_masked(fully_masked, d, warnings);
}

}  // namespace mha
