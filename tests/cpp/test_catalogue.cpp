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
            CHECK(s.axes().size() == s.shape.size());
        }
    }
}

TEST_CASE("catalogue ids are unique snake_case, and every step has axes") {
    std::set<std::string> ids;
    for (const mha::StepSpec& s : mha::catalogue()) {
        INFO(s.id);
        CHECK(ids.insert(s.id).second);
        for (const char ch : std::string(s.id)) CHECK(((ch >= 'a' && ch <= 'z') || ch == '_'));
        CHECK(*s.axes != '\0');
        CHECK(s.algorithms != 0u);
    }
}

TEST_CASE("K and V axes read Hkv only under GQA/MQA") {
    const mha::Trace mha_run = mha::forward(make(1, 3, 8, 2));
    CHECK(mha_run.step("k_split").axes() == std::vector<std::string>{"B", "Tk", "H", "D"});
    auto gqa = make(1, 3, 8, 4);
    gqa.Hkv = 2;
    const mha::Trace g = mha::forward(gqa);
    CHECK(g.step("k_split").axes() == std::vector<std::string>{"B", "Tk", "Hkv", "D"});
}
