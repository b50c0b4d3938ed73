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

// The tiled steps' buffers, for the steps the recorder keeps: [.., Tq, Tk] steps take each tile in
// its place of the matrix; [.., Tq, Nk, ..] steps take each row's state after key block j.
// Nothing is written without a snapshot.
struct TileSteps {
    Recorder::Heads scores, row_max, correction, probs, row_sum, output, context;

    TileSteps(const Dims& d, Recorder& rec)
        // Tiles a mask skips are never written: their scores read −∞ and their P 0.
        : scores(rec.record_heads("tile_scores", {d.T, d.keys()}, minus_inf)),
          row_max(rec.record_heads("tile_max", {d.T, d.Nk()})),
          correction(rec.record_heads("tile_correction", {d.T, d.Nk()})),
          probs(rec.record_heads("tile_probs", {d.T, d.keys()})),
          row_sum(rec.record_heads("tile_sum", {d.T, d.Nk()})),
          output(rec.record_heads("tile_output", {d.T, d.Nk(), d.D})),
          context(rec.record_heads("tile_context", {d.T, d.D})) {}
};

// Only for snapshots: out of line and built for size (`cold`), so that the pass's own loop stays
// small; a snapshot's copies are a small part of a tile's work.
#define MHA_SNAPSHOT_ONLY [[gnu::cold, gnu::noinline]]

// A [rows, cols] tile at (r0, c0) of a head's [Tq, Tk] matrix.
MHA_SNAPSHOT_ONLY void put_tile(float* matrix, std::size_t Tk, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols,
                                const float* tile) {
    if (!matrix) return;
    for (std::size_t r = 0; r < rows; ++r) std::copy_n(tile + r * cols, cols, matrix + (r0 + r) * Tk + c0);
}
// One value per row of the block, after key block j: [.., Tq, Nk].
MHA_SNAPSHOT_ONLY void put_rows(float* state, std::size_t Nk, std::size_t r0, std::size_t rows, std::size_t j, const float* per_row) {
    if (!state) return;
    for (std::size_t r = 0; r < rows; ++r) state[(r0 + r) * Nk + j] = per_row[r];
}
// The block's O after key block j: [.., Tq, Nk, D].
MHA_SNAPSHOT_ONLY void put_output(float* state, std::size_t Nk, std::size_t D, std::size_t r0, std::size_t rows, std::size_t j,
                                  const float* O) {
    if (!state) return;
    for (std::size_t r = 0; r < rows; ++r) std::copy_n(O + r * D, D, state + ((r0 + r) * Nk + j) * D);
}

}  // namespace

void attend_tiled(const Dims& d, const KeyMask& mask, Projections in, float* concat, Recorder& rec, std::vector<Warning>& warnings,
                  TileCounts& tiles) {
    const std::size_t T = d.T, Tk = d.keys(), C = d.C, D = d.D, Bq = d.Bq, Bk = d.Bk, Nq = d.Nq(), Nk = d.Nk();

    // The working set, the same for every tile: O((Bq + Bk)·D) per head as FlashAttention keeps in
    // on-chip memory (the GEMM packs each K_j and V_j it reads into a buffer of its own).
    std::vector<float> S(Bq * Bk);  // the tile's scores [Bq, Bk], then its P in their place
    std::vector<float> PV(Bq * D);  // P_ij·V_j [Bq, D]
    std::vector<float> O(Bq * D);   // the running, unnormalised output [Bq, D]
    std::vector<float> m(Bq), l(Bq), rescale(Bq);  // running max, running sum, exp(m_old − m_new)

    const TileSteps kept(d, rec);
    std::vector<std::uint8_t> fully_masked(d.B * T, 0);
    tiles = TileCounts{};
    tiles.total = static_cast<std::uint64_t>(d.B) * d.H * Nq * Nk;
    tiles.skipped_per_head.assign(d.B, 0);

    for (std::size_t b = 0; b < d.B; ++b) {
        bool first_head = true;  // the mask, so the skipped tiles, are the same for every head of a row
        for (std::size_t h = 0; h < d.H; ++h) {
            if (!rec.wanted(b, h)) continue;
            // Head h of batch row b, as attend() reads it; tile (i, j) reads rows i·Bq … of it and
            // keys j·Bk … of K and V in place.
            const HeadInput head = head_input(d, in, b, h);
            const HeadMask head_mask{mask, b, 0, h};
            float *const tile_scores = kept.scores.at(b, h), *const tile_max = kept.row_max.at(b, h),
                         *const tile_correction = kept.correction.at(b, h), *const tile_probs = kept.probs.at(b, h),
                         *const tile_sum = kept.row_sum.at(b, h), *const tile_output = kept.output.at(b, h),
                         *const tile_context = kept.context.at(b, h);
            const bool recording = tile_scores || tile_max || tile_correction || tile_probs || tile_sum || tile_output || tile_context;
            for (std::size_t i = 0; i < Nq; ++i) {
                const std::size_t r0 = i * Bq, rows = std::min(Bq, T - r0);
                std::fill(m.begin(), m.end(), minus_inf);
                std::fill(l.begin(), l.end(), 0.0f);
                std::fill(O.begin(), O.end(), 0.0f);
                // No row of the block looks at a key from `unseen` on (the last row sees the most);
                // every row looks at the keys before `seen_by_all` (the first row sees the fewest).
                const std::size_t unseen = head_mask.reach(r0 + rows - 1), seen_by_all = head_mask.clear(r0);

                for (std::size_t j = 0; j < Nk; ++j) {
                    const std::size_t c0 = j * Bk, cols = std::min(Bk, Tk - c0);
                    if (c0 >= unseen) {
                        // Every score of the tile is masked (above the causal diagonal, or past the
                        // padding): nothing to compute, m, ℓ and O stay as they are.
                        ++tiles.skipped;
                        if (first_head) ++tiles.skipped_per_head[b];
                        if (recording) {
                            std::fill(rescale.begin(), rescale.end(), 1.0f);
                            put_rows(tile_max, Nk, r0, rows, j, m.data());
                            put_rows(tile_correction, Nk, r0, rows, j, rescale.data());
                            put_rows(tile_sum, Nk, r0, rows, j, l.data());
                            put_output(tile_output, Nk, D, r0, rows, j, O.data());
                        }
                        continue;
                    }
                    ++tiles.computed;
                    float* const s = S.data();

                    // 1. The tile's scores, scaled, as the kernel scores a head. // S_ij [rows, cols]
                    const auto ld_s = static_cast<std::ptrdiff_t>(cols);
                    score_block(head, r0, rows, c0, cols, s, ld_s);
                    // 2. Mask: −∞ where a row may not look, only in tiles a mask cuts through.
                    if (c0 + cols > seen_by_all) mask_block(head_mask, r0, rows, c0, cols, s, ld_s);
                    if (recording) put_tile(tile_scores, Tk, r0, rows, c0, cols, s);

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
                        put_rows(tile_max, Nk, r0, rows, j, m.data());
                        put_rows(tile_correction, Nk, r0, rows, j, rescale.data());
                        put_tile(tile_probs, Tk, r0, rows, c0, cols, s);
                        put_rows(tile_sum, Nk, r0, rows, j, l.data());
                    }

                    // 4. O = exp(m_old − m_new)·O + P_ij·V_j. // [rows, D]
                    gemm(rows, cols, D, {s, ld_s}, {head.v + c0 * head.ld_v, head.ld_v}, PV.data(), static_cast<std::ptrdiff_t>(D));
                    for (std::size_t r = 0; r < rows; ++r)
                        for (std::size_t k = 0; k < D; ++k) O[r * D + k] = rescale[r] * O[r * D + k] + PV[r * D + k];
                    if (recording) put_output(tile_output, Nk, D, r0, rows, j, O.data());
                }

                // 5. Divide by ℓ: each row's weights now sum to 1. A row with no visible key has
                // ℓ = 0 and a zero context, as in the naive pass. // [rows, D] of [B, Tq, H, D]
                for (std::size_t r = 0; r < rows; ++r) {
                    float* const out = concat + (b * T + r0 + r) * C + h * D;
                    if (l[r] == 0.0f) {
                        std::fill(out, out + D, 0.0f);
                        fully_masked[b * T + r0 + r] = 1;
                    } else {
                        for (std::size_t k = 0; k < D; ++k) out[k] = O[r * D + k] / l[r];
                    }
                    if (tile_context) std::copy_n(out, D, tile_context + (r0 + r) * D);
                }
            }
            first_head = false;
        }
    }
    warn_fully_masked(fully_masked, d, warnings);
}

}  // namespace mha
