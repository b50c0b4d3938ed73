// Embind bindings of the trainer (cpp/include/mha/model/trainer.hpp): type conversion only. A
// trainer lives in the module as a TrainerSession, which JS owns and deletes
// (web/src/engine/trainer.js, the one caller): its state (parameters and AdamW moments, megabytes
// for a language model) stays here between calls, so that a training call copies nothing in and
// hands back only its losses. save() makes the checkpoint; open() reads one.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "js_config.hpp"
#include "js_result.hpp"
#include "mha/model/language_model.hpp"
#include "mha/model/trainer.hpp"

using emscripten::val;
using js_result::guarded;
using js_result::owned_floats;
using namespace mha::model;

namespace {

// A checkpoint's bytes, its header read before the rest is copied in: a file that is not a
// checkpoint, of another version or of a length its header does not say is refused without
// copying it (a checkpoint is bounded by the trainer's 1 GiB, of which it holds three quarters).
std::vector<std::uint8_t> bytes_from_js(const val& array) {
    const val view = plain_typed_array("checkpoint", array, "Uint8Array");
    const double n = view["length"].as<double>();
    constexpr std::size_t header = 12;
    std::vector<std::uint8_t> head(static_cast<std::size_t>(std::min<double>(n, header)));
    val(emscripten::typed_memory_view(head.size(), head.data())).call<void>("set", view.call<val>("subarray", 0, head.size()));
    std::uint32_t said = 0;
    if (head.size() == header) std::memcpy(&said, head.data() + 8, 4);
    if (head.size() < header || static_cast<double>(said) != n || n > 768.0 * 1024 * 1024) {
        load(head.data(), head.size());  // names what is wrong with the header
        throw mha::MhaError("checkpoint", "checkpoint.corrupt", {{"reason", "term.corrupt.length"}});
    }
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
    val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<void>("set", view);
    return bytes;
}

val bytes_to_js(const std::vector<std::uint8_t>& bytes) {
    return val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<val>("slice");
}

// An Int32Array by its real length (a language model's calls check their own counts).
std::vector<std::int32_t> tokens_from_js(const val& tokens) {
    const val view = plain_typed_array("tokens", tokens, "Int32Array");
    std::vector<std::int32_t> values(view["length"].as<std::size_t>());
    val(emscripten::typed_memory_view(values.size(), values.data())).call<void>("set", view);
    return values;
}

// An Int32Array (trainer.js converts), its count checked before it is copied in.
std::vector<std::int32_t> tokens_from_js(const TrainerState& state, const val& tokens) {
    const val view = plain_typed_array("tokens", tokens, "Int32Array");
    check_token_count(state, view["length"].as<double>());
    std::vector<std::int32_t> values(view["length"].as<std::size_t>());
    val(emscripten::typed_memory_view(values.size(), values.data())).call<void>("set", view);
    return values;
}

// The trainer's options and its task's facts, for trainer.task and trainer.options.
val describe(const TrainerState& s) {
    const TrainerConfig& c = s.config;
    const TaskSpec& spec = spec_of(c.task);
    val task = val::object();
    task.set("name", std::string(spec.name));
    task.set("T", static_cast<double>(c.shape.T));
    task.set("vocab", static_cast<double>(c.shape.vocab));
    task.set("causal", c.shape.causal);
    task.set("steps", static_cast<double>(c.steps));
    task.set("job", std::string(spec.job));
    task.set("jobTarget", spec.job_target);
    val options = val::object();
    options.set("task", std::string(spec.name));
    options.set("seed", static_cast<double>(c.seed));
    options.set("T", static_cast<double>(c.shape.T));
    options.set("vocab", static_cast<double>(c.shape.vocab));
    options.set("layers", static_cast<double>(c.shape.layers));
    options.set("heads", static_cast<double>(c.shape.heads));
    options.set("width", static_cast<double>(c.shape.C));
    options.set("mlp", c.shape.mlp);
    options.set("layernorm", c.shape.layernorm);
    options.set("batch", static_cast<double>(c.batch));
    options.set("lr", static_cast<double>(c.lr));
    options.set("weightDecay", static_cast<double>(c.weight_decay));
    options.set("dropout", static_cast<double>(c.dropout));
    options.set("clip", static_cast<double>(c.clip));
    if (c.task == Task::text) {
        options.set("corpus", c.corpus);
        options.set("repeatShare", static_cast<double>(c.repeat.share));
        options.set("repeatMin", static_cast<double>(c.repeat.min));
        options.set("repeatMax", static_cast<double>(c.repeat.max));
    }
    val out = val::object();
    out.set("task", task);
    out.set("options", options);
    out.set("step", static_cast<double>(s.step));
    out.set("parameterCount", static_cast<double>(s.params.size()));
    return out;
}

// options: a plain object whose values trainer.js has checked for type (numbers, booleans, a string).
TrainerOptions options_from_js(const val& options) {
    TrainerOptions o;
    if (!options["task"].isUndefined()) o.task = options["task"].as<std::string>();
    auto number = [&](const char* key, std::optional<double>& into) {
        if (!options[key].isUndefined()) into = options[key].as<double>();
    };
    auto flag = [&](const char* key, std::optional<bool>& into) {
        if (!options[key].isUndefined()) into = options[key].as<bool>();
    };
    number("seed", o.seed); number("T", o.T); number("vocab", o.vocab); number("layers", o.layers);
    number("heads", o.heads); number("width", o.width); number("batch", o.batch); number("lr", o.lr);
    number("weightDecay", o.weight_decay); number("dropout", o.dropout); number("clip", o.clip);
    flag("mlp", o.mlp); flag("layernorm", o.layernorm);
    if (!options["corpus"].isUndefined()) o.corpus = options["corpus"].as<std::string>();
    number("repeatShare", o.repeat_share); number("repeatMin", o.repeat_min); number("repeatMax", o.repeat_max);
    return o;
}

val attention_to_js(const std::vector<std::vector<float>>& layers) {
    val list = val::array();
    for (std::size_t l = 0; l < layers.size(); ++l) {
        val entry = val::object();
        entry.set("layer", static_cast<double>(l));
        entry.set("weights", owned_floats(layers[l]));
        list.set(l, entry);
    }
    return list;
}

// Each head's jobs as [{ layer, head, jobs: { name: score } }]; `jobs` lists a score's name and member.
template <class Score, class Jobs, std::size_t N>
val scores_to_js(const std::vector<Score>& all, const std::pair<const char*, double Jobs::*> (&jobs)[N]) {
    val list = val::array();
    for (std::size_t i = 0; i < all.size(); ++i) {
        val scores = val::object();
        for (const auto& [name, member] : jobs) scores.set(name, all[i].jobs.*member);
        val head = val::object();
        head.set("layer", static_cast<double>(all[i].layer));
        head.set("head", static_cast<double>(all[i].head));
        head.set("jobs", scores);
        list.set(i, head);
    }
    return list;
}

val head_scores_to_js(const std::vector<HeadScore>& all) {
    static const std::pair<const char*, double JobScores::*> jobs[] = {
        {"antiDiagonal", &JobScores::antiDiagonal}, {"answer", &JobScores::answer},
        {"previousToken", &JobScores::previousToken}, {"prefixMatching", &JobScores::prefixMatching}};
    return scores_to_js(all, jobs);
}

val text_scores_to_js(const std::vector<TextHeadScore>& all) {
    static const std::pair<const char*, double TextJobs::*> jobs[] = {
        {"previousChar", &TextJobs::previousChar}, {"induction", &TextJobs::induction},
        {"halfLine", &TextJobs::halfLine}, {"line", &TextJobs::line}};
    return scores_to_js(all, jobs);
}

std::vector<std::uint16_t> ids_from_js(const val& array) {  // a Uint8Array or Uint16Array of a corpus
    const val view = plain_typed_array("corpus", array, typed_array_tag(array) == "Uint8Array" ? "Uint8Array" : "Uint16Array");
    std::vector<std::uint16_t> ids(view["length"].as<std::size_t>());
    val(emscripten::typed_memory_view(ids.size(), ids.data())).call<void>("set", view);
    return ids;
}

val ints_to_js(const std::vector<std::int32_t>& values) {
    return val(emscripten::typed_memory_view(values.size(), values.data())).call<val>("slice");
}

val predicted_to_js(const std::vector<std::int32_t>& predicted) {
    return val(emscripten::typed_memory_view(predicted.size(), predicted.data())).call<val>("slice");
}

// One trainer, held in the module between calls. Every method answers {ok, value} or {ok: false,
// error} (js_result::guarded), and an error leaves the trainer as it was.
class TrainerSession {
public:
    /// A fresh trainer of these options at step 0.
    val create(const val& options) {
        return guarded([&] {
            TrainerState created = create_trainer(resolve_options(options_from_js(options)));
            generator_.reset();
            state_ = std::move(created);
            return describe(*state_);
        });
    }

    /// The trainer a checkpoint holds (what save() made), bit for bit.
    val open(const val& checkpoint) {
        return guarded([&] {
            const std::vector<std::uint8_t> bytes = bytes_from_js(checkpoint);
            TrainerState loaded = load(bytes.data(), bytes.size());
            generator_.reset();
            state_ = std::move(loaded);
            return describe(*state_);
        });
    }

    /// The whole trainer (parametersOnly false), or its parameters only, in float16 if asked.
    val save(bool parameters_only, bool float16) const {
        return guarded([&] { return bytes_to_js(mha::model::save(state(), {parameters_only, float16})); });
    }

    // options: { lr, weightDecay, dropout, clip }, numbers only (trainer.js has checked names and types).
    val configure(const val& options) {
        return guarded([&] {
            TrainingOptions o;
            auto number = [&](const char* key, std::optional<double>& into) {
                if (!options[key].isUndefined()) into = options[key].as<double>();
            };
            number("lr", o.lr); number("weightDecay", o.weight_decay); number("dropout", o.dropout); number("clip", o.clip);
            generator_.reset();
            state_ = reconfigure(state(), o);
            return describe(*state_);
        });
    }

    val train(double steps) {
        return guarded([&] {
            generator_.reset();  // it reads the parameters this changes
            const TrainChunk chunk = mha::model::train(state(), steps);
            val out = val::object();
            out.set("step", static_cast<double>(chunk.step));
            out.set("loss", chunk.loss);
            out.set("accuracy", chunk.accuracy);
            out.set("losses", owned_floats(chunk.losses));
            return out;
        });
    }

    val evaluate(double sequences) const {
        return guarded([&] {
            if (!(sequences >= 1 && sequences <= 65536 && sequences == static_cast<double>(static_cast<std::size_t>(sequences))))
                throw mha::MhaError("sequences", "bad_option.range", {{"field", "sequences"}, {"value", val(sequences).call<std::string>("toString")},
                                                                     {"min", "1"}, {"max", "65536"}});
            const Evaluation e = mha::model::evaluate(state(), static_cast<std::size_t>(sequences));
            val out = val::object();
            out.set("loss", e.loss);
            out.set("accuracy", e.accuracy);
            out.set("sequences", static_cast<double>(e.sequences));
            return out;
        });
    }

    val head_scores() const {
        return guarded([&] { return head_scores_to_js(mha::model::head_scores(state())); });
    }

    val predict(const val& tokens) const {
        return guarded([&] { return predicted_to_js(mha::model::predict(state(), tokens_from_js(state(), tokens))); });
    }

    val attention(const val& tokens) const {
        return guarded([&] { return attention_to_js(mha::model::attention(state(), tokens_from_js(state(), tokens))); });
    }

    /// What a redraw needs in one call: every layer's attention over `tokens`, the predictions and
    /// (when `scores` is true) every head's scores, without a walkthrough trace.
    val view(const val& tokens, bool scores) const {
        return guarded([&] {
            const std::vector<std::int32_t> sequence = tokens_from_js(state(), tokens);
            val out = val::object();
            out.set("step", static_cast<double>(state().step));
            out.set("layers", attention_to_js(mha::model::attention(state(), sequence)));
            out.set("predicted", predicted_to_js(mha::model::predict(state(), sequence)));
            if (scores) out.set("scores", head_scores_to_js(mha::model::head_scores(state())));
            return out;
        });
    }

    val block(const val& tokens, double layer) const {
        return guarded([&] { return trace_as_js(block_run(state(), tokens_from_js(state(), tokens), layer), true); });
    }

    val info() const {
        return guarded([&] { return describe(state()); });
    }

    // --- The language model (language_model.hpp) ---

    /// The corpus's character ids (train may be empty for a model that only reads) and the id of "\n".
    val attach_corpus(const val& train, const val& heldout, double vocab, double newline) {
        return guarded([&] {
            auto corpus = std::make_shared<TextCorpus>();
            corpus->train = ids_from_js(train);
            corpus->heldout = ids_from_js(heldout);
            corpus->vocab = static_cast<std::size_t>(vocab);
            corpus->newline = static_cast<std::int32_t>(newline);
            check_corpus(*corpus, state().config.shape.vocab, state().config.shape.T);
            state().corpus = std::move(corpus);
            return val(true);
        });
    }

    /// positions: 0 as trained, 1 removed, 2 shuffled by `seed` (the positional-encoding lesson).
    val lm_next(const val& ids, double positions, double seed) const {
        return guarded([&] {
            if (positions == 0) return owned_floats(next_distribution(state(), tokens_from_js(ids)));
            return owned_floats(next_distribution(changed(positions, seed), tokens_from_js(ids)));
        });
    }

    val lm_bits(const val& ids) const {
        return guarded([&] { return val(bits_per_char(state(), tokens_from_js(ids))); });
    }

    val lm_heldout(double windows) const {
        return guarded([&] {
            const TextEvaluation e = evaluate_heldout(state(), static_cast<std::size_t>(windows));
            val out = val::object();
            out.set("bits", e.bits);
            out.set("characters", static_cast<double>(e.characters));
            return out;
        });
    }

    /// Each head's jobs on `ids`, or on held-out text when `ids` is null.
    val lm_scores(const val& ids, double windows) const {
        return guarded([&] {
            if (ids.isNull()) return text_scores_to_js(heldout_head_scores(state(), static_cast<std::size_t>(windows)));
            return text_scores_to_js(text_head_scores(state(), tokens_from_js(ids)));
        });
    }

    val lm_attention(const val& ids, double positions, double seed) const {
        return guarded([&] {
            if (positions == 0) return attention_to_js(text_attention(state(), tokens_from_js(ids)));
            return attention_to_js(text_attention(changed(positions, seed), tokens_from_js(ids)));
        });
    }

    /// A generation after `ids`, continued by lm_continue; training or opening ends it.
    val lm_start(const val& ids, double temperature, double top_k, double seed) {
        return guarded([&] {
            check_generation(state(), 1, temperature, top_k, seed);
            generator_.reset();
            generator_.emplace(state(), tokens_from_js(ids), temperature, static_cast<std::size_t>(top_k), static_cast<std::uint32_t>(seed));
            return generation_to_js({});
        });
    }

    val lm_continue(double count) {
        return guarded([&] {
            if (!generator_) throw mha::MhaError("generate", "lm.no_generation", {});
            check_generation(state(), count, 0, 0, 0);
            return generation_to_js(generator_->next(static_cast<std::size_t>(count)));
        });
    }

private:
    // A session is made by create() or open(); JS never calls another method before either succeeds.
    TrainerState& state() {
        if (!state_) throw mha::MhaError("trainer", "trainer.disposed", {});
        return *state_;
    }
    const TrainerState& state() const { return const_cast<TrainerSession*>(this)->state(); }

    TrainerState changed(double positions, double seed) const {
        return with_positions(state(), positions == 1 ? Positions::removed : Positions::shuffled, static_cast<std::uint32_t>(seed));
    }

    val generation_to_js(const std::vector<std::int32_t>& ids) const {
        val out = val::object();
        out.set("ids", ints_to_js(ids));
        out.set("cached", static_cast<double>(generator_->decoder().cached()));
        out.set("cacheBytes", generator_->decoder().cache_bytes());
        out.set("rebuilds", static_cast<double>(generator_->decoder().rebuilds()));
        return out;
    }

    std::optional<TrainerState> state_;
    std::optional<Generator> generator_;  ///< reads state_, so it is reset before state_ changes
};

}  // namespace

EMSCRIPTEN_BINDINGS(mha_trainer) {
    emscripten::class_<TrainerSession>("TrainerSession")
        .constructor<>()
        .function("create", &TrainerSession::create)
        .function("open", &TrainerSession::open)
        .function("save", &TrainerSession::save)
        .function("configure", &TrainerSession::configure)
        .function("train", &TrainerSession::train)
        .function("evaluate", &TrainerSession::evaluate)
        .function("headScores", &TrainerSession::head_scores)
        .function("predict", &TrainerSession::predict)
        .function("attention", &TrainerSession::attention)
        .function("view", &TrainerSession::view)
        .function("block", &TrainerSession::block)
        .function("info", &TrainerSession::info)
        .function("attachCorpus", &TrainerSession::attach_corpus)
        .function("lmNext", &TrainerSession::lm_next)
        .function("lmBits", &TrainerSession::lm_bits)
        .function("lmHeldout", &TrainerSession::lm_heldout)
        .function("lmScores", &TrainerSession::lm_scores)
        .function("lmAttention", &TrainerSession::lm_attention)
        .function("lmStart", &TrainerSession::lm_start)
        .function("lmContinue", &TrainerSession::lm_continue);
}
