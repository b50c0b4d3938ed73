// Embind bindings of the trainer (cpp/include/mha/model/trainer.hpp): type conversion only. Every
// call is stateless: it takes the trainer's checkpoint (a Uint8Array the JS Trainer keeps), and a
// call that changes the trainer hands back a new checkpoint. No trainer, and no Embind handle,
// lives in the module between calls. web/src/engine/trainer.js is the one caller.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "js_result.hpp"
#include "mha/model/trainer.hpp"

using emscripten::val;
using js_result::guarded;
using js_result::owned_floats;
using namespace mha::model;

namespace {

std::vector<std::uint8_t> bytes_from_js(const val& array) {
    const std::size_t n = array["length"].as<std::size_t>();
    std::vector<std::uint8_t> bytes(n);
    val(emscripten::typed_memory_view(n, bytes.data())).call<void>("set", array);
    return bytes;
}

val bytes_to_js(const std::vector<std::uint8_t>& bytes) {
    return val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<val>("slice");
}

TrainerState state_of(const val& checkpoint) {
    const std::vector<std::uint8_t> bytes = bytes_from_js(checkpoint);
    return load(bytes.data(), bytes.size());
}

std::vector<std::int32_t> tokens_from_js(const val& tokens) {  // an Int32Array (trainer.js converts)
    const std::size_t n = tokens["length"].as<std::size_t>();
    std::vector<std::int32_t> values(n);
    val(emscripten::typed_memory_view(n, values.data())).call<void>("set", tokens);
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
    val out = val::object();
    out.set("task", task);
    out.set("options", options);
    out.set("step", static_cast<double>(s.step));
    out.set("parameterCount", static_cast<double>(s.params.size()));
    return out;
}

// options: a plain object whose values trainer.js has checked for type (numbers, booleans, a string).
val create(const val& options) {
    return guarded([&] {
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
        const TrainerState s = create_trainer(resolve_options(o));
        val out = describe(s);
        out.set("checkpoint", bytes_to_js(save(s)));
        return out;
    });
}

val open(const val& checkpoint) {
    return guarded([&] { return describe(state_of(checkpoint)); });
}

// options: { lr, weightDecay, dropout, clip }, numbers only (trainer.js has checked names and types).
val reconfigure_options(const val& checkpoint, const val& options) {
    return guarded([&] {
        TrainingOptions o;
        auto number = [&](const char* key, std::optional<double>& into) {
            if (!options[key].isUndefined()) into = options[key].as<double>();
        };
        number("lr", o.lr); number("weightDecay", o.weight_decay); number("dropout", o.dropout); number("clip", o.clip);
        const TrainerState s = reconfigure(state_of(checkpoint), o);
        val out = describe(s);
        out.set("checkpoint", bytes_to_js(save(s)));
        return out;
    });
}

val train_steps(const val& checkpoint, double steps) {
    return guarded([&] {
        TrainerState s = state_of(checkpoint);
        const TrainChunk chunk = train(s, steps);
        val out = val::object();
        out.set("checkpoint", bytes_to_js(save(s)));
        out.set("step", static_cast<double>(chunk.step));
        out.set("loss", chunk.loss);
        out.set("accuracy", chunk.accuracy);
        out.set("losses", owned_floats(chunk.losses));
        return out;
    });
}

val evaluate_on(const val& checkpoint, double sequences) {
    return guarded([&] {
        if (!(sequences >= 1 && sequences <= 65536 && sequences == static_cast<double>(static_cast<std::size_t>(sequences))))
            throw mha::MhaError("sequences", "bad_option.range", {{"field", "sequences"}, {"value", val(sequences).call<std::string>("toString")},
                                                                 {"min", "1"}, {"max", "65536"}});
        const Evaluation e = evaluate(state_of(checkpoint), static_cast<std::size_t>(sequences));
        val out = val::object();
        out.set("loss", e.loss);
        out.set("accuracy", e.accuracy);
        out.set("sequences", static_cast<double>(e.sequences));
        return out;
    });
}

val scores(const val& checkpoint) {
    return guarded([&] {
        val list = val::array();
        const std::vector<HeadScore> all = head_scores(state_of(checkpoint));
        for (std::size_t i = 0; i < all.size(); ++i) {
            val jobs = val::object();
            jobs.set("antiDiagonal", all[i].jobs.antiDiagonal);
            jobs.set("answer", all[i].jobs.answer);
            jobs.set("previousToken", all[i].jobs.previousToken);
            jobs.set("prefixMatching", all[i].jobs.prefixMatching);
            val head = val::object();
            head.set("layer", static_cast<double>(all[i].layer));
            head.set("head", static_cast<double>(all[i].head));
            head.set("jobs", jobs);
            list.set(i, head);
        }
        return list;
    });
}

val predict_tokens(const val& checkpoint, const val& tokens) {
    return guarded([&] {
        const std::vector<std::int32_t> predicted = predict(state_of(checkpoint), tokens_from_js(tokens));
        return val(emscripten::typed_memory_view(predicted.size(), predicted.data())).call<val>("slice");
    });
}

val attention_of(const val& checkpoint, const val& tokens) {
    return guarded([&] {
        const std::vector<std::vector<float>> layers = attention(state_of(checkpoint), tokens_from_js(tokens));
        val list = val::array();
        for (std::size_t l = 0; l < layers.size(); ++l) {
            val entry = val::object();
            entry.set("layer", static_cast<double>(l));
            entry.set("weights", owned_floats(layers[l]));
            list.set(l, entry);
        }
        return list;
    });
}

val block(const val& checkpoint, const val& tokens, double layer) {
    return guarded([&] { return trace_as_js(block_run(state_of(checkpoint), tokens_from_js(tokens), layer), true); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(mha_trainer) {
    emscripten::function("trainerCreate", &create);
    emscripten::function("trainerOpen", &open);
    emscripten::function("trainerReconfigure", &reconfigure_options);
    emscripten::function("trainerTrain", &train_steps);
    emscripten::function("trainerEvaluate", &evaluate_on);
    emscripten::function("trainerHeadScores", &scores);
    emscripten::function("trainerPredict", &predict_tokens);
    emscripten::function("trainerAttention", &attention_of);
    emscripten::function("trainerRun", &block);
}
