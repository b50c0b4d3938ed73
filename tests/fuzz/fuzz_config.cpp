// libFuzzer target over everything that turns outside input into a config and tensors:
//   mha::config_from_json → mha::validate → mha::forward (when the config is small), and
//   mha::weights_from_torch → mha::forward with those weights.
// Built and run by scripts/fuzz.sh with -fsanitize=fuzzer,address,undefined.
//
// Input: text starting with '!' drives the PyTorch path (layout below); anything else is the
// config JSON itself, so the seed corpus (tests/fuzz/corpus/) is readable configs.
//
// Besides the sanitizers, the target checks the engine's promises and aborts when one breaks:
//   - the only exception that leaves the engine is mha::MhaError, with a field and a message;
//   - a run that succeeds has finite outputs, and every softmax row sums to 1 (0 when fully masked).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mha/config_json.hpp"
#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/torch_params.hpp"

namespace {

[[noreturn]] void broken(const char* promise, const std::string& detail) {
    std::fprintf(stderr, "broken promise: %s (%s)\n", promise, detail.c_str());
    std::abort();
}

void check_error(const mha::MhaError& e) {
    if (std::strlen(e.what()) == 0) broken("an error has a message", e.code());
    if (e.field().empty()) broken("an error names its field", e.what());
}

// Small enough to run the forward pass on every fuzz input without slowing the fuzzer down.
bool small(const mha::Dims& d) {
    return d.B * d.T * d.C <= 4096 && d.B * d.Tk * d.C <= 4096 && d.B * d.H * d.T * d.Tk <= 4096 &&
           d.C * d.C <= 4096;
}

void check_trace(const mha::Trace& trace) {
    for (float value : trace.output)
        if (!std::isfinite(value)) broken("a successful run has a finite output", std::to_string(value));
    const mha::Snapshot* kept = nullptr;  // the weights, whole or one head, when the run kept their values
    for (const mha::Snapshot& s : trace.steps)
        if (s.id == "weights" && !s.data.empty()) kept = &s;
    if (!kept) return;
    const mha::Snapshot& weights = *kept;
    const std::size_t Tk = trace.dims.Tk;
    for (std::size_t row = 0; row * Tk < weights.data.size(); ++row) {
        double sum = 0;
        for (std::size_t j = 0; j < Tk; ++j) {
            const float a = weights.data[row * Tk + j];
            if (!(a >= 0.0f && a <= 1.0f)) broken("attention weights lie in [0, 1]", std::to_string(a));
            sum += a;
        }
        if (sum != 0.0 && std::fabs(sum - 1.0) > 1e-4) broken("softmax rows sum to 1 or 0", std::to_string(sum));
        if (sum == 0.0 && trace.warnings.empty()) broken("a fully masked row comes with a warning", "");
    }
}

// A lazy run's later request for one step is not config: a "request" key {id, batch?, head?, t?}
// becomes the run's options, as the bindings make them for run.step(id, {batch, head}) or {t}.
mha::RunOptions take_request(std::string& text) {
    mha::RunOptions options;
    const nlohmann::json root = nlohmann::json::parse(text, nullptr, false);
    if (!root.is_object() || !root.contains("request")) return options;
    const nlohmann::json& r = root["request"];
    if (r.is_object() && r.contains("id") && r["id"].is_string()) {
        mha::StepRequest only{r["id"].get<std::string>(), std::nullopt, std::nullopt};
        if (r.contains("batch") && r["batch"].is_number_integer()) only.batch = r["batch"].get<std::int64_t>();
        if (r.contains("head") && r["head"].is_number_integer()) only.head = r["head"].get<std::int64_t>();
        if (r.contains("t") && r["t"].is_number_integer()) only.t = r["t"].get<std::int64_t>();  // a decoding step
        options.only = std::move(only);
    }
    nlohmann::json rest = root;
    rest.erase("request");
    text = rest.dump();
    return options;
}

// What validate() lets through fits the cap and what this build can address, so that no
// allocation of the run can fail or wrap around.
void check_memory(const mha::Config& config, const mha::Dims& dims, const mha::RunOptions& options) {
    const double total = mha::memory_need(dims, config, options).total();
    if (total > static_cast<double>(config.memory_cap) || total > mha::addressable_bytes)
        broken("a valid config fits its memory cap", std::to_string(total));
}

void run_json(std::string text) {
    try {
        const mha::RunOptions options = take_request(text);
        const mha::Config config = mha::config_from_json(text);
        const mha::Dims dims = mha::validate(config, options);
        check_memory(config, dims, options);
        if (small(dims)) check_trace(mha::forward(config, options));
    } catch (const mha::MhaError& e) {
        check_error(e);
    }
}

// '!' then: one byte selecting C's form, 8 bytes of C, four bytes choosing each tensor's length
// (below 200: the right length; otherwise 200 less than the byte), then float32 values, cycled.
void run_torch(const std::uint8_t* data, std::size_t size) {
    if (size < 14) return;
    std::uint64_t wide = 0;
    std::memcpy(&wide, data + 2, 8);
    // Mostly small C, so that the conversion succeeds and the forward pass runs; sometimes any
    // 64-bit value, where products such as 3·C·C can wrap around.
    const std::size_t C = data[1] % 4 ? 1 + wide % 12 : static_cast<std::size_t>(wide);
    const std::uint8_t* lengths = data + 10;
    const std::uint8_t* values = data + 14;
    const std::size_t value_bytes = size - 14;
    std::size_t cursor = 0;
    auto tensor = [&](std::uint8_t choice, std::size_t right_length) {
        const std::size_t length = choice < 200 ? right_length : std::size_t(choice - 200);
        std::vector<float> t;
        if (length > 4096) return t;  // a wrapped-around "right" length: leave it empty
        t.resize(length);
        for (auto& v : t) {
            if (value_bytes >= 4) {
                std::memcpy(&v, values + (cursor % (value_bytes / 4)) * 4, 4);
                ++cursor;
            } else {
                v = 0.5f;
            }
        }
        return t;
    };
    const bool bias = data[1] & 0x80;
    const auto in_w = tensor(lengths[0], 3 * C * C);
    const auto in_b = bias ? tensor(lengths[1], 3 * C) : std::vector<float>{};
    const auto out_w = tensor(lengths[2], C * C);
    const auto out_b = bias ? tensor(lengths[3], C) : std::vector<float>{};
    try {
        mha::Config config;
        config.weights = mha::weights_from_torch(C, in_w, in_b, out_w, out_b);
        config.B = 1 + data[1] % 2;
        config.T = 1 + (data[1] >> 1) % 3;
        config.C = static_cast<std::int64_t>(C);
        config.H = 1;
        for (std::int64_t h = 1 + (data[1] >> 3) % 4; h >= 1; --h)
            if (config.C % h == 0) { config.H = h; break; }
        config.bias = bias;
        config.mask = data[1] & 0x40 ? mha::MaskKind::causal : mha::MaskKind::none;
        const mha::Dims dims = mha::validate(config);
        if (small(dims)) check_trace(mha::forward(config));
    } catch (const mha::MhaError& e) {
        check_error(e);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 0 && data[0] == '!') run_torch(data, size);
    else run_json(std::string(reinterpret_cast<const char*>(data), size));
    return 0;
}
