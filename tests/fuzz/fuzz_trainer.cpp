// libFuzzer target over what reaches the trainer from outside: checkpoint bytes (what a page
// fetches or a caller hands to engine.trainer({ checkpoint })) and training options as the
// numbers JS passes (any double, including ones float32 cannot hold).
// Built and run by scripts/fuzz.sh with -fsanitize=fuzzer,address,undefined.
//
// Input: a first byte 'O' makes the rest options (up to eleven little-endian doubles: seed, T,
// vocab, layers, heads, width, batch, lr, weightDecay, dropout, clip, then two flag bits); any
// other input is a checkpoint. The seeds (tests/fuzz/corpus_trainer/) are small real checkpoints.
//
// Besides the sanitizers, the target checks the trainer's promises and aborts when one breaks:
//   - the only exception that leaves it is mha::MhaError, with a field and a message;
//   - a trainer it accepts trains a step without raising anything but a named error, keeps every
//     parameter finite, and saves a checkpoint that loads back to the same bytes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "mha/error.hpp"
#include "mha/model/trainer.hpp"

namespace {

[[noreturn]] void broken(const char* promise, const std::string& detail) {
    std::fprintf(stderr, "broken promise: %s (%s)\n", promise, detail.c_str());
    std::abort();
}

void check_error(const mha::MhaError& e) {
    if (std::strlen(e.what()) == 0) broken("an error has a message", e.key());
    if (e.field().empty()) broken("an error names its field", e.what());
}

// Small enough to train a step on every input without slowing the fuzzer down.
bool small(const mha::model::TrainerState& s) { return s.params.size() <= 20000 && s.config.batch * s.config.shape.T <= 256; }

void exercise(mha::model::TrainerState& s) {
    if (!small(s)) return;
    try {
        mha::model::train(s, 1);
    } catch (const mha::MhaError& e) {
        check_error(e);  // a divergence is named, and the state stays as it was
    }
    for (const float p : s.params)
        if (!std::isfinite(p)) broken("parameters stay finite", "after a step");
    const std::vector<std::uint8_t> bytes = mha::model::save(s);
    const mha::model::TrainerState again = mha::model::load(bytes.data(), bytes.size());
    if (mha::model::save(again) != bytes) broken("a checkpoint round-trips", "save(load(save(s)))");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        if (size > 0 && data[0] == 'O') {
            mha::model::TrainerOptions o;
            std::optional<double>* fields[] = {&o.seed, &o.T, &o.vocab, &o.layers, &o.heads, &o.width, &o.batch, &o.lr, &o.weight_decay, &o.dropout, &o.clip};
            std::size_t at = 1;
            for (auto* field : fields) {
                if (at + 8 > size) break;
                double value;
                std::memcpy(&value, data + at, 8);
                at += 8;
                if (std::isfinite(value)) *field = value;  // trainer.js refuses what is not finite
            }
            if (at < size) {
                o.mlp = (data[at] & 1) != 0;
                o.layernorm = (data[at] & 2) != 0;
            }
            mha::model::TrainerState s = mha::model::create_trainer(mha::model::resolve_options(o));
            exercise(s);
        } else {
            mha::model::TrainerState s = mha::model::load(data, size);
            exercise(s);
        }
    } catch (const mha::MhaError& e) {
        check_error(e);
    } catch (const std::exception& e) {
        broken("only MhaError leaves the trainer", e.what());
    }
    return 0;
}
