// One test per input that the fuzzer (tests/fuzz/fuzz_config.cpp, scripts/fuzz.sh) found to break
// a promise, written as the smallest config that shows it, with the input itself in a comment.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mha/config_json.hpp"
#include "mha/error.hpp"
#include "mha/messages.hpp"
#include "mha/forward.hpp"
#include "mha/torch_params.hpp"

namespace {

struct Caught {
    std::string code, field, message;
};

template <class Fn>
Caught caught(Fn&& fn) {
    try {
        fn();
    } catch (const mha::MhaError& e) {
        return {e.code(), e.field(), e.what()};
    }
    return {};
}

}  // namespace

// Fuzz input "IQAAAAAAAACgAAAAAAASABIAEgA=" (base64): C = 0xA000000000000000 with empty tensors.
// 3·C·C wrapped around to 0, the empty tensors passed the length checks, and the transposes read and
// wrote out of bounds (UBSan: reference binding to null pointer in transposed_block). In
// WebAssembly, where size_t has 32 bits, C = 65536 from engine.fromTorch did the same.
TEST_CASE("regression: weights_from_torch refuses a C whose 3·C·C would wrap around") {
    const std::vector<float> none;
    for (const std::uint64_t C : {0xA000000000000000ull, 1ull << 32, 1'000'001ull}) {
        if (C > SIZE_MAX) continue;
        const Caught e = caught([&] { mha::weights_from_torch(static_cast<std::size_t>(C), none, none, none, none); });
        CHECK(e.code == "bad_size");
        CHECK(e.field == "C");
        CHECK(e.message.find("is not allowed: C (embed_dim) must be a whole number from 1 to 1000000") != std::string::npos);
    }
    // 65536 is a valid size: the lengths are counted without wrapping, so empty tensors are wrong.
    const Caught e = caught([&] { mha::weights_from_torch(65536, none, none, none, none); });
    CHECK(e.code == "bad_tensor_length");
    CHECK(e.field == "in_proj_weight");
    CHECK(e.message == "in_proj_weight has 0 values but needs 3C·C = 12884901888 for embed_dim C.");
}

// Fuzz input {"B":1,"T":3,"C":4,"":2,"mask":"causal","keyLengths":[2],"seed":4}: the unknown key
// "" became an error whose field was "", naming nothing.
TEST_CASE("regression: an empty config key is named as a problem of the config") {
    const Caught e = caught([] {
        mha::config_from_json(R"({"B":1,"T":3,"C":4,"":2,"mask":"causal","keyLengths":[2],"seed":4})");
    });
    CHECK(e.code == "unknown_key");
    CHECK(e.field == "config");
    CHECK(e.message.rfind("Unknown config key \"\" (an empty name). Known keys: B, T, Tk,", 0) == 0);
}

// Found by reading, next to the fuzzer's first finding: with snapshots off the memory cap was not
// checked at all, so B·T·C = 65536·65536·1 reached the forward pass, where a 32-bit size_t (WebAssembly)
// wraps it to 0 and the masking loop writes past the buffers.
TEST_CASE("regression: sizes whose tensors size_t cannot count are refused, snapshots or not") {
    mha::Config c;
    c.B = 65536; c.T = 65536; c.C = 1; c.H = 1;
    c.snapshots = mha::Snapshots::none;
    c.memory_cap = 9'000'000'000'000'000ull;
    const Caught e = caught([&] { mha::validate(c); });
    // 65536² floats of x alone are 16 GiB, and one head's scores 16 GiB more.
    if (sizeof(std::size_t) == 4) {
        CHECK(e.code == "memory_cap");
        CHECK(e.field == "T");
        CHECK(e.message.find("more than this build of the engine can address (3.00 GiB)") != std::string::npos);
    } else {
        CHECK(e.code == "");  // 64-bit builds can count these tensors; the allocation is what fails there
    }
}

// Fuzz input 22222222.22E2922222[,... (and three more numbers past a double's range): nlohmann's
// parser throws out_of_range (406), not parse_error, which config_from_json did not catch. The
// bindings turned it into "Internal engine error" with no field; a native caller (the fuzzer) aborted.
TEST_CASE("regression: a number beyond a double's range is a JSON error naming the config") {
    for (const char* text : {"22222222.22E2922222", R"({"B": 1e400, "T": 1, "C": 1, "H": 1})",
                             R"({"B": 1, "T": 1, "C": 1, "H": 1, "x": [-1e999]})"}) {
        const Caught e = caught([&] { mha::config_from_json(text); });
        CHECK(e.code == "bad_json");
        CHECK(e.field == "config");
        CHECK(e.message.rfind("The config holds a number it cannot read: [json.exception.out_of_range.406] number overflow", 0) == 0);
    }
}

// Fuzz input {"B":2,"T":3,"Tk":4,"C":4,"H":2,"Hkv":1,"keyLengths":[0,2],"snapshots":"lazy",
// "request":{"id":"weights","batch":0,"head":0}}: a lazy run's request for one head returned before
// the warnings were written, so the fully masked rows of batch row 0 came back all 0 with no warning.
// (engine.js showed the warnings of the lazy run itself; the request's own trace broke the promise.)
TEST_CASE("regression: a request for one head carries the warnings of the rows it computed") {
    mha::RunOptions options;
    options.only = mha::StepRequest{"weights", 0, 0};
    const mha::Trace t = mha::forward(
        mha::config_from_json(R"({"B":2,"T":3,"Tk":4,"C":4,"H":2,"Hkv":1,"keyLengths":[0,2],"snapshots":"lazy"})"), options);
    const auto& weights = t.step("weights").data;
    REQUIRE(weights.size() == 3 * 4);
    for (float a : weights) CHECK(a == 0.0f);
    REQUIRE(t.warnings.size() == 1);
    CHECK(mha::message_of(t.warnings[0]) ==
          "Batch row 0, queries 0–2: every key is masked, so the attention weights are all 0 (PyTorch returns NaN for such a row).");
}
