// doctest's main, plus two modes used by tests/js/doctest_builds.test.js:
//   mha_tests --checksums        prints "<config> <step> <fnv1a>" for every step of a few seeded
//                                runs, to compare the native build's values with the wasm build's;
//   mha_tests --backward-checksums  the same for the backward steps of those runs, given a dOutput;
//   mha_tests --train-curve <task> <steps> <dropout>  a trainer's loss curve, bit for bit;
//   mha_tests --fail-on-purpose  makes one check fail, to prove a failure gives a non-zero exit.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mha/forward.hpp"
#include "mha/model/trainer.hpp"
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
                std::printf("%s %.*s %08x\n", named.name, static_cast<int>(step.id.size()), step.id.data(), ref::checksum(step.data));
        }
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--backward-checksums") == 0) {
        // The same seeded runs with dOutput[i] = ((i·7919) mod 17 − 8)/8 (exact in float32, and
        // easy to write again in JS): every backward step's checksum.
        for (auto named : seeded_configs()) {
            const std::size_t n = static_cast<std::size_t>(named.config.B * named.config.T * named.config.C);
            std::vector<float> d_output(n);
            for (std::size_t i = 0; i < n; ++i) d_output[i] = static_cast<float>(static_cast<int>((i * 7919) % 17) - 8) / 8.0f;
            named.config.d_output = std::move(d_output);
            const mha::Trace trace = mha::forward(named.config);
            for (const auto& step : trace.steps)
                if (step.id.rfind("d_", 0) == 0) std::printf("%s %.*s %08x\n", named.name, static_cast<int>(step.id.size()), step.id.data(), ref::checksum(step.data));
        }
        return 0;
    }
    if (argc > 4 && std::strcmp(argv[1], "--train-curve") == 0) {
        // mha_tests --train-curve <task> <steps> <dropout>: a trainer of seed 7 trained that long,
        // each step's loss as float32 bits, then the checkpoint's FNV-1a (tests/js/trainer.test.js
        // compares these natively, in wasm and through the JS API).
        mha::model::TrainerOptions o;
        o.task = argv[2];
        o.seed = 7;
        o.dropout = std::atof(argv[4]);
        mha::model::TrainerState s = mha::model::create_trainer(mha::model::resolve_options(o));
        const mha::model::TrainChunk chunk = mha::model::train(s, std::atof(argv[3]));
        for (const float loss : chunk.losses) {
            std::uint32_t bits;
            std::memcpy(&bits, &loss, 4);
            std::printf("%08x\n", bits);
        }
        const std::vector<std::uint8_t> bytes = mha::model::save(s);
        std::uint32_t hash = 2166136261u;
        for (const std::uint8_t byte : bytes) hash = (hash ^ byte) * 16777619u;
        std::printf("checkpoint %08x\n", hash);
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
