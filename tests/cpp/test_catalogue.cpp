// The step catalogue is what a run records: the same ids in the same order, and every shape,
// axis name, input and FLOP count a snapshot carries comes out of its catalogue entry.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include "mha/catalogue.hpp"
#include "mha/forward.hpp"

namespace {

mha::Config make(std::int64_t B, std::int64_t T, std::int64_t C, std::int64_t H) {
    mha::Config c;
    c.B = B; c.T = T; c.C = C; c.H = H;
    return c;
}

}  // namespace

TEST_CASE("a run records exactly the catalogue's steps that apply to it, in its order") {
    auto cross_gqa = make(2, 3, 24, 6);
    cross_gqa.Tk = 5; cross_gqa.Hkv = 2; cross_gqa.mask = mha::MaskKind::causal;
    auto padded = make(1, 4, 8, 2);
    padded.key_lengths = std::vector<std::int64_t>{3};
    for (const mha::Config& c : {make(2, 4, 8, 2), cross_gqa, padded}) {
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
            CHECK(s.numel == mha::step_numel(spec, t.dims));
            CHECK(s.data.size() == s.numel);
            CHECK(s.axes.size() == s.shape.size());
            // The input of a step is an earlier step of the same run.
            if (!s.input.empty()) CHECK(std::find(expected.begin(), expected.begin() + i, s.input) != expected.begin() + i);
        }
    }
}

TEST_CASE("catalogue ids are unique snake_case, and every template slot is filled in") {
    std::set<std::string> ids;
    for (const mha::StepSpec& s : mha::catalogue()) {
        INFO(s.id);
        CHECK(ids.insert(s.id).second);
        for (const char ch : std::string(s.id)) CHECK(((ch >= 'a' && ch <= 'z') || ch == '_'));
    }
    auto c = make(2, 3, 24, 6);
    c.Tk = 5; c.Hkv = 2; c.bias = false;
    for (const bool cross : {false, true}) {
        if (!cross) c.Tk.reset();
        const mha::Trace t = mha::forward(c);
        for (const mha::Snapshot& s : t.steps) {
            INFO(s.id);
            for (const std::string* text : {&s.formula, &s.shape_formula}) CHECK(text->find('{') == std::string::npos);
            CHECK(s.latex.find("{src}") == std::string::npos);
            CHECK(s.latex.find("{+") == std::string::npos);
            CHECK(s.latex.find("{Hkv}") == std::string::npos);
        }
        c.Tk = 5;
    }
}

TEST_CASE("K and V axes and formulas read Hkv only under GQA/MQA") {
    const mha::Trace mha_run = mha::forward(make(1, 3, 8, 2));
    CHECK(mha_run.step("k_split").axes == std::vector<std::string>{"B", "Tk", "H", "D"});
    CHECK(mha_run.step("k_split").formula == "K.view(B, Tk, H, D)");
    CHECK(mha_run.step("k_split").latex == "K \\to \\operatorname{view}(B, T_k, H, D)");
    auto gqa = make(1, 3, 8, 4);
    gqa.Hkv = 2;
    const mha::Trace g = mha::forward(gqa);
    CHECK(g.step("k_split").axes == std::vector<std::string>{"B", "Tk", "Hkv", "D"});
    CHECK(g.step("k_split").latex == "K \\to \\operatorname{view}(B, T_k, H_{kv}, D)");
    CHECK(g.step("k_shared").formula == "K.repeat_interleave(H/Hkv = 2, dim=1)");
    CHECK(g.step("k_t").input == "k_shared");
    CHECK(mha_run.step("k_t").input == "k_heads");
}

TEST_CASE("shape formulas carry this config's numbers, the bias only when there is one") {
    auto c = make(2, 4, 8, 2);
    const mha::Trace t = mha::forward(c);
    CHECK(t.step("q").shape_formula == "[2,4,8] @ [8,8] + [8] → [2,4,8]");
    CHECK(t.step("scaled").shape_formula == "[2,2,4,4] × 1/√4 → [2,2,4,4]");
    CHECK(t.step("masked").shape_formula == "[2,2,4,4] with no mask → [2,2,4,4]");
    CHECK(t.step("x").shape_formula == "[2,4,8]");
    c.bias = false;
    c.mask = mha::MaskKind::causal;
    const mha::Trace n = mha::forward(c);
    CHECK(n.step("q").shape_formula == "[2,4,8] @ [8,8] → [2,4,8]");
    CHECK(n.step("q").formula == "Q = X·Wq");
    CHECK(n.step("masked").shape_formula == "[2,2,4,4] + causal mask [4,4] → [2,2,4,4]");
}
