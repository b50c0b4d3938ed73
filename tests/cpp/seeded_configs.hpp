#pragma once
// Seeded configs whose every step must be bit-identical natively and in WebAssembly.
// tests/js/determinism.test.js runs the same configs through the JS API: keep the two lists equal.

#include <vector>

#include "mha/config.hpp"

struct NamedConfig {
    const char* name;
    mha::Config config;
};

inline std::vector<NamedConfig> seeded_configs() {
    std::vector<NamedConfig> list;
    mha::Config classic;
    classic.B = 2; classic.T = 4; classic.C = 8; classic.H = 2; classic.seed = 0;
    list.push_back({"classic", classic});

    mha::Config gqa;
    gqa.B = 2; gqa.T = 5; gqa.Tk = 7; gqa.C = 24; gqa.H = 6; gqa.Hkv = 2; gqa.seed = 42;
    gqa.mask = mha::MaskKind::causal; gqa.key_lengths = std::vector<std::int64_t>{7, 3};
    list.push_back({"gqa_cross_causal_padding", gqa});

    mha::Config no_bias;
    no_bias.B = 1; no_bias.T = 3; no_bias.C = 12; no_bias.H = 4; no_bias.bias = false; no_bias.seed = 7;
    list.push_back({"no_bias", no_bias});
    return list;
}
