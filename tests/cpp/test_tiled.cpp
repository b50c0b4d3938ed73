// The tiled forward (FlashAttention's algorithm, cpp/src/attention_tiled.cpp) beside the naive one:
// the same output on every PyTorch fixture and against the plain-loop reference; every per-tile
// snapshot as its definition says, recomputed here in double from the naive pass's masked scores;
// each row's final m and ℓ equal to the naive softmax's row max and sum; the tiles a mask skips
// counted against an independent count; and no allocation of Tq×Tk without snapshots.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <set>
#include <string>

#include "fixture_files.hpp"
#include "mha/catalogue.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/messages.hpp"
#include "reference.hpp"

// The largest single allocation while `tracking` is on: this test binary replaces operator new
// (every std::vector and xtensor container of the engine allocates through it).
namespace alloc_probe {
std::size_t largest = 0;
bool tracking = false;
}  // namespace alloc_probe

#if !defined(__SANITIZE_ADDRESS__)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // GCC 12 takes the replaced pair for a mismatch
#endif
void* operator new(std::size_t size) {
    if (alloc_probe::tracking && size > alloc_probe::largest) alloc_probe::largest = size;
    if (void* p = std::malloc(size ? size : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

constexpr float minus_inf = -std::numeric_limits<float>::infinity();

mha::Config tiled(mha::Config c, std::int64_t block_q, std::int64_t block_k) {
    c.algorithm = mha::Algorithm::tiled;
    c.block_q = block_q;
    c.block_k = block_k;
    return c;
}

mha::Config seeded(std::int64_t B, std::int64_t T, std::int64_t C, std::int64_t H) {
    mha::Config c;
    c.B = B; c.T = T; c.C = C; c.H = H; c.seed = 11;
    return c;
}

// The block sizes every equality runs with: single scores, tiles that do not divide the sequence
// either way, square ones, and tiles larger than the sequence (one tile).
const std::pair<std::int64_t, std::int64_t> block_sizes[] = {{1, 1}, {2, 3}, {3, 2}, {4, 4}, {64, 128}};

void check_close(const std::vector<float>& actual, const std::vector<float>& expected, double tolerance, const std::string& what) {
    const ref::Diff diff = ref::compare(actual, expected, tolerance);
    INFO(what << ": max |diff| " << diff.max_abs << ", first index over " << tolerance << ": " << diff.first_bad);
    CHECK(diff.first_bad == -1);
}

std::string warnings_text(const mha::Trace& t) {
    std::string text;
    for (const mha::Warning& w : t.warnings) text += mha::message_of(w) + "\n";
    return text;
}

// Every per-tile snapshot of a tiled run against its definition, recomputed in double from the
// naive run's masked scores S and its values V (the same projections): after key block j, row r's
// m = max of S over the keys so far, ℓ = Σ exp(S − m), O = Σ exp(S − m)·V, the correction
// exp(m_before − m), P = exp(S − m) on the tile; and at the end ℓ and m are the naive softmax's
// row sum and max (1e-6 relative), O / ℓ its context.
void check_tile_snapshots(const mha::Trace& naive, const mha::Trace& t, const std::string& where) {
    const mha::Dims& d = t.dims;
    const std::size_t Nk = d.Nk(), D = d.D, KD = d.Hkv * D;
    const auto& S = naive.step("masked").data;  // [B, H, Tq, Tk]
    const auto& V = naive.step("v").data;       // [B, Tk, Hkv·D]
    const auto& m = t.step("tile_max").data;
    const auto& l = t.step("tile_sum").data;
    const auto& scale = t.step("tile_correction").data;
    const auto& P = t.step("tile_probs").data;
    const auto& O = t.step("tile_output").data;
    const auto& context = t.step("tile_context").data;
    // The tiles' scores are the masked scores themselves, bit for bit: the same products in the
    // same order, and −∞ on the tiles a mask skipped.
    CHECK_MESSAGE(t.step("tile_scores").data == S, where);
    int bad = 0;
    for (std::size_t b = 0; b < d.B; ++b)
        for (std::size_t h = 0; h < d.H; ++h)
            for (std::size_t r = 0; r < d.T; ++r) {
                const std::size_t row = (b * d.H + h) * d.T + r;
                double m_before = -INFINITY;
                for (std::size_t j = 0; j < Nk; ++j) {
                    const std::size_t end = std::min((j + 1) * d.Bk, d.Tk);
                    double m_j = -INFINITY;
                    for (std::size_t c = 0; c < end; ++c) m_j = std::max(m_j, double(S[row * d.Tk + c]));
                    double l_j = 0;
                    std::vector<double> O_j(D, 0.0);
                    if (m_j > -INFINITY)
                        for (std::size_t c = 0; c < end; ++c) {
                            const double p = std::exp(double(S[row * d.Tk + c]) - m_j);
                            l_j += p;
                            for (std::size_t k = 0; k < D; ++k) O_j[k] += p * V[(b * d.Tk + c) * KD + (h / d.group()) * D + k];
                        }
                    const std::size_t at = row * Nk + j;
                    const double scale_j = m_j == -INFINITY ? 1.0 : std::exp(m_before - m_j);
                    bool ok = (m_j == -INFINITY ? m[at] == minus_inf : std::fabs(m[at] - m_j) <= 1e-6 * std::max(1.0, std::fabs(m_j))) &&
                              std::fabs(l[at] - l_j) <= 1e-6 * std::max(1.0, l_j) && std::fabs(scale[at] - scale_j) <= 1e-6;
                    for (std::size_t k = 0; k < D; ++k) ok = ok && std::fabs(O[at * D + k] - O_j[k]) <= 1e-5 * std::max(1.0, l_j);
                    for (std::size_t c = j * d.Bk; c < end && m_j > -INFINITY; ++c) {
                        const double p = S[row * d.Tk + c] == minus_inf ? 0.0 : std::exp(double(S[row * d.Tk + c]) - m_j);
                        ok = ok && std::fabs(P[row * d.Tk + c] - p) <= 1e-6;
                    }
                    if (!ok && bad++ < 5)
                        FAIL_CHECK(where << ": b=" << b << " h=" << h << " row " << r << " after key block " << j << ": m " << m[at] << " vs "
                                         << m_j << ", ℓ " << l[at] << " vs " << l_j << ", correction " << scale[at] << " vs " << scale_j);
                    m_before = m_j;
                }
                // The end of the row: O / ℓ is the context (0 for a row that sees no key).
                const double l_end = l[row * Nk + Nk - 1];
                for (std::size_t k = 0; k < D; ++k) {
                    const double expected = l_end == 0 ? 0.0 : O[(row * Nk + Nk - 1) * D + k] / l_end;
                    if (std::fabs(context[row * D + k] - expected) > 1e-6 && bad++ < 5) FAIL_CHECK(where << ": context of row " << r);
                }
            }
    CHECK_MESSAGE(bad == 0, where << ": " << bad << " rows differ");
}

}  // namespace

TEST_CASE("tiled: every PyTorch fixture within 1e-5, at every block size, and the same as the naive pass") {
    const auto fixtures = load_fixtures();
    REQUIRE(fixtures.size() >= 13);
    for (const Fixture& f : fixtures) {
        const mha::Trace naive = mha::forward(f.config);
        for (const auto& [bq, bk] : block_sizes) {
            const std::string where = f.name + " blockQ=" + std::to_string(bq) + " blockK=" + std::to_string(bk);
            INFO(where);
            const mha::Trace t = mha::forward(tiled(f.config, bq, bk));
            check_close(t.output, expected_data(f, "output"), 1e-5, where + " output vs PyTorch");
            check_close(t.output, naive.output, 1e-5, where + " output vs naive");
            check_close(t.step("tile_context").data, naive.step("context").data, 1e-5, where + " context vs naive");
            check_close(t.step("q").data, expected_data(f, "q"), 1e-5, where + " q vs PyTorch");
            check_tile_snapshots(naive, t, where);
            CHECK(warnings_text(t) == warnings_text(naive));
        }
    }
}

TEST_CASE("tiled: seeded configs against the plain-loop reference, masks and GQA/MQA included") {
    std::vector<mha::Config> configs;
    auto gqa = seeded(2, 7, 24, 6);
    gqa.Hkv = 2; gqa.mask = mha::MaskKind::causal; gqa.key_lengths = std::vector<std::int64_t>{7, 4};
    configs.push_back(gqa);
    auto mqa_cross = seeded(2, 5, 12, 3);
    mqa_cross.Tk = 9; mqa_cross.Hkv = 1; mqa_cross.mask = mha::MaskKind::causal;
    configs.push_back(mqa_cross);
    auto padded = seeded(3, 6, 8, 2);
    padded.key_lengths = std::vector<std::int64_t>{6, 0, 2};  // batch row 1: every key masked
    configs.push_back(padded);
    auto longer = seeded(1, 37, 16, 2);
    longer.mask = mha::MaskKind::causal;
    configs.push_back(longer);
    for (const mha::Config& c : configs) {
        const mha::Trace naive = mha::forward(c);
        const mha::Dims& d = naive.dims;
        const std::vector<float> kv = d.cross ? naive.step("source").data : std::vector<float>();
        const ref::Result expected = ref::attention(d.B, d.T, d.Tk, d.C, d.H, d.Hkv, naive.step("x").data, kv, naive.weights,
                                                    c.mask == mha::MaskKind::causal, c.key_lengths.value_or(std::vector<std::int64_t>{}));
        for (const auto& [bq, bk] : block_sizes) {
            const std::string where = "B=" + std::to_string(c.B) + " T=" + std::to_string(c.T) + " blocks " + std::to_string(bq) + "×" + std::to_string(bk);
            INFO(where);
            const mha::Trace t = mha::forward(tiled(c, bq, bk));
            check_close(t.output, expected.output, 1e-5, where + " output vs reference");
            check_tile_snapshots(naive, t, where);
            CHECK(warnings_text(t) == warnings_text(naive));
        }
    }
}

TEST_CASE("tiled: a fully masked row gives zeros and the naive pass's warning") {
    auto c = seeded(2, 5, 8, 2);
    c.key_lengths = std::vector<std::int64_t>{0, 3};
    c.mask = mha::MaskKind::causal;
    const mha::Trace naive = mha::forward(c);
    const mha::Trace t = mha::forward(tiled(c, 2, 2));
    REQUIRE(t.warnings.size() == 1);
    CHECK(mha::message_of(t.warnings[0]) == mha::message_of(naive.warnings[0]));
    CHECK(mha::message_of(t.warnings[0]) ==
          "Batch row 0, queries 0–4: every key is masked, so the attention weights are all 0 (PyTorch returns NaN for such a row).");
    const auto& context = t.step("tile_context").data;
    for (std::size_t i = 0; i < 2 * 5 * 4; ++i) CHECK(context[i] == 0.0f);  // batch row 0, both heads
    // Its every tile is skipped: m stays −∞, ℓ 0.
    for (const float m : std::vector<float>(t.step("tile_max").data.begin(), t.step("tile_max").data.begin() + 2 * 5 * 3)) CHECK(m == minus_inf);
    CHECK(t.tiles.skipped_per_head[0] == 3 * 3);
}

// An independent count: a tile is skipped when no (query, key) of it is visible, asked cell by cell.
std::uint64_t skipped_by_cells(std::size_t T, std::size_t Tk, std::size_t Bq, std::size_t Bk, bool causal, std::int64_t length) {
    std::uint64_t skipped = 0;
    for (std::size_t r0 = 0; r0 < T; r0 += Bq)
        for (std::size_t c0 = 0; c0 < Tk; c0 += Bk) {
            bool any = false;
            for (std::size_t i = r0; i < std::min(r0 + Bq, T); ++i)
                for (std::size_t j = c0; j < std::min(c0 + Bk, Tk); ++j) any = any || ((!causal || j <= i) && static_cast<std::int64_t>(j) < length);
            skipped += !any;
        }
    return skipped;
}

TEST_CASE("tiled: causal runs skip the tiles above the diagonal, counted") {
    // Square, the blocks dividing T: the n(n−1)/2 tiles above the diagonal of an n×n grid, per head.
    for (const std::size_t n : {1, 2, 3, 8}) {
        auto c = seeded(2, static_cast<std::int64_t>(4 * n), 6, 3);
        c.mask = mha::MaskKind::causal;
        const mha::Trace t = mha::forward(tiled(c, 4, 4));
        INFO("n=" << n);
        CHECK(t.tiles.total == 2 * 3 * n * n);
        CHECK(t.tiles.skipped == 2 * 3 * n * (n - 1) / 2);
        CHECK(t.tiles.computed + t.tiles.skipped == t.tiles.total);
        CHECK(t.tiles.skipped_per_head == std::vector<std::uint64_t>{n * (n - 1) / 2, n * (n - 1) / 2});
    }
    // Any shape: blocks that do not divide, Tq ≠ Tk, padding, against the cell-by-cell count.
    for (const std::size_t T : {5, 9, 16})
        for (const std::size_t Tk : {T, T + 3})
            for (const auto& [bq, bk] : block_sizes)
                for (const bool causal : {true, false}) {
                    auto c = seeded(2, static_cast<std::int64_t>(T), 4, 2);
                    c.Tk = static_cast<std::int64_t>(Tk);
                    if (causal) c.mask = mha::MaskKind::causal;
                    c.key_lengths = std::vector<std::int64_t>{static_cast<std::int64_t>(Tk), static_cast<std::int64_t>(Tk / 2)};
                    const mha::Trace t = mha::forward(tiled(c, bq, bk));
                    const std::size_t Bq = std::min<std::size_t>(bq, T), Bk = std::min<std::size_t>(bk, Tk);
                    INFO("T=" << T << " Tk=" << Tk << " blocks " << Bq << "×" << Bk << (causal ? " causal" : ""));
                    for (std::size_t b = 0; b < 2; ++b)
                        CHECK(t.tiles.skipped_per_head[b] == skipped_by_cells(T, Tk, Bq, Bk, causal, (*c.key_lengths)[b]));
                    CHECK(t.tiles.skipped == 2 * (t.tiles.skipped_per_head[0] + t.tiles.skipped_per_head[1]));
                }
}

TEST_CASE("tiled: the step list, shapes and axes come from the catalogue") {
    auto c = seeded(2, 5, 12, 3);
    c.Tk = 7; c.Hkv = 1; c.mask = mha::MaskKind::causal;
    const mha::Trace t = mha::forward(tiled(c, 2, 3));
    std::vector<std::string> expected;
    for (const mha::StepSpec& s : mha::catalogue())
        if (mha::appears(s, t.dims)) expected.push_back(s.id);
    std::vector<std::string> ids;
    for (const mha::Snapshot& s : t.steps) {
        ids.emplace_back(s.id);
        INFO(s.id);
        CHECK(s.shape == mha::step_shape(*mha::find_step(s.id), t.dims));
        CHECK(s.data.size() == s.numel);
        CHECK(s.axes().size() == s.shape.size());
    }
    CHECK(ids == expected);
    CHECK(ids == std::vector<std::string>{"x", "source", "q", "k", "v", "q_split", "k_split", "v_split", "q_heads", "k_heads", "v_heads",
                                          "k_shared", "v_shared", "k_t", "tile_scores", "tile_max", "tile_correction", "tile_probs",
                                          "tile_sum", "tile_output", "tile_context", "context_t", "concat", "output"});
    CHECK(t.step("tile_scores").shape == std::vector<std::size_t>{2, 3, 5, 7});
    CHECK(t.step("tile_max").shape == std::vector<std::size_t>{2, 3, 5, 3});  // Nk = ⌈7/3⌉
    CHECK(t.step("tile_max").axes() == std::vector<std::string>{"B", "H", "Tq", "Nk"});
    CHECK(t.step("tile_output").shape == std::vector<std::size_t>{2, 3, 5, 3, 4});
    CHECK(t.tiles.total == 2 * 3 * 3 * 3);
}

TEST_CASE("tiled: a lazy run's {batch, head} request gives that head of the eager run") {
    auto c = tiled(seeded(2, 6, 12, 4), 4, 3);
    c.Hkv = 2; c.mask = mha::MaskKind::causal; c.key_lengths = std::vector<std::int64_t>{6, 4};
    const mha::Trace eager = mha::forward(c);
    c.snapshots = mha::Snapshots::lazy;
    const mha::Trace lazy = mha::forward(c);
    CHECK(lazy.output == eager.output);
    CHECK(lazy.tiles.skipped == eager.tiles.skipped);
    for (const char* id : {"tile_scores", "tile_max", "tile_correction", "tile_probs", "tile_sum", "tile_output", "tile_context"}) {
        const auto& whole = eager.step(id);
        const std::size_t per_head = whole.numel / (2 * 4);
        for (std::int64_t b = 0; b < 2; ++b)
            for (std::int64_t h = 0; h < 4; ++h) {
                mha::RunOptions options;
                options.only = mha::StepRequest{id, b, h};
                const mha::Trace one = mha::forward(c, options);
                INFO(id << " b=" << b << " h=" << h);
                REQUIRE(one.steps.size() == 1);
                CHECK(one.steps[0].shape[0] == 1);
                CHECK(one.steps[0].shape[1] == 1);
                const std::size_t at = (b * 4 + h) * per_head;
                CHECK(one.steps[0].data == std::vector<float>(whole.data.begin() + at, whole.data.begin() + at + per_head));
            }
    }
}

#if !defined(__SANITIZE_ADDRESS__)
TEST_CASE("tiled without snapshots allocates nothing of Tq×Tk; the naive pass does") {
    auto c = seeded(1, 1024, 16, 2);
    c.mask = mha::MaskKind::causal;
    c.snapshots = mha::Snapshots::none;
    const std::size_t score_matrix = 1024 * 1024 * sizeof(float);
    for (const bool is_tiled : {true, false}) {
        const mha::Config run = is_tiled ? tiled(c, 64, 128) : c;
        alloc_probe::largest = 0;
        alloc_probe::tracking = true;
        const mha::Trace t = mha::forward(run);
        alloc_probe::tracking = false;
        INFO((is_tiled ? "tiled" : "naive") << ": largest allocation " << alloc_probe::largest << " bytes");
        if (is_tiled) CHECK(alloc_probe::largest < score_matrix / 8);
        else CHECK(alloc_probe::largest >= score_matrix);
    }
}
#endif

TEST_CASE("tiled memory: O((Bq + Bk)·D) working set, counted; the naive pass needs its score matrix") {
    mha::Config c = seeded(1, 16384, 768, 12);
    c.mask = mha::MaskKind::causal;
    c.block_q = 64; c.block_k = 128;
    const mha::MemoryNeed naive = mha::memory_need_of(c, mha::Algorithm::naive);
    const mha::MemoryNeed t = mha::memory_need_of(c, mha::Algorithm::tiled);
    CHECK(naive.scores == 16384.0 * 16384 * 4);  // one head's [Tq, Tk] at a time: 1 GiB
    CHECK(t.scores == 64.0 * 128 * 4);           // one tile
    CHECK(t.total() < 400.0 * (1 << 20));
    CHECK(naive.total() - naive.scores == doctest::Approx(t.total() - t.scores - 4.0 * (2 * 64 * 64 + 3 * 64)));
    // The tiled compute-only run passes validation with a raised cap; the eager naive one is refused
    // with what it needs: four [B, H, Tq, Tk] snapshots of 12 GiB each, and the tiled alternative.
    mha::Config run = c;
    run.algorithm = mha::Algorithm::tiled; run.snapshots = mha::Snapshots::none; run.memory_cap = 512ull << 20;
    CHECK_NOTHROW(mha::validate_sizes(run));
    run.memory_cap = mha::default_memory_cap;
    CHECK_THROWS_WITH(mha::validate_sizes(run), doctest::Contains("above the memory cap of 256.0 MiB"));
    mha::Config eager = seeded(1, 16384, 768, 12);
    eager.mask = mha::MaskKind::causal;
    try {
        mha::validate_sizes(eager);
        FAIL("accepted");
    } catch (const mha::MhaError& e) {
        CHECK(e.code() == "memory_cap");
        CHECK(e.field() == "T");
        // (The total depends on what the build can address: above 3 GiB in wasm, the cap natively.)
        const std::string text = e.what();
        CHECK(text.find("its snapshots alone take 48.70 GiB. Lower B, T, Tk or H") != std::string::npos);
        CHECK(text.find("Computed tiled without snapshots (algorithm \"tiled\", snapshots false) it would need 345.0 MiB.") != std::string::npos);
    }
    eager.snapshots = mha::Snapshots::none;
    CHECK_THROWS_WITH(mha::validate_sizes(eager), doctest::Contains("the attention scores of one head alone take 1.00 GiB"));
}

TEST_CASE("tiled: errors name the field, in both languages, before any work") {
    auto base = seeded(1, 8, 8, 2);
    auto error_of = [](const mha::Config& c) -> std::pair<std::string, std::string> {
        try {
            mha::validate(c);
        } catch (const mha::MhaError& e) {
            for (const mha::Lang lang : {mha::Lang::en, mha::Lang::zh}) {
                const std::string text = mha::message_of(e, lang);
                CHECK(text.find('{') == std::string::npos);
                CHECK(text.find("term.") == std::string::npos);
            }
            return {e.field(), e.what()};
        }
        return {"", ""};
    };
    auto c = base;
    c.block_q = 4;
    CHECK(error_of(c) == std::pair<std::string, std::string>{
                             "blockQ", "blockQ is set but algorithm is \"naive\": block sizes belong to algorithm \"tiled\". Remove blockQ, or set "
                                       "algorithm to \"tiled\"."});
    c = tiled(base, 0, 2);
    CHECK(error_of(c) == std::pair<std::string, std::string>{
                             "blockQ", "blockQ=0 is not allowed: blockQ is the query block size (query rows per tile) and must be at least 1."});
    c = tiled(base, 2, -3);
    CHECK(error_of(c).first == "blockK");
    c = tiled(seeded(1, 16384, 768, 12), 2, 2);
    c.snapshots = mha::Snapshots::none;
    CHECK(error_of(c) == std::pair<std::string, std::string>{
                             "blockQ", "blockQ=2 and blockK=2 cut the 12 score matrices of 16384×16384 into 805,306,368 tiles, more than one "
                                       "run may go through (16,777,216). Raise blockQ and blockK (64 and 128 are fast)."});
    c = tiled(seeded(1, 32768, 768, 12), 128, 128);
    c.snapshots = mha::Snapshots::none;
    CHECK(error_of(c) == std::pair<std::string, std::string>{
                             "T", "This config's attention takes 3.3e+12 floating-point operations (4·B·H·Tq·Tk·D), more than one tiled run "
                                  "may do (1.1e+12, about a minute at this engine's speed). Lower T, Tk, B or H."});
    CHECK_THROWS_WITH(mha::config_from_json(R"({"B":1,"T":2,"C":2,"H":1,"algorithm":"flash"})"),
                      "algorithm must be \"naive\", \"tiled\" or \"incremental\", not the string \"flash\".");
    CHECK_THROWS_WITH(mha::config_from_json(R"({"B":1,"T":2,"C":2,"H":1,"block_q":2})"),
                      doctest::Contains("(did you mean \"blockQ\"?)"));
    // A slice of a whole-only step names the steps that take one.
    mha::RunOptions options;
    options.only = mha::StepRequest{"q", 0, 0};
    CHECK_THROWS_WITH(mha::validate(tiled(base, 2, 2), options),
                      "A slice {batch, head} takes both, and only of tile_scores, tile_max, tile_correction, tile_probs, tile_sum, "
                      "tile_output, tile_context; \"q\" is asked for whole.");
}
