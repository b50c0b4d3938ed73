#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "mha/error.hpp"
#include "mha/messages.hpp"
#include "mha/forward.hpp"
#include "reference.hpp"

namespace {

using Shape = std::vector<std::size_t>;
using Axes = std::vector<std::string>;
using Strides = std::vector<std::ptrdiff_t>;

mha::Config make(std::int64_t B, std::int64_t T, std::int64_t C, std::int64_t H) {
    mha::Config c;
    c.B = B; c.T = T; c.C = C; c.H = H; c.seed = 3;
    return c;
}

std::vector<std::string> ids_of(const mha::Trace& t) {
    std::vector<std::string> ids;
    for (const auto& s : t.steps) ids.emplace_back(s.id);
    return ids;
}

}  // namespace

TEST_CASE("the steps come in walkthrough order with their shapes and axes (T, Tk, D, H all unequal)") {
    // B=2 T=3 Tk=5 C=12 H=3 (D=4): no two sizes alike, so a swapped axis shows.
    auto c = make(2, 3, 12, 3);
    c.Tk = 5;
    const mha::Trace t = mha::forward(c);
    const std::vector<std::pair<std::string, std::pair<Shape, Axes>>> expected = {
        {"x", {{2, 3, 12}, {"B", "T", "C"}}},
        {"source", {{2, 5, 12}, {"B", "Tk", "C"}}},
        {"q", {{2, 3, 12}, {"B", "T", "H·D"}}},
        {"k", {{2, 5, 12}, {"B", "Tk", "H·D"}}},
        {"v", {{2, 5, 12}, {"B", "Tk", "H·D"}}},
        {"q_split", {{2, 3, 3, 4}, {"B", "T", "H", "D"}}},
        {"k_split", {{2, 5, 3, 4}, {"B", "Tk", "H", "D"}}},
        {"v_split", {{2, 5, 3, 4}, {"B", "Tk", "H", "D"}}},
        {"q_heads", {{2, 3, 3, 4}, {"B", "H", "T", "D"}}},
        {"k_heads", {{2, 3, 5, 4}, {"B", "H", "Tk", "D"}}},
        {"v_heads", {{2, 3, 5, 4}, {"B", "H", "Tk", "D"}}},
        {"k_t", {{2, 3, 4, 5}, {"B", "H", "D", "Tk"}}},
        {"scores", {{2, 3, 3, 5}, {"B", "H", "Tq", "Tk"}}},
        {"scaled", {{2, 3, 3, 5}, {"B", "H", "Tq", "Tk"}}},
        {"masked", {{2, 3, 3, 5}, {"B", "H", "Tq", "Tk"}}},
        {"weights", {{2, 3, 3, 5}, {"B", "H", "Tq", "Tk"}}},
        {"context", {{2, 3, 3, 4}, {"B", "H", "Tq", "D"}}},
        {"context_t", {{2, 3, 3, 4}, {"B", "Tq", "H", "D"}}},
        {"concat", {{2, 3, 12}, {"B", "Tq", "C"}}},
        {"output", {{2, 3, 12}, {"B", "Tq", "C"}}},
    };
    REQUIRE(t.steps.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto& s = t.steps[i];
        INFO("step " << i << " " << s.id);
        CHECK(s.id == expected[i].first);
        CHECK(s.shape == expected[i].second.first);
        CHECK(s.axes() == expected[i].second.second);
        std::size_t numel = 1;
        for (auto e : s.shape) numel *= e;
        CHECK(s.numel == numel);
        CHECK(s.data.size() == numel);
        CHECK(s.bytes == numel * 4);
        CHECK(s.axes().size() == s.shape.size());
    }
}

TEST_CASE("self-attention has no source step; GQA adds the sharing steps") {
    CHECK(ids_of(mha::forward(make(2, 4, 8, 2))) ==
          std::vector<std::string>{"x", "q", "k", "v", "q_split", "k_split", "v_split", "q_heads", "k_heads", "v_heads",
                                   "k_t", "scores", "scaled", "masked", "weights", "context", "context_t", "concat",
                                   "output"});
    auto c = make(1, 5, 24, 6);
    c.Hkv = 2;
    const mha::Trace t = mha::forward(c);
    const auto ids = ids_of(t);
    const auto at = std::find(ids.begin(), ids.end(), "k_shared");
    REQUIRE(at != ids.end());
    CHECK(*(at + 1) == "v_shared");
    CHECK(*(at + 2) == "k_t");
    CHECK(t.step("k_heads").shape == Shape{1, 2, 5, 4});
    CHECK(t.step("k_shared").shape == Shape{1, 6, 5, 4});
    CHECK(t.step("k_shared").axes() == Axes{"B", "H", "Tk", "D"});
    CHECK(t.step("k").shape == Shape{1, 5, 8});
    CHECK(t.step("k").axes() == Axes{"B", "Tk", "Hkv·D"});
    CHECK(t.step("k_heads").axes() == Axes{"B", "Hkv", "Tk", "D"});
}

TEST_CASE("a reshape is a view, a transpose permutes strides, merging heads copies") {
    const mha::Trace t = mha::forward(make(2, 3, 12, 3));  // T=3, C=12, H=3, D=4
    // q is [2,3,12]: row-major strides.
    CHECK(t.step("q").strides == Strides{36, 12, 1});
    // q_split [2,3,3,4] reads the same buffer: strides of a contiguous [2,3,3,4].
    CHECK(t.step("q_split").strides == Strides{36, 12, 4, 1});
    CHECK(t.step("q_split").contiguous);
    // q_heads [2,3,3,4] (B,H,T,D) is the same buffer with T and H strides swapped.
    CHECK(t.step("q_heads").strides == Strides{36, 4, 12, 1});
    CHECK_FALSE(t.step("q_heads").contiguous);
    // Kᵀ [B,H,D,Tk] of k's buffer: D has stride 1, Tk has stride H·D.
    CHECK(t.step("k_t").strides == Strides{36, 4, 1, 12});
    CHECK_FALSE(t.step("k_t").contiguous);
    CHECK(t.step("context_t").strides == Strides{36, 4, 12, 1});
    CHECK_FALSE(t.step("context_t").contiguous);
    CHECK(t.step("concat").strides == Strides{36, 12, 1});
    CHECK(t.step("concat").contiguous);
}

TEST_CASE("reshape and transpose keep the values and say so; computing steps change them") {
    auto c = make(2, 3, 12, 3);
    c.mask = mha::MaskKind::causal;
    const mha::Trace t = mha::forward(c);
    const std::map<std::string, bool> changes = {
        {"x", false}, {"q", true}, {"k", true}, {"v", true}, {"q_split", false}, {"k_split", false},
        {"v_split", false}, {"q_heads", false}, {"k_heads", false}, {"v_heads", false}, {"k_t", false},
        {"scores", true}, {"scaled", true}, {"masked", true}, {"weights", true}, {"context", true},
        {"context_t", false}, {"concat", false}, {"output", true}};
    for (const auto& s : t.steps) {
        INFO(s.id);
        CHECK(s.changes_values == changes.at(std::string(s.id)));
    }
    // The values of a reshape are the same numbers in the same order; a transpose reorders them.
    CHECK(t.step("q_split").data == t.step("q").data);
    CHECK(t.step("q_heads").data != t.step("q_split").data);
    auto sorted = [](std::vector<float> v) { std::sort(v.begin(), v.end()); return v; };
    CHECK(sorted(t.step("q_heads").data) == sorted(t.step("q").data));
    // q_heads[b, h, t, d] == q[b, t, h·D + d]
    const auto& q = t.step("q").data;
    const auto& qh = t.step("q_heads").data;
    CHECK(qh[((1 * 3 + 2) * 3 + 1) * 4 + 3] == q[(1 * 3 + 1) * 12 + 2 * 4 + 3]);

    // With no mask the mask step changes nothing, and with D=1 neither does the scale.
    const mha::Trace plain = mha::forward(make(1, 3, 4, 4));
    CHECK_FALSE(plain.step("masked").changes_values);
    CHECK_FALSE(plain.step("scaled").changes_values);
}

TEST_CASE("softmax rows sum to 1 and masked keys get weight 0") {
    auto c = make(2, 5, 12, 3);
    c.Tk = 6;
    c.mask = mha::MaskKind::causal;
    c.key_lengths = std::vector<std::int64_t>{6, 2};
    const mha::Trace t = mha::forward(c);
    const auto& w = t.step("weights").data;
    const auto& m = t.step("masked").data;
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t h = 0; h < 3; ++h)
            for (std::size_t i = 0; i < 5; ++i) {
                double sum = 0;
                for (std::size_t j = 0; j < 6; ++j) {
                    const std::size_t at = ((b * 3 + h) * 5 + i) * 6 + j;
                    const bool masked = j > i || j >= static_cast<std::size_t>((*c.key_lengths)[b]);
                    INFO("b=" << b << " h=" << h << " i=" << i << " j=" << j);
                    CHECK((std::isinf(m[at]) && m[at] < 0) == masked);
                    if (masked) CHECK(w[at] == 0.0f);
                    sum += w[at];
                }
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
            }
    CHECK(t.warnings.empty());
}

TEST_CASE("a query whose keys are all masked gets zero weights and a warning, not NaN") {
    auto c = make(2, 3, 8, 2);
    c.key_lengths = std::vector<std::int64_t>{3, 0};
    const mha::Trace t = mha::forward(c);
    REQUIRE(t.warnings.size() == 1);  // batch row 1, its 3 queries in one warning
    CHECK(mha::message_of(t.warnings[0]) == "Batch row 1, queries 0–2: every key is masked, so the attention weights are all 0 "
                                            "(PyTorch returns NaN for such a row).");
    CHECK(mha::message_of(t.warnings[0], mha::Lang::zh) ==
          "批次第 1 行、查询 0–2：所有键都被掩码，因此注意力权重全为 0（PyTorch 对这样的行返回 NaN）。");
    for (float value : t.step("weights").data) CHECK(std::isfinite(value));
    for (float value : t.output) CHECK(std::isfinite(value));
}

TEST_CASE("the parameter count is 4C² + 4C whatever H is; GQA has fewer") {
    for (std::int64_t H : {1, 2, 3, 4, 6, 12}) {
        auto c = make(1, 2, 12, H);
        CHECK(mha::forward(c).parameter_count == 4 * 12 * 12 + 4 * 12);
        c.bias = false;
        CHECK(mha::forward(c).parameter_count == 4 * 12 * 12);
    }
    auto c = make(1, 2, 24, 6);  // D = 4
    c.Hkv = 2;
    const mha::Trace t = mha::forward(c);
    CHECK(t.parameter_count == 2 * 24 * 24 + 2 * 24 * 8 + (24 + 2 * 8 + 24));
    CHECK(t.kv_cache_bytes_per_token == 2 * 2 * 4 * 4);
}

TEST_CASE("the trace matches an independent plain-loop reference across features") {
    struct Case { const char* name; std::int64_t B, T, Tk, C, H, Hkv; bool causal, padding, bias, cross; };
    const Case cases[] = {
        {"self", 2, 5, 5, 12, 3, 3, false, false, true, false},
        {"causal", 2, 6, 6, 8, 2, 2, true, false, true, false},
        {"padding no bias", 3, 4, 4, 12, 4, 4, false, true, false, false},
        {"cross", 2, 3, 7, 12, 3, 3, false, false, true, true},
        {"cross causal padding", 2, 4, 6, 8, 2, 2, true, true, true, true},
        {"gqa", 2, 5, 5, 24, 6, 2, true, false, true, false},
        {"mqa cross", 1, 3, 4, 16, 4, 1, false, true, true, true},
        {"D=1", 1, 3, 3, 5, 5, 5, false, false, true, false},
    };
    std::uint32_t seed = 100;
    for (const auto& k : cases) {
        INFO(k.name);
        mha::Config c = make(k.B, k.T, k.C, k.H);
        c.Tk = k.Tk; c.Hkv = k.Hkv; c.bias = k.bias;
        c.mask = k.causal ? mha::MaskKind::causal : mha::MaskKind::none;
        if (k.padding) {
            std::vector<std::int64_t> lengths;
            for (std::int64_t b = 0; b < k.B; ++b) lengths.push_back(k.Tk - b);
            c.key_lengths = lengths;
        }
        const std::size_t C = k.C, HD = C, KD = (C / k.H) * k.Hkv;
        c.x = ref::noise(k.B * k.T * C, seed++);
        if (k.cross) c.kv = ref::noise(k.B * k.Tk * C, seed++);
        mha::Weights w;
        const float s = 1.0f / std::sqrt(float(C));
        w.Wq = ref::noise(C * HD, seed++, s); w.Wk = ref::noise(C * KD, seed++, s);
        w.Wv = ref::noise(C * KD, seed++, s); w.Wo = ref::noise(C * C, seed++, s);
        if (k.bias) { w.bq = ref::noise(HD, seed++, s); w.bk = ref::noise(KD, seed++, s);
                      w.bv = ref::noise(KD, seed++, s); w.bo = ref::noise(C, seed++, s); }
        c.weights = w;

        const mha::Trace t = mha::forward(c);
        const ref::Result r = ref::attention(k.B, k.T, k.Tk, C, k.H, k.Hkv, *c.x, c.kv ? *c.kv : std::vector<float>{}, w,
                                             k.causal, c.key_lengths ? *c.key_lengths : std::vector<std::int64_t>{});
        for (const auto& check : {std::pair{"q", &r.q}, {"scores", &r.scores}, {"weights", &r.weights},
                                  {"output", &r.output}}) {
            const char* id = check.first;
            const auto diff = ref::compare(t.step(id).data, *check.second, 1e-5);
            INFO(std::string(id) << ": max |diff| " << diff.max_abs << ", first index over 1e-5: " << diff.first_bad);
            CHECK(diff.first_bad == -1);
        }
        CHECK(t.output == t.step("output").data);
    }
}

TEST_CASE("under a mask, products skipped past each row block's last key leave every value the same") {
    // The products go 32 query rows at a time under a mask (forward.cpp), so these sizes span
    // several blocks, a partial last one, a row with no key at all, and Tk ≠ T.
    struct Case { const char* name; std::int64_t B, T, Tk, C, H, Hkv; bool causal; std::vector<std::int64_t> lengths; };
    const Case cases[] = {
        {"causal", 1, 70, 70, 12, 3, 3, true, {}},
        {"causal cross, Tk > T", 1, 45, 80, 8, 2, 2, true, {}},
        {"padding", 3, 40, 40, 8, 2, 1, false, {40, 33, 0}},
        {"causal and padding", 2, 66, 66, 12, 4, 2, true, {66, 17}},
    };
    std::uint32_t seed = 300;
    for (const auto& k : cases) {
        INFO(k.name);
        mha::Config c = make(k.B, k.T, k.C, k.H);
        c.Tk = k.Tk; c.Hkv = k.Hkv; c.seed = seed++;
        c.mask = k.causal ? mha::MaskKind::causal : mha::MaskKind::none;
        if (!k.lengths.empty()) c.key_lengths = k.lengths;
        const mha::Trace full = mha::forward(c);
        // Against the independent plain loop, which sums over every key.
        const std::vector<float> kv = k.Tk != k.T ? full.step("source").data : std::vector<float>{};
        const ref::Result r = ref::attention(k.B, k.T, k.Tk, k.C, k.H, k.Hkv, full.step("x").data, kv, full.weights,
                                             k.causal, k.lengths);
        for (const auto& check : {std::pair{"weights", &r.weights}, {"output", &r.output}}) {
            const auto diff = ref::compare(full.step(check.first).data, *check.second, 1e-5);
            INFO(check.first << ": max |diff| " << diff.max_abs << ", first index over 1e-5: " << diff.first_bad);
            CHECK(diff.first_bad == -1);
        }
        // Without snapshots the masked scores are not computed at all: the same output, bit for bit.
        mha::Config lean = c;
        lean.snapshots = mha::Snapshots::none;
        CHECK(mha::forward(lean).output == full.output);
        // A lazy run's head of the weights, whose scores are not shown either: the eager run's values.
        mha::Config asked = c;
        asked.snapshots = mha::Snapshots::lazy;
        mha::RunOptions options;
        options.only = mha::StepRequest{"weights", k.B - 1, k.H - 1};
        const std::vector<float>& all = full.step("weights").data;
        const std::size_t head = static_cast<std::size_t>(k.T * k.Tk), at = (static_cast<std::size_t>(k.B * k.H) - 1) * head;
        CHECK(mha::forward(asked, options).steps[0].data == std::vector<float>(all.begin() + at, all.begin() + at + head));
    }
}

TEST_CASE("without snapshots the output is the same and no step is kept") {
    auto c = make(2, 4, 8, 2);
    const mha::Trace full = mha::forward(c);
    c.snapshots = mha::Snapshots::none;
    const mha::Trace lean = mha::forward(c);
    CHECK(lean.steps.empty());
    CHECK(lean.output == full.output);
    CHECK(lean.flops == full.flops);
    CHECK_THROWS_WITH_AS(lean.step("weights"), "There is no step \"weights\" in this run (it was computed without snapshots).",
                         mha::MhaError);
}

TEST_CASE("the same seed gives the same data; another seed does not; x does not depend on H") {
    const mha::Trace a = mha::forward(make(2, 4, 8, 2));
    const mha::Trace b = mha::forward(make(2, 4, 8, 2));
    for (std::size_t i = 0; i < a.steps.size(); ++i) CHECK(ref::checksum(a.steps[i].data) == ref::checksum(b.steps[i].data));
    auto other = make(2, 4, 8, 2);
    other.seed = 4;
    CHECK(mha::forward(other).step("x").data != a.step("x").data);
    CHECK(mha::forward(make(2, 4, 8, 4)).step("x").data == a.step("x").data);
}

TEST_CASE("snapshot_bytes counts exactly the bytes the trace records") {
    for (auto c : {make(2, 4, 8, 2), make(1, 3, 24, 6)}) {
        c.Tk = 5;
        c.Hkv = 2;
        const mha::Trace t = mha::forward(c);
        std::uint64_t recorded = 0;
        for (const auto& s : t.steps) recorded += s.data.size() * sizeof(float);
        CHECK(recorded == mha::snapshot_bytes(t.dims));
        CHECK(t.snapshot_bytes == recorded);
    }
}

TEST_CASE("FLOPs: the two attention products are 2·B·H·Tq·Tk·D each") {
    auto c = make(2, 3, 12, 3);
    c.Tk = 5;
    const mha::Trace t = mha::forward(c);
    CHECK(t.step("scores").flops == 2.0 * 2 * 3 * 3 * 5 * 4);
    CHECK(t.step("context").flops == 2.0 * 2 * 3 * 3 * 5 * 4);
    CHECK(t.step("q").flops == 2.0 * 2 * 3 * 12 * 12 + 2 * 3 * 12);
    CHECK(t.step("q_heads").flops == 0);
    double sum = 0;
    for (const auto& s : t.steps) sum += s.flops;
    CHECK(t.flops == sum);
}

TEST_CASE("a reshape of a contiguous buffer and a merge hold their input's values in the same order") {
    for (const bool causal : {false, true}) {
        auto c = make(2, 3, 12, 3);
        if (causal) c.mask = mha::MaskKind::causal;
        const mha::Trace t = mha::forward(c);
        for (const auto& view : {std::pair{"q_split", "q"}, {"k_split", "k"}, {"v_split", "v"}, {"concat", "context_t"}}) {
            INFO(view.first);
            CHECK(t.step(view.first).data == t.step(view.second).data);
        }
        // A mask that hides nothing leaves the scaled scores as they are, and says so.
        CHECK((t.step("masked").data == t.step("scaled").data) == !causal);
        CHECK(t.step("masked").changes_values == causal);
    }
}
