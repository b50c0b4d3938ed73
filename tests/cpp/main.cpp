// doctest's main, plus one extra mode used by tests/js/determinism.test.js:
//   mha_tests --checksums   prints "<config> <step> <fnv1a>" for every step of a few seeded runs,
// so that the JS test can compare the native build's values with the WebAssembly build's.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include "mha/forward.hpp"
#include "reference.hpp"
#include "seeded_configs.hpp"

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--checksums") == 0) {
        for (const auto& named : seeded_configs()) {
            const mha::Trace trace = mha::forward(named.config);
            for (const auto& step : trace.steps)
                std::printf("%s %s %08x\n", named.name, step.id.c_str(), ref::checksum(step.data));
        }
        return 0;
    }
    doctest::Context context(argc, argv);
    return context.run();
}
