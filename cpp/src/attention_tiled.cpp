#include "mha/attention_tiled.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "mha/matmul.hpp"
#include "mha/softmax.hpp"

namespace mha {
namespace {

constexpr float minus_inf = -std::numeric_limits<float>::infinity();

// The tiled steps, in catalogue order.
enum TiledStep { scores, row_max_step, correction, probs, row_sum, output, context, tiled_steps };
constexpr const char* tiled_ids[tiled_steps] = {"tile_scores", "tile_max",    "tile_correction", "tile_probs",
                                                "tile_sum",    "tile_output", "tile_context"};

// Only for snapshots: out of line and built for size (`cold`), so that the pass's own loop stays
// small; a snapshot's copies are a small part of a tile's work.
#define MHA_SNAPSHOT_ONLY [[gnu::cold, gnu::noinline]]

// The tiled steps' values as the tiles are computed: for each step the recorder keeps, a buffer of
// [B, H, ...] that each head's values are written into (or, when one head is asked for, that
// head's alone). [.., Tq, Tk] steps take each tile in its place of the matrix; [.., Tq, Nk, ..]
// steps take each row's state after key block j. Nothing here is allocated without a snapshot.
class TileSteps {
public:
    MHA_SNAPSHOT_ONLY TileSteps(const Dims& d, Recorder& rec) : d_(d), rec_(rec), request_(rec.head_request()) {
        const std::size_t T = d.T, Nk = d.Nk();
        const std::size_t per_head[tiled_steps] = {T * d.Tk, T * Nk, T * Nk, T * d.Tk, T * Nk, T * Nk * d.D, T * d.D};
        const std::size_t heads = request_ ? 1 : d.B * d.H;
        for (std::size_t s = 0; s < tiled_steps; ++s) {
            per_head_[s] = per_head[s];
            // Tiles a mask skips are never written: their scores read −∞ and their P 0.
            if (rec.keeps_values(tiled_ids[s])) values_[s].assign(heads * per_head[s], s == scores ? minus_inf : 0.0f);
        }
    }

    bool wanted(std::size_t b, std::size_t h) const {
        return !request_ || (static_cast<std::size_t>(*request_->batch) == b && static_cast<std::size_t>(*request_->head) == h);
    }
    bool any() const {
        for (const auto& v : values_)
            if (!v.empty()) return true;
        return false;
    }
    void begin_head(std::size_t b, std::size_t h) { head_ = request_ ? 0 : b * d_.H + h; }

    // A [rows, cols] tile at (r0, c0) of the head's [Tq, Tk] matrix.
    MHA_SNAPSHOT_ONLY void put_tile(TiledStep s, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols, const float* tile) {
        if (values_[s].empty()) return;
        float* matrix = values_[s].data() + head_ * per_head_[s];
        for (std::size_t r = 0; r < rows; ++r) std::copy_n(tile + r * cols, cols, matrix + (r0 + r) * d_.Tk + c0);
    }
    // One value per row of the block, after key block j: [.., Tq, Nk].
    MHA_SNAPSHOT_ONLY void put_rows(TiledStep s, std::size_t r0, std::size_t rows, std::size_t j, const float* per_row) {
        if (values_[s].empty()) return;
        float* state = values_[s].data() + head_ * per_head_[s];
        for (std::size_t r = 0; r < rows; ++r) state[(r0 + r) * d_.Nk() + j] = per_row[r];
    }
    // The block's O after key block j: [.., Tq, Nk, D].
    MHA_SNAPSHOT_ONLY void put_output(std::size_t r0, std::size_t rows, std::size_t j, const float* O) {
        if (values_[output].empty()) return;
        float* state = values_[output].data() + head_ * per_head_[output];
        for (std::size_t r = 0; r < rows; ++r) std::copy_n(O + r * d_.D, d_.D, state + ((r0 + r) * d_.Nk() + j) * d_.D);
    }
    // One row of the context: [.., Tq, D].
    MHA_SNAPSHOT_ONLY void put_context(std::size_t row, const float* values) {
        if (values_[context].empty()) return;
        std::copy_n(values, d_.D, values_[context].data() + head_ * per_head_[context] + row * d_.D);
    }

    MHA_SNAPSHOT_ONLY void record() {
        const std::size_t B = request_ ? 1 : d_.B, H = request_ ? 1 : d_.H, T = d_.T, Nk = d_.Nk();
        const shape_t shapes[tiled_steps] = {{B, H, T, d_.Tk}, {B, H, T, Nk}, {B, H, T, Nk}, {B, H, T, d_.Tk},
                                             {B, H, T, Nk},    {B, H, T, Nk, d_.D}, {B, H, T, d_.D}};
        for (std::size_t s = 0; s < tiled_steps; ++s) rec_.record(tiled_ids[s], std::move(values_[s]), shapes[s]);
    }

private:
    const Dims& d_;
    Recorder& rec_;
    const StepRequest* request_;
    std::size_t per_head_[tiled_steps] = {};
    std::size_t head_ = 0;
    std::vector<float> values_[tiled_steps];
};

}  // namespace

void attend_tiled(const Dims& d, const KeyMask& mask, Projections in, float* concat, Recorder& rec, std::vector<Warning>& warnings,
                  TileCounts& tiles) {
    const std::size_t T = d.T, Tk = d.Tk, C = d.C, D = d.D, Bq = d.Bq, Bk = d.Bk, Nq = d.Nq(), Nk = d.Nk();
    const auto HD = static_cast<std::ptrdiff_t>(d.H * D), KD = static_cast<std::ptrdiff_t>(d.Hkv * D);
    // Head h of batch row b is a strided matrix of q (k, v), as in attend(); tile (i, j) reads
    // rows i·Bq … of it and keys j·Bk … of K and V in place.
    auto q_head = [&](std::size_t b, std::size_t h) { return in.q + b * T * HD + h * D; };
    auto k_head = [&](std::size_t b, std::size_t h) { return in.k + b * Tk * KD + (h / d.group()) * D; };
    auto v_head = [&](std::size_t b, std::size_t h) { return in.v + b * Tk * KD + (h / d.group()) * D; };
    const float inv_sqrt_d = 1.0f / std::sqrt(static_cast<float>(D));

    // The working set, the same for every tile: O((Bq + Bk)·D) per head as FlashAttention keeps in
    // on-chip memory (the GEMM packs each K_j and V_j it reads into a buffer of its own).
    std::vector<float> S(Bq * Bk);  // the tile's scores [Bq, Bk], then its P in their place
    std::vector<float> PV(Bq * D);  // P_ij·V_j [Bq, D]
    std::vector<float> O(Bq * D);   // the running, unnormalised output [Bq, D]
    std::vector<float> m(Bq), l(Bq), rescale(Bq);  // running max, running sum, exp(m_old − m_new)

    TileSteps kept(d, rec);
    const bool recording = kept.any();
    std::vector<bool> fully_masked(d.B * T, false);
    tiles = TileCounts{};
    tiles.total = static_cast<std::uint64_t>(d.B) * d.H * Nq * Nk;
    tiles.skipped_per_head.assign(d.B, 0);

    for (std::size_t b = 0; b < d.B; ++b) {
        bool first_head = true;  // the mask, so the skipped tiles, are the same for every head of a row
        for (std::size_t h = 0; h < d.H; ++h) {
            if (!kept.wanted(b, h)) continue;
            kept.begin_head(b, h);
            for (std::size_t i = 0; i < Nq; ++i) {
                const std::size_t r0 = i * Bq, rows = std::min(Bq, T - r0);
                std::fill(m.begin(), m.end(), minus_inf);
                std::fill(l.begin(), l.end(), 0.0f);
                std::fill(O.begin(), O.end(), 0.0f);
                // No row of the block looks at a key from `unseen` on (the last row sees the most);
                // every row looks at the keys before `seen_by_all` (the first row sees the fewest).
                const std::size_t unseen = mask.first_masked(b, r0 + rows - 1), seen_by_all = mask.first_masked(b, r0);

                for (std::size_t j = 0; j < Nk; ++j) {
                    const std::size_t c0 = j * Bk, cols = std::min(Bk, Tk - c0);
                    if (c0 >= unseen) {
                        // Every score of the tile is masked (above the causal diagonal, or past the
                        // padding): nothing to compute, m, ℓ and O stay as they are.
                        ++tiles.skipped;
                        if (first_head) ++tiles.skipped_per_head[b];
                        if (recording) {
                            std::fill(rescale.begin(), rescale.end(), 1.0f);
                            kept.put_rows(row_max_step, r0, rows, j, m.data());
                            kept.put_rows(correction, r0, rows, j, rescale.data());
                            kept.put_rows(row_sum, r0, rows, j, l.data());
                            kept.put_output(r0, rows, j, O.data());
                        }
                        continue;
                    }
                    ++tiles.computed;
                    float* const s = S.data();

                    // 1. The tile's scores, scaled. // S_ij [rows, cols]
                    gemm(rows, D, cols, {q_head(b, h) + r0 * HD, HD}, {k_head(b, h) + c0 * KD, 1, KD}, s,
                         static_cast<std::ptrdiff_t>(cols));
                    for (std::size_t k = 0; k < rows * cols; ++k) s[k] *= inv_sqrt_d;
                    // 2. Mask: −∞ where a row may not look, only in tiles a mask cuts through.
                    if (c0 + cols > seen_by_all)
                        for (std::size_t r = 0; r < rows; ++r) {
                            const std::size_t visible = mask.first_masked(b, r0 + r);
                            const std::size_t from = visible > c0 ? std::min(visible - c0, cols) : 0;
                            std::fill(s + r * cols + from, s + (r + 1) * cols, minus_inf);
                        }
                    if (recording) kept.put_tile(scores, r0, rows, c0, cols, s);

                    // 3. Online softmax: the running max grows to m_new, what was summed under the
                    // old max is rescaled by exp(m_old − m_new), and the tile adds exp(S − m_new).
                    for (std::size_t r = 0; r < rows; ++r) {
                        float* const row = s + r * cols;
                        const float m_new = std::max(m[r], row_max(row, cols));
                        if (m_new == minus_inf) {  // no key of this row is visible yet
                            rescale[r] = 1.0f;
                            std::fill(row, row + cols, 0.0f);
                            continue;
                        }
                        rescale[r] = exp_nonpositive(m[r] - m_new);  // e^−∞ = 0 on the row's first keys
                        m[r] = m_new;
                        l[r] = rescale[r] * l[r] + exp_shifted_row(row, row, cols, m_new);
                    }
                    if (recording) {
                        kept.put_rows(row_max_step, r0, rows, j, m.data());
                        kept.put_rows(correction, r0, rows, j, rescale.data());
                        kept.put_tile(probs, r0, rows, c0, cols, s);
                        kept.put_rows(row_sum, r0, rows, j, l.data());
                    }

                    // 4. O = exp(m_old − m_new)·O + P_ij·V_j. // [rows, D]
                    gemm(rows, cols, D, {s, static_cast<std::ptrdiff_t>(cols)}, {v_head(b, h) + c0 * KD, KD}, PV.data(),
                         static_cast<std::ptrdiff_t>(D));
                    for (std::size_t r = 0; r < rows; ++r)
                        for (std::size_t k = 0; k < D; ++k) O[r * D + k] = rescale[r] * O[r * D + k] + PV[r * D + k];
                    if (recording) kept.put_output(r0, rows, j, O.data());
                }

                // 5. Divide by ℓ: each row's weights now sum to 1. A row with no visible key has
                // ℓ = 0 and a zero context, as in the naive pass. // [rows, D] of [B, Tq, H, D]
                for (std::size_t r = 0; r < rows; ++r) {
                    float* const out = concat + (b * T + r0 + r) * C + h * D;
                    if (l[r] == 0.0f) {
                        std::fill(out, out + D, 0.0f);
                        fully_masked[b * T + r0 + r] = true;
                    } else {
                        for (std::size_t k = 0; k < D; ++k) out[k] = O[r * D + k] / l[r];
                    }
                    if (recording) kept.put_context(r0 + r, out);
                }
            }
            first_head = false;
        }
    }
    warn_fully_masked(fully_masked, d, warnings);
    kept.record();
}

}  // namespace mha
