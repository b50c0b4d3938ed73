// The backward pass: every d_ step and parameter gradient against PyTorch autograd (float64,
// tests/fixtures), every gradient against finite differences of a double-precision plain-loop
// reference, the softmax backward on masked and fully masked rows, the step contract, and the
// errors of dOutput.
#include <doctest/doctest.h>

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mha/backward.hpp"
#include "mha/catalogue.hpp"
#include "mha/config_json.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "reference.hpp"
#include "reference_double.hpp"

namespace {

std::vector<nlohmann::json> fixtures() {
    std::vector<std::string> files;
    if (DIR* dir = opendir(MHA_FIXTURES_DIR)) {
        while (dirent* entry = readdir(dir)) {
            const std::string name = entry->d_name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) files.push_back(std::string(MHA_FIXTURES_DIR) + "/" + name);
        }
        closedir(dir);
    }
    std::sort(files.begin(), files.end());
    std::vector<nlohmann::json> out;
    for (const auto& file : files) {
        std::ifstream in(file);
        std::stringstream text;
        text << in.rdbuf();
        out.push_back(nlohmann::json::parse(text.str()));
    }
    return out;
}

// 1e-5 × max(1, max |expected|): the tolerance for gradients, whose size grows with C.
double tolerance_for(const std::vector<double>& expected) {
    double peak = 1;
    for (const double e : expected) peak = std::max(peak, std::fabs(e));
    return 1e-5 * peak;
}

void check_close(const std::string& what, const std::vector<float>& actual, const std::vector<double>& expected) {
    REQUIRE_MESSAGE(actual.size() == expected.size(), what << ": " << actual.size() << " values, expected " << expected.size());
    const double tolerance = tolerance_for(expected);
    double worst = 0;
    long first_bad = -1;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double diff = std::fabs(double(actual[i]) - expected[i]);
        if (!(diff <= worst)) worst = diff;
        if (!(diff <= tolerance) && first_bad < 0) first_bad = long(i);
    }
    INFO(what << ": max |diff| " << worst << " (tolerance " << tolerance << "), first index over it: " << first_bad);
    CHECK(first_bad == -1);
}

mha::Config config_with_d_output(const nlohmann::json& fixture) {
    nlohmann::json config = fixture.at("config");
    config["dOutput"] = fixture.at("dOutput");
    return mha::config_from_json(config.dump());
}

mha::Config small(std::int64_t B, std::int64_t T, std::int64_t C, std::int64_t H) {
    mha::Config c;
    c.B = B; c.T = T; c.C = C; c.H = H;
    return c;
}

void seed_d_output(mha::Config& c, std::uint32_t seed) {
    c.d_output = ref::noise(static_cast<std::size_t>(c.B * c.T * c.C), seed);
}

}  // namespace

TEST_CASE("every gradient matches PyTorch autograd within 1e-5 × max(1, max |expected|)") {
    const auto all = fixtures();
    REQUIRE(all.size() >= 13);
    for (const auto& fixture : all) {
        const std::string name = fixture.at("name");
        INFO("fixture " << name);
        const mha::Trace trace = mha::forward(config_with_d_output(fixture));
        std::size_t compared = 0;
        for (const auto& item : fixture.at("gradients").items()) {
            const std::string id = item.key();
            const auto& expected = item.value();
            const auto values = expected.at("data").get<std::vector<double>>();
            const mha::Snapshot& step = trace.step(id);
            CHECK_MESSAGE(step.shape == expected.at("shape").get<std::vector<std::size_t>>(), id);
            check_close(name + " " + id, step.data, values);
            ++compared;
        }
        // Every backward step of the run has a PyTorch value to meet.
        std::size_t backward_steps = 0;
        for (const mha::Snapshot& s : trace.steps) backward_steps += mha::find_step(s.id)->pass == mha::Pass::backward;
        CHECK(compared == backward_steps);
        // The gradients handed back are the recorded steps' values.
        const auto& g = fixture.at("gradients");
        check_close(name + " gradients.x", trace.gradients.x, g.at("d_x").at("data").get<std::vector<double>>());
        if (g.contains("d_source")) check_close(name + " gradients.kv", trace.gradients.kv, g.at("d_source").at("data").get<std::vector<double>>());
        for (const mha::WeightField& f : mha::weight_fields) {
            std::string id = std::string("d_") + f.name;
            id[2] = static_cast<char>(std::tolower(id[2]));
            if (!g.contains(id)) continue;
            check_close(name + " gradients." + f.name, trace.gradients.weights.*f.member, g.at(id).at("data").get<std::vector<double>>());
        }
    }
}

TEST_CASE("a run with dOutput records the forward steps, then the catalogue's backward steps in order") {
    auto gqa = small(2, 3, 24, 6);
    gqa.Tk = 5; gqa.Hkv = 2; gqa.mask = mha::MaskKind::causal;
    auto padded = small(2, 4, 8, 2);
    padded.key_lengths = std::vector<std::int64_t>{3, 0};
    padded.bias = false;
    for (mha::Config c : {small(2, 4, 8, 2), gqa, padded}) {
        seed_d_output(c, 5);
        const mha::Trace t = mha::forward(c);
        std::vector<std::string> expected;
        for (const mha::StepSpec& s : mha::catalogue())
            if (mha::appears(s, t.dims)) expected.push_back(s.id);
        REQUIRE(t.steps.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const mha::Snapshot& s = t.steps[i];
            const mha::StepSpec& spec = *mha::find_step(s.id);
            INFO(s.id);
            CHECK(s.id == expected[i]);
            CHECK(s.shape == mha::step_shape(spec, t.dims));
            CHECK(s.data.size() == s.numel);
            // A gradient has the shape and axes of its forward tensor.
            if (spec.pass == mha::Pass::backward && mha::find_step(s.id.substr(2))) {
                const mha::Snapshot& forward_step = t.step(s.id.substr(2) == "output" ? "output" : s.id.substr(2));
                CHECK(s.shape == forward_step.shape);
                CHECK(s.axes() == forward_step.axes());
            }
        }
        // Without dOutput, no backward step.
        c.d_output.reset();
        for (const mha::Snapshot& s : mha::forward(c).steps) CHECK(mha::find_step(s.id)->pass == mha::Pass::forward);
    }
}

TEST_CASE("GQA and plain MHA: ops and views of the gradients of K and V") {
    auto gqa = small(1, 3, 8, 4);
    gqa.Hkv = 2;
    seed_d_output(gqa, 3);
    const mha::Trace g = mha::forward(gqa);
    CHECK(g.step("d_k_heads").op == "sum");
    auto plain = small(1, 3, 8, 2);
    plain.Tk = 4;
    seed_d_output(plain, 3);
    const mha::Trace p = mha::forward(plain);
    CHECK(p.step("d_k_heads").op == "transpose");
    CHECK(p.step("d_v_heads").op == "matmul");
    CHECK_FALSE(p.step("d_q_heads").contiguous);
}

TEST_CASE("every gradient matches finite differences of a double-precision reference") {
    struct Case {
        const char* name;
        std::size_t B, T, Tk, C, H, Hkv;
        bool causal, cross, bias;
        std::vector<std::int64_t> key_lengths;
    };
    const Case cases[] = {
        {"self, causal", 2, 3, 3, 8, 2, 2, true, false, true, {}},
        {"cross, padding with a fully masked row", 2, 3, 4, 6, 3, 3, false, true, true, {4, 0}},
        {"GQA, causal and padding, no bias", 1, 4, 4, 8, 4, 2, true, false, false, {3}},
        {"MQA cross", 1, 2, 3, 6, 3, 1, false, true, true, {}},
    };
    for (const Case& k : cases) {
        INFO(k.name);
        const std::size_t D = k.C / k.H, HD = k.H * D, KD = k.Hkv * D;
        ref::Block m{k.B, k.T, k.Tk, k.C, k.H, k.Hkv, k.causal, k.key_lengths, k.cross, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
        auto values = [](std::size_t n, std::uint32_t seed, float scale) {
            const std::vector<float> f = ref::noise(n, seed, scale);
            return std::vector<double>(f.begin(), f.end());
        };
        m.x = values(k.B * k.T * k.C, 1, 1.0f);
        if (k.cross) m.kv = values(k.B * k.Tk * k.C, 2, 1.0f);
        m.Wq = values(k.C * HD, 3, 0.5f); m.Wk = values(k.C * KD, 4, 0.5f);
        m.Wv = values(k.C * KD, 5, 0.5f); m.Wo = values(k.C * k.C, 6, 0.5f);
        if (k.bias) { m.bq = values(HD, 7, 0.3f); m.bk = values(KD, 8, 0.3f); m.bv = values(KD, 9, 0.3f); m.bo = values(k.C, 10, 0.3f); }
        const std::vector<double> dY = values(k.B * k.T * k.C, 11, 1.0f);

        auto floats = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
        mha::Config c;
        c.B = k.B; c.T = k.T; c.Tk = k.Tk; c.C = k.C; c.H = k.H; c.Hkv = k.Hkv; c.bias = k.bias;
        c.mask = k.causal ? mha::MaskKind::causal : mha::MaskKind::none;
        if (!k.key_lengths.empty()) c.key_lengths = k.key_lengths;
        c.x = floats(m.x);
        if (k.cross) c.kv = floats(m.kv);
        c.weights = mha::Weights{floats(m.Wq), floats(m.Wk), floats(m.Wv), floats(m.Wo), floats(m.bq), floats(m.bk), floats(m.bv), floats(m.bo), {}, {}};
        c.d_output = floats(dY);
        c.snapshots = mha::Snapshots::none;
        const mha::Trace t = mha::forward(c);
        CHECK(t.steps.empty());  // snapshots off: the gradients alone

        const mha::Gradients& g = t.gradients;
        const std::pair<std::vector<double>*, const std::vector<float>*> tensors[] = {
            {&m.x, &g.x}, {&m.kv, &g.kv}, {&m.Wq, &g.weights.Wq}, {&m.Wk, &g.weights.Wk}, {&m.Wv, &g.weights.Wv},
            {&m.Wo, &g.weights.Wo}, {&m.bq, &g.weights.bq}, {&m.bk, &g.weights.bk}, {&m.bv, &g.weights.bv}, {&m.bo, &g.weights.bo}};
        const char* names[] = {"x", "kv", "Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "bo"};
        for (std::size_t n = 0; n < 10; ++n) {
            std::vector<double>& theta = *tensors[n].first;
            const std::vector<float>& engine = *tensors[n].second;
            REQUIRE_MESSAGE(engine.size() == theta.size(), names[n]);
            double worst = 0;
            for (std::size_t i = 0; i < theta.size(); ++i) {
                const double kept = theta[i], eps = 1e-5;
                theta[i] = kept + eps;
                const double up = ref::attention_loss(m, dY);
                theta[i] = kept - eps;
                const double down = ref::attention_loss(m, dY);
                theta[i] = kept;
                const double numeric = (up - down) / (2 * eps);
                worst = std::max(worst, std::fabs(numeric - engine[i]) / std::max(1.0, std::fabs(numeric)));
            }
            INFO(names[n] << ": worst |engine − finite difference| / max(1, |fd|) = " << worst);
            CHECK(worst < 1e-4);
        }
    }
}

TEST_CASE("softmax backward: masked keys and fully masked rows get gradient 0, never NaN") {
    auto c = small(2, 3, 4, 2);
    c.mask = mha::MaskKind::causal;
    c.key_lengths = std::vector<std::int64_t>{3, 0};
    seed_d_output(c, 9);
    const mha::Trace t = mha::forward(c);
    REQUIRE(t.warnings.size() == 1);
    for (const mha::Snapshot& s : t.steps)
        for (const float value : s.data)
            if (mha::find_step(s.id)->pass == mha::Pass::backward) REQUIRE_MESSAGE(std::isfinite(value), s.id);
    const std::size_t T = 3, Tk = 3;
    for (const char* id : {"d_masked", "d_scaled", "d_scores"}) {
        const auto& data = t.step(id).data;
        for (std::size_t h = 0; h < 2; ++h)
            for (std::size_t i = 0; i < T; ++i)
                for (std::size_t j = 0; j < Tk; ++j) {
                    const bool masked = j > i;  // batch row 0: causal
                    if (masked) CHECK(data[((0 * 2 + h) * T + i) * Tk + j] == 0.0f);
                    CHECK(data[((1 * 2 + h) * T + i) * Tk + j] == 0.0f);  // batch row 1: every key masked
                }
    }
    // +0, not −0: the mask step writes its zeros.
    CHECK_FALSE(std::signbit(t.step("d_scaled").data[1]));
    // The rows of dS sum to 0 (softmax is shift invariant), up to rounding.
    const auto& dS = t.step("d_masked").data;
    for (std::size_t r = 0; r < 2 * 2 * T; ++r) {
        double sum = 0;
        for (std::size_t j = 0; j < Tk; ++j) sum += dS[r * Tk + j];
        CHECK(std::fabs(sum) < 1e-6);
    }
}

TEST_CASE("softmax_backward_row is the Jacobian of softmax applied to dA") {
    const float A[] = {0.5f, 0.25f, 0.25f, 0.0f};
    const float dA[] = {1.0f, -2.0f, 0.5f, 7.0f};
    float dS[4];
    mha::softmax_backward_row(A, dA, dS, 4);
    // J = diag(A) − A·Aᵀ; dS = J·dA.
    for (int i = 0; i < 4; ++i) {
        double expected = 0;
        for (int j = 0; j < 4; ++j) expected += ((i == j ? A[i] : 0.0) - double(A[i]) * A[j]) * dA[j];
        CHECK(dS[i] == doctest::Approx(expected).epsilon(1e-6));
    }
    CHECK(dS[3] == 0.0f);
}

TEST_CASE("a lazy run computes one gradient on request, equal to the eager run's") {
    auto c = small(2, 4, 8, 2);
    c.Tk = 5;
    c.key_lengths = std::vector<std::int64_t>{5, 2};
    seed_d_output(c, 4);
    const mha::Trace eager = mha::forward(c);
    for (const char* id : {"d_scores", "d_k_t", "d_source", "d_wo", "d_bo"}) {
        mha::RunOptions one;
        one.only = mha::StepRequest{id, std::nullopt, std::nullopt};
        const mha::Trace lazy = mha::forward(c, one);
        REQUIRE(lazy.steps.size() == 1);
        CHECK(lazy.steps[0].data == eager.step(id).data);
    }
}

TEST_CASE("dOutput of the wrong size, non-finite or too large is refused naming dOutput") {
    auto c = small(2, 3, 4, 2);
    c.d_output = std::vector<float>(23, 0.5f);
    try {
        mha::forward(c);
        FAIL("accepted");
    } catch (const mha::MhaError& e) {
        CHECK(e.field() == "dOutput");
        CHECK(std::string(e.what()) == "dOutput has 23 values but needs B·T·C = 2·3·4 = 24.");
    }
    c.d_output = std::vector<float>(24, 0.5f);
    (*c.d_output)[7] = std::nanf("");
    try {
        mha::forward(c);
        FAIL("accepted");
    } catch (const mha::MhaError& e) {
        CHECK(e.field() == "dOutput");
        CHECK(std::string(e.what()) == "dOutput[7] is NaN: explicit tensors must hold finite numbers.");
    }
    (*c.d_output)[7] = 3e38f;
    try {
        mha::forward(c);
        FAIL("accepted");
    } catch (const mha::MhaError& e) {
        CHECK(e.field() == "dOutput");
        CHECK(e.key() == "bad_value.magnitude");
    }
    // The memory a backward run needs is counted before anything is allocated.
    auto big = small(1, 4096, 64, 1);
    big.memory_cap = 200ull << 20;
    big.snapshots = mha::Snapshots::none;
    CHECK_NOTHROW(mha::validate(big));
    big.d_output = std::vector<float>(4096 * 64, 0.0f);
    CHECK_THROWS_AS(mha::validate(big), mha::MhaError);
}
