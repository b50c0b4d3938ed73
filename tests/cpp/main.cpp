// doctest's main, plus two modes used by tests/js/doctest_builds.test.js:
//   mha_tests --checksums        prints "<config> <step> <fnv1a>" for every step of a few seeded
//                                runs, to compare the native build's values with the wasm build's;
//   mha_tests --fail-on-purpose  makes one check fail, to prove a failure gives a non-zero exit.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include "mha/forward.hpp"
#include "reference.hpp"
#include "seeded_configs.hpp"

static bool fail_on_purpose = false;

TEST_CASE("a failing check fails the run") {
    CHECK_FALSE(fail_on_purpose);
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--checksums") == 0) {
        for (const auto& named : seeded_configs()) {
            const mha::Trace trace = mha::forward(named.config);
            for (const auto& step : trace.steps)
                std::printf("%s %s %08x\n", named.name, step.id.c_str(), ref::checksum(step.data));
        }
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--fail-on-purpose") == 0) {
        fail_on_purpose = true;
        const char* only[] = {argv[0], "--test-case=a failing check fails the run"};
        doctest::Context context(2, only);
        return context.run();
    }
    doctest::Context context(argc, argv);
    return context.run();
}
