// mha_lm_train: trains the character language model natively, for the checkpoints the docs page
// ships (scripts/lm/make_checkpoints.js runs it). The training step is the wasm trainer's, bit
// for bit, so the first steps of a run can be checked in wasm against the digest this prints.
//
//   mha_lm_train --train train.u8 --heldout heldout.u8 --bytes 1 --vocab 81 --newline 0
//     --corpus moby-dick --out model.mhat [--whole trainer.mhat] [--digest-at 20] [--eval-every 250] [--eval-windows 256]
//     seed=0 T=128 layers=2 heads=4 width=128 batch=32 lr=0.003 repeatShare=0.5 ... steps=3000
//
// Prints one JSON line per evaluation ({step, loss, bits, previousChar, induction, halfLine, line})
// and {"digestStep", "checksum"} (the last word of the whole checkpoint, trainer.save()'s, at that
// step); writes the parameters only, in float16, to --out.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "mha/error.hpp"
#include "mha/model/language_model.hpp"
#include "mha/model/trainer.hpp"

using namespace mha::model;

namespace {

std::vector<std::uint16_t> read_ids(const std::string& path, int bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "mha_lm_train: cannot read %s\n", path.c_str());
        std::exit(2);
    }
    const std::vector<unsigned char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::uint16_t> ids(raw.size() / static_cast<std::size_t>(bytes));
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = bytes == 1 ? raw[i] : static_cast<std::uint16_t>(raw[2 * i] | (raw[2 * i + 1] << 8));
    return ids;
}

std::uint32_t checksum_of(const std::vector<std::uint8_t>& bytes) {
    std::uint32_t word;
    std::memcpy(&word, bytes.data() + bytes.size() - 4, 4);
    return word;
}

void report(const TrainerState& state, double loss, std::size_t windows) {
    const TextEvaluation e = evaluate_heldout(state, windows);
    TextJobs best;
    for (const TextHeadScore& h : heldout_head_scores(state, windows)) {
        best.previousChar = std::max(best.previousChar, h.jobs.previousChar);
        best.induction = std::max(best.induction, h.jobs.induction);
        best.halfLine = std::max(best.halfLine, h.jobs.halfLine);
        best.line = std::max(best.line, h.jobs.line);
    }
    std::printf("{\"step\":%u,\"loss\":%.6f,\"bits\":%.6f,\"previousChar\":%.4f,\"induction\":%.4f,\"halfLine\":%.4f,\"line\":%.4f}\n",
                state.step, loss, e.bits, best.previousChar, best.induction, best.halfLine, best.line);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    std::string train_path, heldout_path, out_path, whole_path;
    int bytes = 1;
    TrainerOptions o;
    o.task = "text";
    auto corpus = std::make_shared<TextCorpus>();
    std::size_t steps = 0, digest_at = 0, eval_every = 250, eval_windows = 256;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "mha_lm_train: %s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--train") train_path = value();
        else if (arg == "--heldout") heldout_path = value();
        else if (arg == "--bytes") bytes = std::atoi(value().c_str());
        else if (arg == "--vocab") corpus->vocab = std::strtoul(value().c_str(), nullptr, 10);
        else if (arg == "--newline") corpus->newline = std::atoi(value().c_str());
        else if (arg == "--corpus") o.corpus = value();
        else if (arg == "--out") out_path = value();
        else if (arg == "--whole") whole_path = value();  // also the whole trainer, to train on from
        else if (arg == "--digest-at") digest_at = std::strtoul(value().c_str(), nullptr, 10);
        else if (arg == "--eval-every") eval_every = std::strtoul(value().c_str(), nullptr, 10);
        else if (arg == "--eval-windows") eval_windows = std::strtoul(value().c_str(), nullptr, 10);
        else {
            const std::size_t eq = arg.find('=');
            if (eq == std::string::npos) {
                std::fprintf(stderr, "mha_lm_train: unknown argument %s\n", arg.c_str());
                return 2;
            }
            const std::string key = arg.substr(0, eq), text = arg.substr(eq + 1);
            const double number = std::strtod(text.c_str(), nullptr);
            if (key == "seed") o.seed = number;
            else if (key == "T") o.T = number;
            else if (key == "layers") o.layers = number;
            else if (key == "heads") o.heads = number;
            else if (key == "width") o.width = number;
            else if (key == "batch") o.batch = number;
            else if (key == "lr") o.lr = number;
            else if (key == "weightDecay") o.weight_decay = number;
            else if (key == "dropout") o.dropout = number;
            else if (key == "clip") o.clip = number;
            else if (key == "mlp") o.mlp = text == "true";
            else if (key == "layernorm") o.layernorm = text == "true";
            else if (key == "repeatShare") o.repeat_share = number;
            else if (key == "repeatMin") o.repeat_min = number;
            else if (key == "repeatMax") o.repeat_max = number;
            else if (key == "steps") steps = static_cast<std::size_t>(number);
            else {
                std::fprintf(stderr, "mha_lm_train: unknown option %s\n", key.c_str());
                return 2;
            }
        }
    }
    if (train_path.empty() || heldout_path.empty() || out_path.empty() || steps == 0) {
        std::fprintf(stderr, "usage: mha_lm_train --train F --heldout F --bytes 1|2 --vocab V --corpus NAME --out F steps=N [option=value …]\n");
        return 2;
    }
    corpus->train = read_ids(train_path, bytes);
    corpus->heldout = read_ids(heldout_path, bytes);
    o.vocab = static_cast<double>(corpus->vocab);
    try {
        TrainerState state = create_trainer(resolve_options(o));
        check_corpus(*corpus, state.config.shape.vocab, state.config.shape.T);
        state.corpus = corpus;
        report(state, 0, eval_windows);
        double loss = 0;
        while (state.step < steps) {
            std::size_t chunk = std::min(eval_every - state.step % eval_every, steps - state.step);
            if (digest_at > state.step) chunk = std::min(chunk, digest_at - state.step);
            loss = train(state, static_cast<double>(chunk)).loss;
            if (state.step == digest_at) std::printf("{\"digestStep\":%u,\"checksum\":\"%08x\"}\n", state.step, checksum_of(save(state)));
            if (state.step % eval_every == 0 || state.step == steps) report(state, loss, eval_windows);
        }
        if (!whole_path.empty()) {
            const std::vector<std::uint8_t> whole = save(state);
            std::ofstream(whole_path, std::ios::binary).write(reinterpret_cast<const char*>(whole.data()), static_cast<std::streamsize>(whole.size()));
        }
        const std::vector<std::uint8_t> shipped = save(state, {true, true});
        std::ofstream(out_path, std::ios::binary).write(reinterpret_cast<const char*>(shipped.data()), static_cast<std::streamsize>(shipped.size()));
        std::printf("{\"out\":\"%s\",\"bytes\":%zu,\"checksum\":\"%08x\"}\n", out_path.c_str(), shipped.size(), checksum_of(shipped));
    } catch (const mha::MhaError& e) {
        std::fprintf(stderr, "mha_lm_train: %s\n", e.what());
        return 1;
    }
    return 0;
}
