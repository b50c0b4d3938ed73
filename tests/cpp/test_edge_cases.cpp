// Numerical edge cases: huge values, rows of equal scores, a single key, D = 1, H = C,
// fully masked rows, T = 1. The promises: no NaN or Infinity in the attention weights or the output;
// every softmax row sums to 1, or to 0 for a fully masked row (with a warning). Values whose
// products would overflow float32 are refused by validate(), naming the tensor and the limit.
// Runs natively and in WebAssembly (ctest runs this binary both ways).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mha/config_json.hpp"
#include "mha/error.hpp"
#include "mha/messages.hpp"
#include "mha/forward.hpp"

namespace {

mha::Config make(std::int64_t B, std::int64_t T, std::int64_t C, std::int64_t H) {
    mha::Config c;
    c.B = B; c.T = T; c.C = C; c.H = H; c.seed = 5;
    return c;
}

std::vector<float> filled(std::size_t count, float value) { return std::vector<float>(count, value); }

// ±value, alternating, so that sums do not cancel to a constant.
std::vector<float> alternating(std::size_t count, float value) {
    std::vector<float> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = (i % 3 == 1) ? -value : value;
    return v;
}

mha::Weights weights_of(std::size_t C, std::size_t HD, std::size_t KD, float value, bool bias) {
    mha::Weights w;
    w.Wq = alternating(C * HD, value);
    w.Wk = alternating(C * KD, value);
    w.Wv = alternating(C * KD, value);
    w.Wo = alternating(C * C, value);
    if (bias) {
        w.bq = filled(HD, value);
        w.bk = filled(KD, value);
        w.bv = filled(KD, value);
        w.bo = filled(C, value);
    }
    return w;
}

std::size_t count_non_finite(const std::vector<float>& values) {
    std::size_t n = 0;
    for (float v : values) n += !std::isfinite(v);
    return n;
}

// Every promise about one run: finite weights and output, rows summing to 1 (or 0 with a warning).
void check_promises(const mha::Trace& t) {
    const auto& weights = t.step("weights").data;
    CHECK(count_non_finite(weights) == 0);
    CHECK(count_non_finite(t.output) == 0);
    const std::size_t Tk = t.dims.Tk;
    std::size_t zero_rows = 0;
    for (std::size_t row = 0; row * Tk < weights.size(); ++row) {
        double sum = 0;
        for (std::size_t j = 0; j < Tk; ++j) {
            const float a = weights[row * Tk + j];
            CHECK((a >= 0.0f && a <= 1.0f));
            sum += a;
        }
        if (sum == 0.0) ++zero_rows;
        else CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
    }
    CHECK((zero_rows == 0) == t.warnings.empty());
}

struct Refusal {
    std::string code, field, message;
};

Refusal refusal_of(const mha::Config& c) {
    try {
        mha::forward(c);
    } catch (const mha::MhaError& e) {
        return {e.code(), e.field(), e.what()};
    }
    return {};
}

}  // namespace

TEST_CASE("edge: ±1e30 in x overflows float32 in the projections and is refused, naming x and the limit") {
    auto c = make(1, 3, 4, 2);
    c.x = alternating(12, 1e30f);
    const Refusal r = refusal_of(c);
    CHECK(r.code == "bad_value");
    CHECK(r.field == "x");
    CHECK(r.message.rfind("x[0] is 1.0e+30 in size: with these values the attention scores Q·Kᵀ could reach 8.0e+60", 0) == 0);
    CHECK(r.message.find("beyond the 8.5e+37 that float32 holds safely") != std::string::npos);
    CHECK(r.message.find("values within ±1e4 are always safe") != std::string::npos);
}

TEST_CASE("edge: ±1e30 in the weights is refused, naming the weight with the largest value") {
    // Wq and Wk of 1e30 make Q and K about 1e30 each, and their product overflows.
    auto c = make(2, 2, 4, 2);
    c.weights = weights_of(4, 4, 4, 0.5f, true);
    c.weights->Wq[2] = 1e30f;
    c.weights->Wk[5] = -2e30f;
    const Refusal r = refusal_of(c);
    CHECK(r.code == "bad_value");
    CHECK(r.field == "weights.Wk");
    CHECK(r.message.rfind("weights.Wk[5] is 2.0e+30 in size: with these values the attention scores Q·Kᵀ could reach", 0) == 0);

    // Scores overflow although Q, K and V are finite: 1e19 · 1e19 > 3.4e38.
    auto s = make(1, 2, 1, 1);
    s.x = {1e19f, -1e19f};
    s.weights = weights_of(1, 1, 1, 1.0f, false);
    s.bias = false;
    const Refusal rs = refusal_of(s);
    CHECK(rs.field == "x");
    CHECK(rs.message.find("the attention scores Q·Kᵀ could reach 1.0e+38") != std::string::npos);
}

TEST_CASE("edge: ±1e30 is accepted where the products stay finite, and the results are finite") {
    // x of 1e-30 times weights of 1e30: every product is about 1.
    auto c = make(2, 3, 4, 2);
    c.x = alternating(24, 1e-30f);
    c.weights = weights_of(4, 4, 4, 1e30f, false);
    c.bias = false;
    check_promises(mha::forward(c));

    // One weight of 1e30 in Wo alone: the output reaches about 1e31, finite, and is computed.
    auto wo = make(2, 2, 4, 2);
    wo.weights = weights_of(4, 4, 4, 0.5f, true);
    wo.weights->Wo[5] = -1e30f;
    const mha::Trace big_output = mha::forward(wo);
    check_promises(big_output);
    double largest_output = 0;
    for (float y : big_output.output) largest_output = std::max(largest_output, double(std::fabs(y)));
    CHECK(largest_output > 1e29);

    // The largest values always accepted, ±1e4 everywhere: huge scores, one-hot softmax, no NaN.
    auto big = make(2, 3, 8, 2);
    big.mask = mha::MaskKind::causal;
    big.x = alternating(48, 1e4f);
    big.weights = weights_of(8, 8, 8, 1e4f, true);
    const mha::Trace t = mha::forward(big);
    check_promises(t);
    double largest_score = 0;
    for (float s : t.step("scores").data) largest_score = std::max(largest_score, double(std::fabs(s)));
    CHECK(largest_score > 1e10);  // far past exp()'s range: only the max subtraction keeps it finite
}

TEST_CASE("edge: rows of equal scores get uniform weights") {
    // Wq = 0 and bq = 0 make every query 0, so every score is 0 and softmax is uniform over the keys.
    auto c = make(2, 3, 6, 3);
    c.Tk = 5;
    c.weights = weights_of(6, 6, 6, 0.25f, true);
    c.weights->Wq = filled(36, 0.0f);
    c.weights->bq = filled(6, 0.0f);
    const mha::Trace t = mha::forward(c);
    check_promises(t);
    for (float s : t.step("scores").data) CHECK(s == 0.0f);
    for (float a : t.step("weights").data) CHECK(a == doctest::Approx(0.2f).epsilon(1e-7));

    // Equal scores with padding: uniform over the keys that are not masked.
    c.key_lengths = std::vector<std::int64_t>{4, 1};
    const mha::Trace p = mha::forward(c);
    check_promises(p);
    const auto& w = p.step("weights").data;
    for (std::size_t j = 0; j < 5; ++j) {
        CHECK(w[j] == doctest::Approx(j < 4 ? 0.25f : 0.0f));            // batch row 0, head 0, query 0
        CHECK(w[3 * 3 * 5 + j] == doctest::Approx(j < 1 ? 1.0f : 0.0f));  // batch row 1, head 0, query 0
    }
}

TEST_CASE("edge: a single key (Tk = 1) takes all the weight") {
    auto c = make(2, 4, 8, 2);
    c.Tk = 1;
    const mha::Trace t = mha::forward(c);
    check_promises(t);
    for (float a : t.step("weights").data) CHECK(a == 1.0f);

    // Tk = 1 and causal: query 0 sees key 0; every later query too (j = 0 is never > i).
    c.mask = mha::MaskKind::causal;
    check_promises(mha::forward(c));
}

TEST_CASE("edge: D = 1 and H = C (one feature per head)") {
    auto c = make(2, 3, 4, 4);
    const mha::Trace t = mha::forward(c);
    CHECK(t.dims.D == 1);
    check_promises(t);
    // With D = 1 the scale is 1/√1: scaled equals the scores.
    CHECK(t.step("scaled").data == t.step("scores").data);

    auto mqa = make(1, 5, 6, 6);  // H = C with one shared K/V head
    mqa.Hkv = 1;
    mqa.mask = mha::MaskKind::causal;
    check_promises(mha::forward(mqa));
}

TEST_CASE("edge: fully masked rows have weights 0, a warning, and a finite output") {
    auto c = make(3, 2, 4, 2);
    c.key_lengths = std::vector<std::int64_t>{0, 2, 0};
    c.bias = false;
    const mha::Trace t = mha::forward(c);
    check_promises(t);
    REQUIRE(t.warnings.size() == 2);  // batch rows 0 and 2, both queries of each in one warning
    CHECK(mha::message_of(t.warnings[0]) ==
          "Batch row 0, queries 0–1: every key is masked, so the attention weights are all 0 (PyTorch returns NaN for such a row).");
    CHECK(mha::message_of(t.warnings[1]).rfind("Batch row 2, queries 0–1:", 0) == 0);
    // Without bias a row that attends to nothing has context 0 and output 0.
    for (std::size_t i = 0; i < 2 * 4; ++i) CHECK(t.output[i] == 0.0f);

    // Causal plus padding to length 0 in cross-attention: every row of batch row 0 is masked.
    auto x = make(2, 3, 4, 1);
    x.Tk = 2;
    x.mask = mha::MaskKind::causal;
    x.key_lengths = std::vector<std::int64_t>{0, 1};
    const mha::Trace cx = mha::forward(x);
    check_promises(cx);
    CHECK(cx.warnings.size() == 1);  // batch row 0, queries 0–2
}

TEST_CASE("edge: T = 1, alone and with every feature") {
    auto c = make(1, 1, 2, 1);
    const mha::Trace t = mha::forward(c);
    check_promises(t);
    CHECK(t.step("weights").data == std::vector<float>{1.0f});

    auto all = make(2, 1, 8, 4);
    all.Tk = 3;
    all.Hkv = 2;
    all.mask = mha::MaskKind::causal;
    all.key_lengths = std::vector<std::int64_t>{2, 3};
    check_promises(mha::forward(all));
}

TEST_CASE("edge: a large spread of scores underflows exp() to exact zeros, not NaN") {
    // One key far ahead of the others: exp(s - max) is 0 for the rest, and the row is one-hot.
    auto c = make(1, 1, 1, 1);
    c.Tk = 3;
    c.bias = false;
    c.x = {1.0f};
    c.kv = {1e3f, -1e3f, 0.0f};
    c.weights = weights_of(1, 1, 1, 1.0f, false);
    const mha::Trace t = mha::forward(c);
    check_promises(t);
    CHECK(t.step("weights").data == std::vector<float>{1.0f, 0.0f, 0.0f});
}

TEST_CASE("edge: a JSON number past float32's range is refused by name, not turned into Infinity") {
    Refusal r;
    try {
        mha::config_from_json(R"({"B": 1, "T": 1, "C": 2, "H": 1, "x": [0.5, 1e39]})");
    } catch (const mha::MhaError& e) {
        r = {e.code(), e.field(), e.what()};
    }
    CHECK(r.code == "non_finite");
    CHECK(r.field == "x");
    CHECK(r.message == "x[1]=1e+39 is beyond float32's range (±3.4e+38): tensors are float32.");
    // The largest float32 itself is a number like any other (and validate() judges its products).
    CHECK_NOTHROW(mha::config_from_json(R"({"B": 1, "T": 1, "C": 2, "H": 1, "x": [0.5, 3.4e38]})"));
}

TEST_CASE("edge: scores at the accepted limit, ±8.1e37, give a one-hot softmax and a finite output") {
    // C = D = 1 and identity weights: q = k = x, so scores are x_i · x_j = ±8.1e37, just under the
    // 8.5e37 that validate() accepts; s − max(s) reaches −1.6e38 and exp() of it must be exactly 0.
    auto c = make(1, 2, 1, 1);
    c.bias = false;
    c.x = {9e18f, -9e18f};
    c.weights = weights_of(1, 1, 1, 1.0f, false);
    const mha::Trace t = mha::forward(c);
    check_promises(t);
    CHECK(t.step("scores").data[1] == doctest::Approx(-8.1e37).epsilon(1e-6));
    CHECK(t.step("weights").data == std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f});
    CHECK(t.output == std::vector<float>{9e18f, -9e18f});

    c.x = {1e19f, -1e19f};  // 1e38: past the limit, refused
    CHECK(refusal_of(c).code == "bad_value");
}
