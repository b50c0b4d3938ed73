// The tiny transformer and its trainer: the model's gradients (against the attention block's
// backward pass, itself checked against PyTorch, and against finite differences), every task
// reaching its accuracy and head-job score at its default length, checkpoints that round-trip
// exactly, dropout only in training, and every bad option named.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "mha/error.hpp"
#include "mha/forward.hpp"
#include "mha/model/layers.hpp"
#include "mha/model/trainer.hpp"

using namespace mha::model;

namespace {

TrainerState small_trainer(const char* task, bool mlp, bool layernorm, float dropout = 0.0f) {
    TrainerOptions o;
    o.task = task;
    o.T = 6; o.vocab = 8; o.layers = 2; o.heads = 2; o.width = 8; o.batch = 3;
    o.mlp = mlp; o.layernorm = layernorm; o.dropout = dropout; o.seed = 5;
    TrainerState s = create_trainer(resolve_options(o));
    // Move away from the initial parameters so that no gradient is special.
    train(s, 3);
    return s;
}

Activations batch(const TrainerState& s, std::uint32_t seed) {
    Activations a;
    a.B = s.config.batch;
    a.tokens.resize(a.B * s.config.shape.T);
    a.targets.resize(a.B * s.config.shape.T);
    mha::Mulberry32 rng(seed);
    make_batch(s.config.task, a.B, s.config.shape.T, s.config.shape.vocab, rng, a.tokens.data(), a.targets.data());
    return a;
}

std::string error_field(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const mha::MhaError& e) {
        return e.field() + " " + e.key();
    }
    return "no error";
}

}  // namespace

TEST_CASE("log_positive agrees with std::log") {
    for (const double x : {1e-30, 1e-7, 0.5, 0.7071, 1.0, 1.5, 2.0, 3.0, 16.0, 1234.5, 1e20})
        CHECK(log_positive(x) == doctest::Approx(std::log(x)).epsilon(1e-14));
}

TEST_CASE("the model's attention gradients equal the attention block's backward pass") {
    // The block's backward is checked against PyTorch (test_backward.cpp); the model runs its own
    // loops (layers.cpp). Given the gradient the loss sends into a layer's attention, both must
    // give that layer's parameter gradients.
    for (const bool layernorm : {true, false}) {
        const TrainerState s = small_trainer("previous", true, layernorm);
        const ParamLayout layout = layout_of(s.config.shape);
        Activations a = batch(s, 11);
        forward(s.config.shape, layout, s.params, a, 0.0f, nullptr);
        for (long layer = 0; layer < 2; ++layer) {
            std::vector<float> grads, d_attention;
            backward(s.config.shape, layout, s.params, a, grads, layer, &d_attention);
            const std::size_t C = s.config.shape.C;
            const LayerParams& P = layout.layers[static_cast<std::size_t>(layer)];
            auto slice = [&](const std::vector<float>& v, std::size_t at, std::size_t n) {
                return std::vector<float>(v.begin() + static_cast<long>(at), v.begin() + static_cast<long>(at + n));
            };
            mha::Config c;
            c.B = 3; c.T = 6; c.C = 8; c.H = 2; c.mask = mha::MaskKind::causal;
            const LayerActivations& L = a.layers[static_cast<std::size_t>(layer)];
            c.x = layernorm ? L.ln1 : L.in;
            c.weights = mha::Weights{slice(s.params, P.Wq, C * C), slice(s.params, P.Wk, C * C), slice(s.params, P.Wv, C * C),
                                     slice(s.params, P.Wo, C * C), slice(s.params, P.bq, C), slice(s.params, P.bk, C),
                                     slice(s.params, P.bv, C), slice(s.params, P.bo, C), {}, {}};
            c.d_output = d_attention;
            c.snapshots = mha::Snapshots::none;
            const mha::Trace t = mha::forward(c);
            // The block's output is the model's attention output.
            for (std::size_t i = 0; i < t.output.size(); ++i) REQUIRE(t.output[i] == doctest::Approx(L.attn[i]).epsilon(1e-5));
            const std::pair<std::size_t, const std::vector<float>*> pairs[] = {
                {P.Wq, &t.gradients.weights.Wq}, {P.Wk, &t.gradients.weights.Wk}, {P.Wv, &t.gradients.weights.Wv},
                {P.Wo, &t.gradients.weights.Wo}, {P.bq, &t.gradients.weights.bq}, {P.bk, &t.gradients.weights.bk},
                {P.bv, &t.gradients.weights.bv}, {P.bo, &t.gradients.weights.bo}};
            for (const auto& pair : pairs) {
                const std::size_t offset = pair.first;
                const std::vector<float>* block = pair.second;
                for (std::size_t i = 0; i < block->size(); ++i) {
                    INFO("layer " << layer << " layernorm " << layernorm << " offset " << offset << " index " << i);
                    REQUIRE(std::fabs(grads[offset + i] - (*block)[i]) <= 1e-5 * std::max(1.0f, std::fabs((*block)[i])));
                }
            }
        }
    }
}

TEST_CASE("every parameter's gradient matches finite differences of the loss") {
    for (const bool mlp : {true, false})
        for (const bool layernorm : {true, false}) {
            const TrainerState s = small_trainer("sort", mlp, layernorm);
            const ParamLayout layout = layout_of(s.config.shape);
            Activations a = batch(s, 3);
            std::vector<float> params = s.params, grads;
            forward(s.config.shape, layout, params, a, 0.0f, nullptr);
            backward(s.config.shape, layout, params, a, grads);
            // float32 forward passes: a central difference with ε = 1e-2 is good to ~1e-3 here.
            std::size_t checked = 0;
            double worst = 0;
            for (const ParamTensor& t : layout.tensors)
                for (std::size_t j = 0; j < t.size; j += std::max<std::size_t>(1, t.size / 7)) {
                    const std::size_t i = t.offset + j;
                    const float kept = params[i], eps = 1e-2f;
                    params[i] = kept + eps;
                    const double up = forward(s.config.shape, layout, params, a, 0.0f, nullptr).loss;
                    params[i] = kept - eps;
                    const double down = forward(s.config.shape, layout, params, a, 0.0f, nullptr).loss;
                    params[i] = kept;
                    const double numeric = (up - down) / (2.0 * eps);
                    const double error = std::fabs(numeric - grads[i]);
                    worst = std::max(worst, error);
                    INFO(t.name << "[" << j << "]: finite difference " << numeric << ", backward " << grads[i]);
                    CHECK(error <= 2e-3 + 2e-2 * std::fabs(numeric));
                    ++checked;
                }
            MESSAGE("mlp " << mlp << " layernorm " << layernorm << ": " << checked << " parameters, worst |fd − backward| " << worst);
        }
}

#ifndef __EMSCRIPTEN__  // natively only: the four trainings take ~20 s; wasm runs the same code (test below, trainer tests in JS)
TEST_CASE("every task reaches 99% accuracy and its head job at its default length") {
    for (const TaskSpec& spec : task_specs()) {
        if (spec.task == Task::text) continue;  // the language model's, trained from its corpus (test_language_model.cpp)
        TrainerOptions o;
        o.task = spec.name;
        TrainerState s = create_trainer(resolve_options(o));
        const auto best = [&](const std::vector<HeadScore>& scores, std::size_t& layer, std::size_t& head) {
            double top = -1;
            for (const HeadScore& h : scores)
                if (job_score(h.jobs, spec.job) > top) {
                    top = job_score(h.jobs, spec.job);
                    layer = h.layer;
                    head = h.head;
                }
            return top;
        };
        std::size_t layer = 0, head = 0;
        const double before = best(head_scores(s), layer, head);
        const Evaluation at_start = evaluate(s);
        train(s, static_cast<double>(spec.steps));
        const Evaluation e = evaluate(s);
        const std::vector<HeadScore> scores = head_scores(s);
        const double after = best(scores, layer, head);
        MESSAGE(std::string(spec.name) << ": accuracy " << at_start.accuracy << " → " << e.accuracy << " after " << spec.steps << " steps; " << std::string(spec.job)
                          << " (layer " << layer << " head " << head << ") " << before << " → " << after << " (target " << spec.job_target << ")");
        CHECK(e.accuracy >= 0.99);
        CHECK(after >= spec.job_target);
        CHECK(before < spec.job_target);
        if (spec.task == Task::induction) {
            // The circuit: a previous-token head in layer 0 feeds the prefix-matching head in layer 1.
            CHECK(layer == 1);
            MESSAGE("induction: layer 0 previous-token score " << scores[0].jobs.previousToken);
            CHECK(scores[0].jobs.previousToken >= 0.5);
        }
    }
}
#endif

TEST_CASE("a checkpoint round-trips exactly, and training on from it is training straight through") {
    TrainerOptions o;
    o.task = "induction";
    o.dropout = 0.1;
    o.seed = 42;
    TrainerState straight = create_trainer(resolve_options(o));
    TrainerState halves = straight;
    const TrainChunk all = train(straight, 20);
    const TrainChunk first = train(halves, 10);
    const std::vector<std::uint8_t> bytes = save(halves);
    TrainerState loaded = load(bytes.data(), bytes.size());
    CHECK(save(loaded) == bytes);
    const TrainChunk second = train(loaded, 10);
    std::vector<float> joined = first.losses;
    joined.insert(joined.end(), second.losses.begin(), second.losses.end());
    CHECK(std::memcmp(joined.data(), all.losses.data(), 20 * sizeof(float)) == 0);
    CHECK(save(loaded) == save(straight));
    CHECK(loaded.step == 20);
}

TEST_CASE("dropout acts in training only") {
    TrainerOptions o;
    o.task = "reverse";
    TrainerState plain = create_trainer(resolve_options(o));
    o.dropout = 0.5;
    TrainerState dropped = create_trainer(resolve_options(o));
    // The same parameters: evaluation, predictions and attention do not depend on dropout.
    std::vector<std::int32_t> tokens(16);
    for (std::size_t i = 0; i < 16; ++i) tokens[i] = static_cast<std::int32_t>((i * 5) % 16);
    CHECK(evaluate(plain).loss == evaluate(dropped).loss);
    CHECK(attention(plain, tokens) == attention(dropped, tokens));
    // Training with dropout: about half of the attention weights are zeroed and the rest scaled by 2.
    const ParamLayout layout = layout_of(dropped.config.shape);
    Activations a = batch(dropped, 1);
    a.B = dropped.config.batch;
    a.tokens.resize(a.B * 16);
    a.targets.resize(a.B * 16);
    mha::Mulberry32 rng(9);
    make_batch(Task::reverse, a.B, 16, 16, rng, a.tokens.data(), a.targets.data());
    forward(dropped.config.shape, layout, dropped.params, a, 0.5f, &rng);
    std::size_t zeros = 0;
    for (const float k : a.layers[0].keep) {
        CHECK((k == 0.0f || k == 2.0f));
        zeros += k == 0.0f;
    }
    const double share = static_cast<double>(zeros) / static_cast<double>(a.layers[0].keep.size());
    CHECK(share == doctest::Approx(0.5).epsilon(0.05));
    CHECK(train(plain, 5).losses != train(dropped, 5).losses);
}

TEST_CASE("reconfigure changes how a trainer trains from its next step, never what it is") {
    TrainerOptions o;
    o.task = "reverse";
    o.seed = 5;
    TrainerState s = create_trainer(resolve_options(o));
    train(s, 3);
    std::vector<std::int32_t> tokens(16);
    for (std::size_t i = 0; i < 16; ++i) tokens[i] = static_cast<std::int32_t>((i * 3) % 16);
    TrainingOptions change;
    change.dropout = 0.3;
    change.lr = 0.01;
    const TrainerState changed = reconfigure(s, change);
    CHECK(changed.config.dropout == 0.3f);
    CHECK(changed.config.lr == 0.01f);
    CHECK(changed.config.weight_decay == s.config.weight_decay);
    CHECK(changed.config.clip == s.config.clip);
    // The model, its step and its random state are the trainer's own: evaluation does not move.
    CHECK(changed.params == s.params);
    CHECK(changed.m == s.m);
    CHECK(changed.step == 3);
    CHECK(changed.rng == s.rng);
    CHECK(attention(changed, tokens) == attention(s, tokens));
    CHECK(evaluate(changed).loss == evaluate(s).loss);
    // It round-trips through a checkpoint, and trains differently from the next step.
    const std::vector<std::uint8_t> bytes = save(changed);
    CHECK(save(load(bytes.data(), bytes.size())) == bytes);
    TrainerState a = s, b = changed;
    CHECK(train(a, 2).losses != train(b, 2).losses);
    // Nothing given: nothing changes. A bad value is refused naming it, before anything changes.
    CHECK(save(reconfigure(s, {})) == save(s));
    TrainingOptions bad;
    bad.lr = 0.5;
    bad.dropout = 1.5;
    CHECK(error_field([&] { reconfigure(s, bad); }) == "dropout bad_option.range");
}

TEST_CASE("bad options and checkpoints are refused naming the option") {
    auto with = [](const std::function<void(TrainerOptions&)>& change) {
        return [change] {
            TrainerOptions o;
            change(o);
            resolve_options(o);
        };
    };
    CHECK(error_field(with([](TrainerOptions& o) { o.task = "histogram"; })) == "task unknown_task");
    CHECK(error_field(with([](TrainerOptions& o) { o.layers = 0; })) == "layers bad_option.range");
    CHECK(error_field(with([](TrainerOptions& o) { o.T = 2.5; })) == "T bad_option.whole");
    CHECK(error_field(with([](TrainerOptions& o) { o.width = 30; o.heads = 4; })) == "heads bad_option.heads");
    CHECK(error_field(with([](TrainerOptions& o) { o.task = "sort"; o.T = 20; })) == "vocab bad_option.vocab");
    CHECK(error_field(with([](TrainerOptions& o) { o.lr = 0; })) == "lr bad_option.range_open");
    CHECK(error_field(with([](TrainerOptions& o) { o.dropout = 1; })) == "dropout bad_option.range");
    CHECK(error_field(with([](TrainerOptions& o) { o.seed = -1; })) == "seed bad_option.range");
    CHECK(error_field(with([](TrainerOptions& o) { o.batch = 512; o.T = 64; o.width = 256; o.layers = 4; o.heads = 16; o.vocab = 512; o.mlp = true; }))
          == "batch memory_cap.trainer");

    TrainerState s = create_trainer(resolve_options({}));
    CHECK(error_field([&] { train(s, 0); }) == "steps bad_option.range");
    CHECK(error_field([&] { train(s, 1.5); }) == "steps bad_option.range");
    CHECK(error_field([&] { predict(s, std::vector<std::int32_t>(15, 0)); }) == "tokens bad_tokens.length");
    CHECK(error_field([&] { predict(s, std::vector<std::int32_t>(16, 16)); }) == "tokens bad_tokens.value");
    CHECK(error_field([&] { block_run(s, std::vector<std::int32_t>(16, 1), 1); }) == "layer bad_option.range");
    CHECK(s.step == 0);

    const std::vector<std::uint8_t> good = save(s);
    std::vector<std::uint8_t> bytes = good;
    bytes[100] ^= 1;
    CHECK(error_field([&] { load(bytes.data(), bytes.size()); }) == "checkpoint checkpoint.corrupt");
    bytes = good;
    bytes.resize(bytes.size() - 8);
    CHECK(error_field([&] { load(bytes.data(), bytes.size()); }) == "checkpoint checkpoint.corrupt");
    bytes = good;
    bytes[0] = 'X';
    CHECK(error_field([&] { load(bytes.data(), bytes.size()); }) == "checkpoint checkpoint.not_a_checkpoint");
    CHECK(error_field([&] { load(bytes.data(), 2); }) == "checkpoint checkpoint.not_a_checkpoint");
    // Another version of the format, with a valid checksum: refused as such.
    bytes = good;
    bytes[4] = 7;
    std::uint32_t hash = 2166136261u;
    for (std::size_t i = 0; i + 8 <= bytes.size(); i += 4) {
        std::uint32_t word;
        std::memcpy(&word, bytes.data() + i, 4);
        hash = (hash ^ word) * 16777619u;
    }
    std::memcpy(bytes.data() + bytes.size() - 4, &hash, 4);
    CHECK(error_field([&] { load(bytes.data(), bytes.size()); }) == "checkpoint checkpoint.version");
}

TEST_CASE("training that diverges stops at the step it happens, the trainer left at its last finite state") {
    TrainerOptions o;
    o.task = "sort"; o.layernorm = false; o.lr = 1; o.clip = 0; o.layers = 4; o.mlp = true;
    TrainerState s = create_trainer(resolve_options(o));
    std::string key;
    try {
        train(s, 50);
    } catch (const mha::MhaError& e) {
        key = e.field() + " " + e.key();
    }
    REQUIRE(key == "lr training.diverged");
    CHECK(s.step < 50);
    for (const float p : s.params) REQUIRE(std::isfinite(p));
    // Its checkpoint loads (nothing in it is damaged), and the same batches follow from there.
    const std::vector<std::uint8_t> bytes = save(s);
    const TrainerState opened = load(bytes.data(), bytes.size());
    CHECK(opened.step == s.step);
    CHECK(opened.rng == s.rng);
}

TEST_CASE("options are checked as the float32 they become") {
    for (const double lr : {1e-300, 1e-46, 1e-40}) {
        TrainerOptions o;
        o.lr = lr;
        CHECK(error_field([&] { resolve_options(o); }) == "lr bad_option.float32");
    }
    TrainerOptions decay;
    decay.weight_decay = 1e-45;
    CHECK(error_field([&] { resolve_options(decay); }) == "weightDecay bad_option.float32");
    TrainingOptions tiny;
    tiny.lr = 1e-46;
    CHECK(error_field([&] { reconfigure(create_trainer(resolve_options({})), tiny); }) == "lr bad_option.float32");
    TrainerOptions fine;
    fine.lr = 1e-30;
    CHECK(resolve_options(fine).lr > 0);
    // A value just past a bound is written with the digits that make it past it.
    TrainerOptions past;
    past.dropout = 0.9000001;
    try {
        resolve_options(past);
        FAIL("accepted");
    } catch (const mha::MhaError& e) {
        CHECK(e.params().at(1).second == "0.9000001");
    }
}

TEST_CASE("the step counter is never wrapped around") {
    TrainerState s = create_trainer(resolve_options({}));
    s.step = 4294967294u;
    CHECK(error_field([&] { train(s, 2); }) == "steps training.step_limit");
    CHECK(s.step == 4294967294u);
}

TEST_CASE("a trained block runs through the walkthrough, forward and backward") {
    TrainerOptions o;
    o.task = "previous";
    TrainerState s = create_trainer(resolve_options(o));
    train(s, 50);
    std::vector<std::int32_t> tokens(32);
    for (std::size_t i = 0; i < 32; ++i) tokens[i] = static_cast<std::int32_t>((i * 7) % 16);
    const mha::Trace t = block_run(s, tokens, 0);
    CHECK(t.dims.B == 2);
    CHECK(t.step("weights").shape == std::vector<std::size_t>{2, 1, 16, 16});
    CHECK(t.step("d_scores").shape == std::vector<std::size_t>{2, 1, 16, 16});
    CHECK(t.step("weights").data == attention(s, tokens)[0]);
    double total = 0;
    for (const float g : t.gradients.x) total += std::fabs(g);
    CHECK(total > 0);
}
