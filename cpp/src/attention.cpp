#include "mha/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "mha/matmul.hpp"
#include "mha/softmax.hpp"

namespace mha {

KeyMask::KeyMask(const Config& config, const Dims& dims)
    : causal(config.mask == MaskKind::causal), key_lengths(config.key_lengths.value_or(std::vector<std::int64_t>{})), Tk(dims.Tk) {}

std::size_t KeyMask::first_masked(std::size_t b, std::size_t i) const {
    std::size_t first = causal ? std::min(i + 1, Tk) : Tk;
    if (!key_lengths.empty()) first = std::min(first, static_cast<std::size_t>(key_lengths[b]));
    return first;
}

bool KeyMask::masks_a_key(const Dims& d) const {
    if (causal && d.Tk > 1) return true;
    return std::any_of(key_lengths.begin(), key_lengths.end(), [&](std::int64_t n) { return static_cast<std::size_t>(n) < d.Tk; });
}

namespace {

constexpr const char* scores_sized[] = {"scores", "scaled", "masked", "weights"};

// The scores-sized steps' values as the heads are computed: for each step the recorder keeps, a
// [B, H, Tq, Tk] buffer that each head's [Tq, Tk] matrix is appended to, or, when one head is
// asked for, that head's matrix alone.
class HeadSteps {
public:
    HeadSteps(const Dims& d, Recorder& rec) : d_(d), rec_(rec), request_(rec.head_request()) {
        for (std::size_t s = 0; s < 4; ++s)
            if (rec.keeps_values(scores_sized[s]) && !request_) values_[s].reserve(d.B * d.H * d.T * d.Tk);
    }

    bool wanted(std::size_t b, std::size_t h) const {
        return !request_ || (static_cast<std::size_t>(*request_->batch) == b && static_cast<std::size_t>(*request_->head) == h);
    }

    // Keeps step `s`'s values of one head, `head` [Tq, Tk].
    void put(std::size_t s, const float* head) {
        if (rec_.keeps_values(scores_sized[s])) values_[s].insert(values_[s].end(), head, head + d_.T * d_.Tk);
    }

    void record() {
        const shape_t shape = request_ ? shape_t{1, 1, d_.T, d_.Tk} : shape_t{d_.B, d_.H, d_.T, d_.Tk};
        for (std::size_t s = 0; s < 4; ++s) rec_.record(scores_sized[s], std::move(values_[s]), shape);
    }

private:
    const Dims& d_;
    Recorder& rec_;
    const StepRequest* request_;
    std::vector<float> values_[4];
};

}  // namespace

// A padding length of 0 masks every query of its row: one line, not T.
void warn_fully_masked(const std::vector<bool>& fully_masked, const Dims& d, std::vector<Warning>& warnings) {
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
    const std::size_t T = d.T, Tk = d.Tk, C = d.C, D = d.D;
    const auto HD = static_cast<std::ptrdiff_t>(d.H * D), KD = static_cast<std::ptrdiff_t>(d.Hkv * D);
    // Head h of batch row b is a strided matrix of q (k, v): rows H·D (Hkv·D) floats apart. Under
    // GQA/MQA query head h reads K/V head h / (H/Hkv).
    auto q_head = [&](std::size_t b, std::size_t h) { return in.q + b * T * HD + h * D; };
    auto k_head = [&](std::size_t b, std::size_t h) { return in.k + b * Tk * KD + (h / d.group()) * D; };
    auto v_head = [&](std::size_t b, std::size_t h) { return in.v + b * Tk * KD + (h / d.group()) * D; };

    const float inv_sqrt_d = 1.0f / std::sqrt(static_cast<float>(D));
    constexpr float minus_inf = -std::numeric_limits<float>::infinity();
    // Under a mask the two products go 32 query rows at a time, each block only as far into the
    // keys as its last row may look: a causal mask skips about half of both. Scores past that
    // point are only ever overwritten with −∞, so they are skipped unless a snapshot shows them;
    // the context's sums skip only products with a weight of exactly 0 at their end, which leaves
    // them bit for bit the same.
    const bool masks_a_key = mask.masks_a_key(d);
    const bool skip_masked_scores = masks_a_key && !rec.keeps_values("scores") && !rec.keeps_values("scaled");
    constexpr std::size_t row_block = 32;

    HeadSteps kept(d, rec);
    std::vector<float> head(T * Tk);  // one head's [Tq, Tk] matrix, reused head after head
    std::vector<bool> fully_masked(d.B * T, false);
    for (std::size_t b = 0; b < d.B; ++b) {
        for (std::size_t h = 0; h < d.H; ++h) {
            if (!kept.wanted(b, h)) continue;
            float* const S = head.data();

            // 12. Scores: every query against every key. // [Tq, Tk] of [B, H, Tq, Tk]
            for (std::size_t r0 = 0; r0 < T; r0 += skip_masked_scores ? row_block : T) {
                const std::size_t rows = skip_masked_scores ? std::min(row_block, T - r0) : T;
                const std::size_t keys = skip_masked_scores ? mask.first_masked(b, r0 + rows - 1) : Tk;
                gemm(rows, D, keys, {q_head(b, h) + r0 * HD, HD}, {k_head(b, h), 1, KD}, S + r0 * Tk,
                     static_cast<std::ptrdiff_t>(Tk));
            }
            kept.put(0, S);

            // 13. Scale by 1/√D, so that the scores' spread does not grow with D.
            for (std::size_t i = 0; i < T * Tk; ++i) S[i] *= inv_sqrt_d;
            kept.put(1, S);

            // 14. Mask: −∞ where a query may not look.
            for (std::size_t i = 0; i < T; ++i) std::fill(S + i * Tk + mask.first_masked(b, i), S + (i + 1) * Tk, minus_inf);
            kept.put(2, S);

            // 15. Softmax over Tk: each query's weights over the keys sum to 1. softmax_row
            // subtracts the row maximum, which keeps exp() finite; a row whose keys are all
            // masked gets zero weights instead of the NaN of 0/0.
            for (std::size_t i = 0; i < T; ++i)
                if (!softmax_row(S + i * Tk, S + i * Tk, Tk)) fully_masked[b * T + i] = true;
            kept.put(3, S);
            if (rec.head_request()) continue;  // one head's matrix is the whole answer

            // 16. Context: each query's weighted sum of the values, into head h's columns of
            // concat. // [Tq, D] of [B, Tq, H, D]
            for (std::size_t r0 = 0; r0 < T; r0 += masks_a_key ? row_block : T) {
                const std::size_t rows = masks_a_key ? std::min(row_block, T - r0) : T;
                const std::size_t keys = masks_a_key ? mask.first_masked(b, r0 + rows - 1) : Tk;
                gemm(rows, keys, D, {S + r0 * Tk, static_cast<std::ptrdiff_t>(Tk)}, {v_head(b, h), KD},
                     concat + (b * T + r0) * C + h * D, static_cast<std::ptrdiff_t>(C));
            }
        }
    }
    warn_fully_masked(fully_masked, d, warnings);
    kept.record();
}

}  // namespace mha
