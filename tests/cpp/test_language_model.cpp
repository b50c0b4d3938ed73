// The character language model: its loss against a plain-loop reference in double precision and
// its gradients against finite differences of that reference, text batches and repeat rows,
// the window rule, the KV-cache decoder against the full forward pass, greedy generation against
// next(), bits per character, float16 and parameters-only checkpoints, version 1 checkpoints.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>

#include "mha/error.hpp"
#include "mha/trace.hpp"
#include "mha/model/language_model.hpp"
#include "mha/model/trainer.hpp"

using namespace mha::model;

namespace {

// A corpus of `n` ids over `vocab` characters with some structure (a repeating phrase and noise).
std::shared_ptr<TextCorpus> toy_corpus(std::size_t vocab, std::size_t n) {
    auto corpus = std::make_shared<TextCorpus>();
    corpus->vocab = vocab;
    corpus->newline = 0;
    mha::Mulberry32 rng(42);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint16_t id = i % 17 == 16 ? 0 : static_cast<std::uint16_t>(i % 5 == 0 ? 1 + rng.next() % (vocab - 1) : 1 + (i * 7) % (vocab - 1));
        (i < n * 9 / 10 ? corpus->train : corpus->heldout).push_back(id);
    }
    return corpus;
}

TrainerState toy_model(std::size_t T = 8, double repeat_share = 0.0, std::size_t steps = 3) {
    TrainerOptions o;
    o.task = "text";
    o.corpus = "toy";
    o.T = static_cast<double>(T); o.vocab = 11; o.layers = 2; o.heads = 2; o.width = 8; o.batch = 4;
    o.mlp = true; o.layernorm = true; o.seed = 3; o.lr = 1e-2; o.repeat_share = repeat_share;
    o.repeat_min = 2; o.repeat_max = static_cast<double>((T + 1) / 2);
    TrainerState s = create_trainer(resolve_options(o));
    s.corpus = toy_corpus(11, 4000);
    if (steps) train(s, static_cast<double>(steps));
    return s;
}

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const mha::MhaError& e) {
        return e.field() + " " + e.key();
    }
    return "no error";
}

// --- A plain-loop reference of the model, in double: written from transformer.hpp's description
// (embeddings, pre-LN causal attention, ReLU MLP, final LN, unembedding, mean cross-entropy).
struct Reference {
    const ModelShape& s;
    const ParamLayout& p;
    std::vector<double> w;

    std::vector<double> layernorm(const std::vector<double>& x, std::size_t gain, std::size_t bias) const {
        const std::size_t C = s.C;
        std::vector<double> y(x.size());
        for (std::size_t n = 0; n < x.size() / C; ++n) {
            double mean = 0, var = 0;
            for (std::size_t c = 0; c < C; ++c) mean += x[n * C + c] / C;
            for (std::size_t c = 0; c < C; ++c) var += (x[n * C + c] - mean) * (x[n * C + c] - mean) / C;
            for (std::size_t c = 0; c < C; ++c) y[n * C + c] = (x[n * C + c] - mean) / std::sqrt(var + 1e-5) * w[gain + c] + w[bias + c];
        }
        return y;
    }
    std::vector<double> linear(const std::vector<double>& x, std::size_t W, std::size_t b, std::size_t K, std::size_t M) const {
        const std::size_t N = x.size() / K;
        std::vector<double> y(N * M);
        for (std::size_t n = 0; n < N; ++n)
            for (std::size_t m = 0; m < M; ++m) {
                double sum = w[b + m];
                for (std::size_t k = 0; k < K; ++k) sum += x[n * K + k] * w[W + k * M + m];
                y[n * M + m] = sum;
            }
        return y;
    }
    // Mean cross-entropy (nats) of tokens [B, T] against targets [B, T]; logits out if asked.
    double loss(const std::vector<std::int32_t>& tokens, const std::vector<std::int32_t>& targets, std::vector<double>* logits_out = nullptr) const {
        const std::size_t T = s.T, C = s.C, H = s.heads, D = C / H, V = s.vocab, B = tokens.size() / T;
        std::vector<double> x(B * T * C);
        for (std::size_t n = 0; n < B * T; ++n)
            for (std::size_t c = 0; c < C; ++c) x[n * C + c] = w[p.tok + tokens[n] * C + c] + w[p.pos + (n % T) * C + c];
        for (const LayerParams& P : p.layers) {
            const std::vector<double> h = layernorm(x, P.ln1_gain, P.ln1_bias);
            const std::vector<double> q = linear(h, P.Wq, P.bq, C, C), k = linear(h, P.Wk, P.bk, C, C), v = linear(h, P.Wv, P.bv, C, C);
            std::vector<double> concat(B * T * C, 0.0);
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t hd = 0; hd < H; ++hd)
                    for (std::size_t i = 0; i < T; ++i) {
                        std::vector<double> score(i + 1);
                        double top = -1e300, total = 0;
                        for (std::size_t j = 0; j <= i; ++j) {
                            double dot = 0;
                            for (std::size_t d = 0; d < D; ++d) dot += q[(b * T + i) * C + hd * D + d] * k[(b * T + j) * C + hd * D + d];
                            score[j] = dot / std::sqrt(static_cast<double>(D));
                            top = std::max(top, score[j]);
                        }
                        for (double& e : score) total += (e = std::exp(e - top));
                        for (std::size_t j = 0; j <= i; ++j)
                            for (std::size_t d = 0; d < D; ++d) concat[(b * T + i) * C + hd * D + d] += score[j] / total * v[(b * T + j) * C + hd * D + d];
                    }
            const std::vector<double> attn = linear(concat, P.Wo, P.bo, C, C);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] += attn[i];
            std::vector<double> fc = linear(layernorm(x, P.ln2_gain, P.ln2_bias), P.W1, P.b1, C, 4 * C);
            for (double& f : fc) f = std::max(0.0, f);
            const std::vector<double> out = linear(fc, P.W2, P.b2, 4 * C, C);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] += out[i];
        }
        const std::vector<double> logits = linear(layernorm(x, p.lnf_gain, p.lnf_bias), p.Wu, p.bu, C, V);
        if (logits_out) *logits_out = logits;
        double total = 0;
        std::size_t counted = 0;
        for (std::size_t n = 0; n < B * T; ++n) {
            if (targets[n] < 0) continue;
            double top = -1e300, sum = 0;
            for (std::size_t c = 0; c < V; ++c) top = std::max(top, logits[n * V + c]);
            for (std::size_t c = 0; c < V; ++c) sum += std::exp(logits[n * V + c] - top);
            total += std::log(sum) + top - logits[n * V + targets[n]];
            ++counted;
        }
        return total / counted;
    }
};

}  // namespace

TEST_CASE("the language model's loss equals a plain-loop reference, and its gradients finite differences of it") {
    TrainerState s = toy_model();
    const ParamLayout layout = layout_of(s.config.shape);
    Activations a;
    a.B = 4;
    a.tokens.resize(4 * 8);
    a.targets.resize(4 * 8);
    mha::Mulberry32 rng(9);
    make_text_batch(*s.corpus, {0.5f, 2, 4}, 4, 8, rng, a.tokens.data(), a.targets.data());
    const double loss = forward(s.config.shape, layout, s.params, a, 0.0f, nullptr).loss;
    Reference ref{s.config.shape, layout, std::vector<double>(s.params.begin(), s.params.end())};
    CHECK(loss == doctest::Approx(ref.loss(a.tokens, a.targets)).epsilon(1e-5));

    std::vector<float> grads;
    backward(s.config.shape, layout, s.params, a, grads);
    double worst = 0;
    std::size_t checked = 0;
    for (const ParamTensor& t : layout.tensors)
        for (std::size_t j = 0; j < t.size; j += std::max<std::size_t>(1, t.size / 5)) {
            const std::size_t i = t.offset + j;
            const double kept = ref.w[i], eps = 1e-5;
            ref.w[i] = kept + eps;
            const double up = ref.loss(a.tokens, a.targets);
            ref.w[i] = kept - eps;
            const double down = ref.loss(a.tokens, a.targets);
            ref.w[i] = kept;
            const double numeric = (up - down) / (2 * eps);
            worst = std::max(worst, std::fabs(numeric - grads[i]));
            INFO(t.name << "[" << j << "]: finite difference " << numeric << ", backward " << grads[i]);
            CHECK(std::fabs(numeric - grads[i]) <= 1e-4 + 1e-3 * std::fabs(numeric));
            ++checked;
        }
    MESSAGE(checked << " parameters, worst |fd − backward| " << worst);
}

TEST_CASE("text batches are windows of the training text; repeat rows hold their passage twice") {
    const auto corpus = toy_corpus(11, 4000);
    const std::size_t B = 40, T = 16;
    std::vector<std::int32_t> x(B * T), y(B * T);
    mha::Mulberry32 rng(1);
    make_text_batch(*corpus, {0.5f, 3, 6}, B, T, rng, x.data(), y.data());
    const std::vector<std::uint16_t>& text = corpus->train;
    std::size_t repeats = 0;
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t i = 0; i + 1 < T; ++i) CHECK(y[b * T + i] == x[b * T + i + 1]);
        // The row of T+1 characters (the tokens and the last target) is a window of the text, or
        // that window with a passage of 3–6 characters written twice.
        std::vector<std::int32_t> row(x.begin() + static_cast<long>(b * T), x.begin() + static_cast<long>((b + 1) * T));
        row.push_back(y[b * T + T - 1]);
        bool plain = false;
        for (std::size_t start = 0; start + T + 1 <= text.size() && !plain; ++start) {
            plain = true;
            for (std::size_t i = 0; i <= T && plain; ++i) plain = row[i] == text[start + i];
        }
        if (plain) continue;
        bool doubled = false;
        for (std::size_t L = 3; L <= 6 && !doubled; ++L)
            for (std::size_t at = 0; at + 2 * L <= T + 1 && !doubled; ++at) {
                bool same = true;
                for (std::size_t j = 0; j < L && same; ++j) same = row[at + j] == row[at + L + j];
                doubled = same;
            }
        CHECK(doubled);
        ++repeats;
    }
    CHECK(repeats >= 10);  // half the rows repeat; a few may by chance also be plain windows
}

TEST_CASE("the window keeps the last T/2 characters once the text outgrows T") {
    // An independent simulation of the cache: append; when full, keep the last T/2.
    for (const std::size_t T : {4u, 8u, 9u, 16u}) {
        std::size_t start = 0, length = 0;
        for (std::size_t n = 1; n <= 5 * T; ++n) {
            if (length == T) {
                start += T - T / 2;
                length = T / 2;
            }
            ++length;
            INFO("T " << T << " n " << n);
            CHECK(window_start(n, T) == start);
        }
    }
}

TEST_CASE("the KV-cache decoder gives the full forward pass's next-character distribution, past T too") {
    const TrainerState s = toy_model(8, 0.0, 20);
    Decoder decoder(s);
    std::vector<std::int32_t> text;
    mha::Mulberry32 rng(5);
    double worst = 0;
    for (std::size_t n = 1; n <= 30; ++n) {
        text.push_back(static_cast<std::int32_t>(rng.next() % 11));
        const std::vector<float>& logits = decoder.push(text.back());
        const std::vector<float> probs = next_distribution(s, text);
        // softmax of the decoder's logits, in double
        double top = -1e300, sum = 0;
        for (const float l : logits) top = std::max(top, static_cast<double>(l));
        for (const float l : logits) sum += std::exp(l - top);
        for (std::size_t c = 0; c < 11; ++c) worst = std::max(worst, std::fabs(std::exp(logits[c] - top) / sum - probs[c]));
        CHECK(decoder.cached() == n - window_start(n, 8));
    }
    CHECK(decoder.rebuilds() > 0);
    CHECK(worst <= 1e-6);
    MESSAGE("worst |decoder − full forward| " << worst);
}

TEST_CASE("greedy generation is the argmax of next() one character at a time") {
    const TrainerState s = toy_model(8, 0.0, 30);
    const std::vector<std::int32_t> prompt = {1, 2, 3};
    Generator g(s, prompt, 0.0, 0, 1);
    const std::vector<std::int32_t> generated = g.next(25);
    std::vector<std::int32_t> text = prompt;
    for (const std::int32_t id : generated) {
        const std::vector<float> p = next_distribution(s, text);
        CHECK(id == static_cast<std::int32_t>(std::max_element(p.begin(), p.end()) - p.begin()));
        text.push_back(id);
    }
    // Sampling is seeded: the same seed, the same text; chunks continue one stream.
    Generator a(s, prompt, 0.8, 5, 7), b(s, prompt, 0.8, 5, 7);
    std::vector<std::int32_t> first = a.next(10), second = b.next(4), rest = b.next(6);
    second.insert(second.end(), rest.begin(), rest.end());
    CHECK(first == second);
}

TEST_CASE("bits per character is the mean surprise of each character given the ones before it") {
    const TrainerState s = toy_model(8, 0.0, 20);
    std::vector<std::int32_t> text;
    for (std::size_t i = 0; i < 9; ++i) text.push_back(static_cast<std::int32_t>(1 + (i * 3) % 10));  // T+1 characters: one window
    double bits = 0;
    for (std::size_t i = 1; i < text.size(); ++i) {
        const std::vector<float> p = next_distribution(s, std::vector<std::int32_t>(text.begin(), text.begin() + static_cast<long>(i)));
        bits -= std::log2(static_cast<double>(p[static_cast<std::size_t>(text[i])]));
    }
    CHECK(bits_per_char(s, text) == doctest::Approx(bits / 8).epsilon(1e-5));
    CHECK(error_of([&] { bits_per_char(s, {1}); }) == "text lm.text_too_short");
}

TEST_CASE("float16 storage rounds to the nearest half, ties to even") {
    // IEEE 754 binary16 encodings.
    CHECK(to_half(1.0f) == 0x3C00);
    CHECK(to_half(-2.0f) == 0xC000);
    CHECK(to_half(65504.0f) == 0x7BFF);
    CHECK(to_half(65520.0f) == 0x7C00);      // rounds past the largest half
    CHECK(to_half(0.1f) == 0x2E66);
    CHECK(to_half(6.103515625e-05f) == 0x0400);  // the smallest normal
    CHECK(to_half(5.9604645e-08f) == 0x0001);    // the smallest subnormal
    CHECK(to_half(1.0f + 1.0f / 2048) == 0x3C00);  // a tie, to the even neighbour
    CHECK(to_half(1.0f + 3.0f / 2048) == 0x3C02);
    for (std::uint32_t h = 0; h < 0x7C00; ++h) CHECK(to_half(from_half(static_cast<std::uint16_t>(h))) == h);
}

TEST_CASE("language-model checkpoints: whole ones exactly, shipped ones as parameters in float16") {
    TrainerState s = toy_model(8, 0.5, 5);
    const std::vector<std::uint8_t> whole = save(s);
    TrainerState back = load(whole.data(), whole.size());
    CHECK(back.params == s.params);
    CHECK(back.m == s.m);
    CHECK(back.config.corpus == "toy");
    CHECK(back.config.repeat.share == 0.5f);
    CHECK(back.config.repeat.max == 4);
    back.corpus = s.corpus;
    train(s, 3);
    train(back, 3);
    CHECK(back.params == s.params);  // training on from it is training straight through

    const std::vector<std::uint8_t> shipped = save(s, {true, true});
    CHECK(shipped.size() < whole.size() / 5);
    const TrainerState small = load(shipped.data(), shipped.size());
    for (std::size_t i = 0; i < s.params.size(); ++i) CHECK(small.params[i] == from_half(to_half(s.params[i])));
    CHECK(small.step == s.step);
    CHECK(std::all_of(small.m.begin(), small.m.end(), [](float v) { return v == 0.0f; }));
}

TEST_CASE("a version 1 checkpoint of a task still opens") {
    std::ifstream in(std::string(MHA_FIXTURES_DIR) + "/checkpoint-v1-previous.mhat", std::ios::binary);  // as the trainer saved it before version 2
    REQUIRE(in);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::uint32_t version;
    std::memcpy(&version, bytes.data() + 4, 4);
    CHECK(version == 1);
    const TrainerState s = load(bytes.data(), bytes.size());
    CHECK(s.config.task == Task::previous);
}

TEST_CASE("a language model refuses what it cannot read, naming the field") {
    TrainerState s = toy_model(8, 0.0, 0);
    CHECK(error_of([&] { next_distribution(s, {}); }) == "text lm.empty_text");
    CHECK(error_of([&] { next_distribution(s, {1, 11}); }) == "tokens bad_tokens.value");
    CHECK(error_of([&] { Generator(s, {1}, 0, 0, 0); check_generation(s, 0, 0, 0, 0); }) == "length bad_option.range");
    CHECK(error_of([&] { check_generation(s, 5, 0, 12, 0); }) == "topK bad_option.range");
    CHECK(error_of([&] { check_generation(s, 5, 0.5, 2.5, 0); }) == "topK bad_option.whole");
    s.corpus.reset();
    CHECK(error_of([&] { train(s, 1); }) == "corpus lm.no_corpus");
    CHECK(error_of([&] { evaluate_heldout(s); }) == "corpus lm.no_corpus");
    TrainerOptions o;
    o.task = "text";
    CHECK(error_of([&] { resolve_options(o); }) == "corpus lm.corpus_name");
    o.task = "reverse";
    o.corpus = "moby-dick";
    CHECK(error_of([&] { resolve_options(o); }) == "corpus lm.corpus_for_text");
    const auto other = toy_corpus(12, 1000);
    CHECK(error_of([&] { check_corpus(*other, 11, 8); }) == "corpus lm.corpus_vocab");
}

TEST_CASE("a language model's block runs through the walkthrough on its real hidden states, for a text shorter than T") {
    const TrainerState s = toy_model(8, 0.0, 10);
    const std::vector<std::int32_t> ids = {1, 2, 3, 4, 5};
    Activations a;
    a.B = 1;
    a.tokens = ids;
    a.targets = {2, 3, 4, 5, -1};
    ModelShape shape = s.config.shape;
    shape.T = ids.size();
    forward(shape, layout_of(s.config.shape), s.params, a, 0.0f, nullptr);
    for (const std::size_t layer : {0u, 1u}) {
        const mha::Trace t = block_run(s, ids, static_cast<double>(layer));
        REQUIRE(t.output.size() == a.layers[layer].attn.size());
        double worst = 0;
        for (std::size_t i = 0; i < t.output.size(); ++i) worst = std::max(worst, static_cast<double>(std::fabs(t.output[i] - a.layers[layer].attn[i])));
        CHECK(worst <= 1e-5);
    }
}
