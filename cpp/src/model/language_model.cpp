#include "mha/model/language_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "mha/attention_head.hpp"
#include "mha/error.hpp"
#include "mha/model/layers.hpp"
#include "mha/softmax.hpp"

namespace mha::model {

void check_corpus(const TextCorpus& corpus, std::size_t vocab, std::size_t T) {
    if (corpus.vocab != vocab)
        throw MhaError("corpus", "lm.corpus_vocab", {{"found", std::to_string(corpus.vocab)}, {"expected", std::to_string(vocab)}});
    for (const auto* part : {&corpus.train, &corpus.heldout}) {
        if (part->empty()) continue;  // a model that only reads needs no training text
        if (part->size() < 2 * (T + 2))
            throw MhaError("corpus", "lm.corpus_short", {{"count", std::to_string(part->size())}, {"needed", std::to_string(2 * (T + 2))}});
        for (std::size_t i = 0; i < part->size(); ++i)
            if ((*part)[i] >= vocab)
                throw MhaError("corpus", "lm.corpus_id", {{"index", std::to_string(i)}, {"value", std::to_string((*part)[i])}, {"vocab", std::to_string(vocab)}});
    }
}

void make_text_batch(const TextCorpus& corpus, const RepeatRows& repeat, std::size_t B, std::size_t T, Mulberry32& rng,
                     std::int32_t* tokens, std::int32_t* targets) {
    const std::vector<std::uint16_t>& text = corpus.train;
    const std::size_t starts = text.size() - T - 1;  // a window of T+1 characters fits from each start
    const auto repeated = static_cast<std::size_t>(std::lround(static_cast<double>(B) * repeat.share));
    std::vector<std::int32_t> row(T + 1);
    for (std::size_t b = 0; b < B; ++b) {
        const std::size_t start = rng.next() % starts;
        for (std::size_t j = 0; j <= T; ++j) row[j] = text[start + j];
        if (b < repeated) {
            // [text][P][P][text]: position j ≥ a+L reads the window's j−L, so P appears twice.
            const std::size_t longest = std::min(repeat.max, (T + 1) / 2);
            const std::size_t L = repeat.min + rng.next() % (longest - repeat.min + 1);
            const std::size_t a = (rng.next() >> 8) % (T + 2 - 2 * L);
            for (std::size_t j = T + 1; j-- > a + L;) row[j] = row[j - L];
        }
        std::copy(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(T), tokens + b * T);
        std::copy(row.begin() + 1, row.end(), targets + b * T);
    }
}

std::size_t window_start(std::size_t n, std::size_t T) {
    if (n <= T) return 0;
    const std::size_t kept = T / 2, period = T - kept;  // a rebuild keeps T/2, then T − T/2 more fit
    return n - (kept + 1 + (n - T - 1) % period);
}

std::vector<std::int32_t> text_window(const TrainerState& state, const std::vector<std::int32_t>& ids) {
    const std::size_t V = state.config.shape.vocab;
    if (ids.empty()) throw MhaError("text", "lm.empty_text", {});
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= V)
            throw MhaError("tokens", "bad_tokens.value", {{"index", std::to_string(i)}, {"value", std::to_string(ids[i])},
                                                          {"max", std::to_string(V - 1)}, {"vocab", std::to_string(V)}});
    const std::size_t start = window_start(ids.size(), state.config.shape.T);
    return {ids.begin() + static_cast<std::ptrdiff_t>(start), ids.end()};
}

namespace {

void require_text(const TrainerState& state) {
    if (state.config.task != Task::text) throw MhaError("task", "lm.not_text", {{"task", spec_of(state.config.task).name}});
}

// The forward pass over rows of n characters each (rows [R, n]), targets the next characters.
Activations forward_rows(const TrainerState& s, const std::vector<std::int32_t>& rows, const std::vector<std::int32_t>& targets,
                         std::size_t n) {
    Activations a;
    a.B = rows.size() / n;
    a.tokens = rows;
    a.targets = targets;
    ModelShape shape = s.config.shape;
    shape.T = n;
    forward(shape, layout_of(s.config.shape), s.params, a, 0.0f, nullptr);
    return a;
}

double log2_of(float p) { return log_positive(std::max(static_cast<double>(p), 1e-30)) / 0.6931471805599453; }

}  // namespace

std::vector<float> next_distribution(const TrainerState& state, const std::vector<std::int32_t>& ids) {
    require_text(state);
    const std::vector<std::int32_t> window = text_window(state, ids);
    const std::size_t n = window.size(), V = state.config.shape.vocab;
    const Activations a = forward_rows(state, window, std::vector<std::int32_t>(n, -1), n);
    return {a.probs.begin() + static_cast<std::ptrdiff_t>((n - 1) * V), a.probs.begin() + static_cast<std::ptrdiff_t>(n * V)};
}

TrainerState with_positions(const TrainerState& state, Positions positions, std::uint32_t seed) {
    require_text(state);
    TrainerState copy;
    copy.config = state.config;
    copy.step = state.step;
    copy.corpus = state.corpus;
    copy.params = state.params;
    const ParamLayout layout = layout_of(state.config.shape);
    const std::size_t T = state.config.shape.T, C = state.config.shape.C;
    float* pos = copy.params.data() + layout.pos;
    if (positions == Positions::removed) {
        std::fill(pos, pos + T * C, 0.0f);
    } else if (positions == Positions::shuffled) {
        std::vector<std::size_t> order(T);
        std::iota(order.begin(), order.end(), 0);
        Mulberry32 rng(seed);
        for (std::size_t i = T; i > 1; --i) std::swap(order[i - 1], order[rng.next() % i]);  // Fisher–Yates
        for (std::size_t t = 0; t < T; ++t)
            std::copy(state.params.begin() + static_cast<std::ptrdiff_t>(layout.pos + order[t] * C),
                      state.params.begin() + static_cast<std::ptrdiff_t>(layout.pos + (order[t] + 1) * C), pos + t * C);
    }
    return copy;
}

// --- The KV-cache decoder ---------------------------------------------------------------------------

Decoder::Decoder(const TrainerState& state) : state_(state), layout_(layout_of(state.config.shape)) {
    require_text(state);
    const ModelShape& s = state.config.shape;
    keys_.assign(s.layers, std::vector<float>(s.T * s.C));
    values_.assign(s.layers, std::vector<float>(s.T * s.C));
}

double Decoder::cache_bytes() const {
    const ModelShape& s = state_.config.shape;
    return 2.0 * static_cast<double>(s.layers * length_ * s.C) * sizeof(float);
}

const std::vector<float>& Decoder::push(std::int32_t id) {
    const std::size_t T = state_.config.shape.T;
    if (length_ == T) {
        // The window is full: keep its last T/2 characters and encode them again (positions restart).
        const std::vector<std::int32_t> kept(window_.end() - static_cast<std::ptrdiff_t>(T / 2), window_.end());
        window_.clear();
        length_ = 0;
        ++rebuilds_;
        for (const std::int32_t kept_id : kept) step(kept_id);
    }
    step(id);
    return logits_;
}

// One character through every layer at position length_, as forward() computes that row: the
// same functions on one row, its keys and values appended to the cache, its query attending to
// every cached key (causality is the cache's length).
void Decoder::step(std::int32_t id) {
    const ModelShape& s = state_.config.shape;
    const ParamLayout& p = layout_;
    const std::size_t C = s.C, H = s.heads, D = C / H, F = 4 * C, V = s.vocab, t = length_;
    const float* W = state_.params.data();
    x_.resize(C); h_.resize(C); q_.resize(C); k_.resize(C); v_.resize(C); concat_.resize(C); attn_.resize(C);
    fc_.resize(2 * F); weights_.resize(s.T);
    float mean = 0, rstd = 0;
    embedding_forward(x_.data(), &id, W + p.tok, W + p.pos + t * C, 1, 1, C);
    for (std::size_t l = 0; l < s.layers; ++l) {
        const LayerParams& P = p.layers[l];
        const float* in = x_.data();
        if (s.layernorm) {
            layernorm_forward(h_.data(), &mean, &rstd, x_.data(), W + P.ln1_gain, W + P.ln1_bias, 1, C);
            in = h_.data();
        }
        linear_forward(q_.data(), in, W + P.Wq, W + P.bq, 1, C, C);
        linear_forward(keys_[l].data() + t * C, in, W + P.Wk, W + P.bk, 1, C, C);
        linear_forward(values_[l].data() + t * C, in, W + P.Wv, W + P.bv, 1, C, C);
        const KeyMask none{false, {}, t + 1};
        const auto ld = static_cast<std::ptrdiff_t>(C);
        for (std::size_t h = 0; h < H; ++h) {
            const HeadInput head{1, t + 1, D, q_.data() + h * D, ld, keys_[l].data() + h * D, ld, values_[l].data() + h * D, ld};
            const HeadMask head_mask{none, 0, 0};
            head_weights(head, head_mask, weights_.data());
            head_context(head, head_mask, weights_.data(), nullptr, concat_.data() + h * D, ld);
        }
        linear_forward(attn_.data(), concat_.data(), W + P.Wo, W + P.bo, 1, C, C);
        residual_forward(x_.data(), x_.data(), attn_.data(), C);
        if (s.mlp) {
            const float* in2 = x_.data();
            if (s.layernorm) {
                layernorm_forward(h_.data(), &mean, &rstd, x_.data(), W + P.ln2_gain, W + P.ln2_bias, 1, C);
                in2 = h_.data();
            }
            linear_forward(fc_.data(), in2, W + P.W1, W + P.b1, 1, C, F);
            relu_forward(fc_.data() + F, fc_.data(), F);
            linear_forward(attn_.data(), fc_.data() + F, W + P.W2, W + P.b2, 1, F, C);
            residual_forward(x_.data(), x_.data(), attn_.data(), C);
        }
    }
    const float* last = x_.data();
    if (s.layernorm) {
        layernorm_forward(h_.data(), &mean, &rstd, x_.data(), W + p.lnf_gain, W + p.lnf_bias, 1, C);
        last = h_.data();
    }
    logits_.resize(V);
    linear_forward(logits_.data(), last, W + p.Wu, W + p.bu, 1, C, V);
    window_.push_back(id);
    ++length_;
}

namespace {

// The next id from logits [V]: the argmax at temperature 0, else a draw from the top k.
std::int32_t choose(const std::vector<float>& logits, double temperature, std::size_t top_k, Mulberry32& rng, std::vector<float>& work) {
    const std::size_t V = logits.size();
    if (temperature <= 0) return static_cast<std::int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    std::vector<std::int32_t> order(V);
    std::iota(order.begin(), order.end(), 0);
    const std::size_t k = top_k == 0 || top_k > V ? V : top_k;
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return logits[a] > logits[b]; });
    work.resize(k);
    const auto inverse = static_cast<float>(1.0 / temperature);
    for (std::size_t i = 0; i < k; ++i) work[i] = logits[order[i]] * inverse;
    softmax_row(work.data(), work.data(), k);
    const float u = static_cast<float>(rng.next() >> 8) * (1.0f / 16777216.0f);
    float total = 0;
    for (std::size_t i = 0; i < k; ++i) {
        total += work[i];
        if (u < total) return order[i];
    }
    return order[k - 1];
}

}  // namespace

Generator::Generator(const TrainerState& state, const std::vector<std::int32_t>& prompt, double temperature, std::size_t top_k,
                     std::uint32_t seed)
    : decoder_(state), rng_(seed), temperature_(temperature), top_k_(top_k) {
    text_window(state, prompt);  // checks the prompt's ids
    for (const std::int32_t id : prompt) logits_ = decoder_.push(id);
}

std::vector<std::int32_t> Generator::next(std::size_t count) {
    std::vector<std::int32_t> ids;
    ids.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::int32_t id = choose(logits_, temperature_, top_k_, rng_, work_);
        ids.push_back(id);
        logits_ = decoder_.push(id);
    }
    return ids;
}

void check_generation(const TrainerState& state, double length, double temperature, double top_k, double seed) {
    auto range = [](const char* field, double value, double min, double max, bool whole) {
        char low[32], high[32], got[32];
        std::snprintf(low, sizeof low, "%.10g", min);
        std::snprintf(high, sizeof high, "%.10g", max);
        std::snprintf(got, sizeof got, "%.10g", value);
        if (whole && value == value && std::floor(value) != value) throw MhaError(field, "bad_option.whole", {{"field", field}, {"value", got}});
        if (!(value >= min && value <= max)) throw MhaError(field, "bad_option.range", {{"field", field}, {"value", got}, {"min", low}, {"max", high}});
    };
    range("length", length, 1, 100000, true);
    range("temperature", temperature, 0, 10, false);
    range("topK", top_k, 0, static_cast<double>(state.config.shape.vocab), true);
    range("seed", seed, 0, 4294967295.0, true);
}

// --- Bits per character ---------------------------------------------------------------------------

double bits_per_char(const TrainerState& state, const std::vector<std::int32_t>& ids) {
    require_text(state);
    if (ids.size() < 2) throw MhaError("text", "lm.text_too_short", {{"count", std::to_string(ids.size())}});
    text_window(state, ids);  // checks every id
    const std::size_t T = state.config.shape.T, V = state.config.shape.vocab;
    double bits = 0;
    std::size_t counted = 0;
    // Windows of T+1 characters, each predicting its last T from the ones before it in the window.
    for (std::size_t at = 0; at + 1 < ids.size(); at += T) {
        const std::size_t n = std::min(T, ids.size() - 1 - at);
        std::vector<std::int32_t> rows(ids.begin() + static_cast<std::ptrdiff_t>(at), ids.begin() + static_cast<std::ptrdiff_t>(at + n));
        std::vector<std::int32_t> targets(ids.begin() + static_cast<std::ptrdiff_t>(at + 1), ids.begin() + static_cast<std::ptrdiff_t>(at + 1 + n));
        const Activations a = forward_rows(state, rows, targets, n);
        for (std::size_t i = 0; i < n; ++i) bits -= log2_of(a.probs[i * V + static_cast<std::size_t>(targets[i])]);
        counted += n;
    }
    return bits / static_cast<double>(counted);
}

namespace {

// Start positions of `count` windows of `width` characters spread evenly over `n`.
std::vector<std::size_t> spread(std::size_t n, std::size_t width, std::size_t count) {
    std::vector<std::size_t> starts(count);
    const double last = static_cast<double>(n - width - 1);
    for (std::size_t i = 0; i < count; ++i)
        starts[i] = count == 1 ? 0 : static_cast<std::size_t>(last * static_cast<double>(i) / static_cast<double>(count - 1));
    return starts;
}

const TextCorpus& corpus_of(const TrainerState& state) {
    require_text(state);
    if (!state.corpus || state.corpus->heldout.empty()) throw MhaError("corpus", "lm.no_corpus", {{"corpus", state.config.corpus}});
    return *state.corpus;
}

constexpr std::size_t eval_rows = 64;

}  // namespace

TextEvaluation evaluate_heldout(const TrainerState& state, std::size_t windows) {
    const TextCorpus& corpus = corpus_of(state);
    const std::size_t T = state.config.shape.T, V = state.config.shape.vocab;
    const std::vector<std::size_t> starts = spread(corpus.heldout.size(), T + 1, windows);
    TextEvaluation e;
    double bits = 0;
    for (std::size_t done = 0; done < windows; done += eval_rows) {
        const std::size_t R = std::min(eval_rows, windows - done);
        std::vector<std::int32_t> rows(R * T), targets(R * T);
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t j = 0; j < T; ++j) {
                rows[r * T + j] = corpus.heldout[starts[done + r] + j];
                targets[r * T + j] = corpus.heldout[starts[done + r] + j + 1];
            }
        const Activations a = forward_rows(state, rows, targets, T);
        for (std::size_t i = 0; i < R * T; ++i) bits -= log2_of(a.probs[i * V + static_cast<std::size_t>(targets[i])]);
    }
    e.characters = windows * T;
    e.bits = bits / static_cast<double>(e.characters);
    return e;
}

// --- Head jobs ------------------------------------------------------------------------------------

namespace {

struct TextTally {
    double sum[4] = {0, 0, 0, 0}, count[4] = {0, 0, 0, 0};
    TextJobs jobs() const {
        auto mean = [&](int k) { return count[k] > 0 ? sum[k] / count[k] : 0.0; };
        return {mean(0), mean(1), mean(2), mean(3)};
    }
};

// One head's weights A [n, n] over the characters x [n]: previous character, induction (the key
// after the latest earlier occurrence of x[i−1] x[i]), and the verse's offsets (queries whose key
// is in the same poem: no newline from the key up to the query). With `newline` < 0 every query
// counts for the offsets.
void tally(TextTally& t, const float* A, const std::int32_t* x, std::size_t n, std::int32_t newline, bool induction_by_match) {
    for (std::size_t i = 0; i < n; ++i) {
        const float* row = A + i * n;
        if (i >= 1) {
            t.sum[0] += row[i - 1];
            t.count[0] += 1;
        }
        if (induction_by_match && i >= 1) {
            for (std::size_t j = i; j-- > 1;)
                if (x[j] == x[i] && x[j - 1] == x[i - 1]) {
                    t.sum[1] += row[j + 1];
                    t.count[1] += 1;
                    break;
                }
        }
        const std::size_t offsets[2] = {5, 11};
        for (int k = 0; k < 2; ++k) {
            const std::size_t off = offsets[k];
            if (i < off) continue;
            bool same_poem = true;
            for (std::size_t j = i - off; j < i && newline >= 0; ++j) same_poem = same_poem && x[j] != newline;
            if (!same_poem) continue;
            t.sum[2 + k] += row[i - off];
            t.count[2 + k] += 1;
        }
    }
}

std::vector<TextHeadScore> scores_of(const TrainerState& s, const std::vector<TextTally>& tallies) {
    std::vector<TextHeadScore> scores;
    for (std::size_t l = 0; l < s.config.shape.layers; ++l)
        for (std::size_t h = 0; h < s.config.shape.heads; ++h) scores.push_back({l, h, tallies[l * s.config.shape.heads + h].jobs()});
    return scores;
}

}  // namespace

std::vector<TextHeadScore> text_head_scores(const TrainerState& state, const std::vector<std::int32_t>& ids) {
    require_text(state);
    const std::vector<std::int32_t> window = text_window(state, ids);
    const std::size_t n = window.size(), H = state.config.shape.heads;
    const Activations a = forward_rows(state, window, std::vector<std::int32_t>(n, -1), n);
    const std::int32_t newline = state.corpus ? state.corpus->newline : -1;
    std::vector<TextTally> tallies(state.config.shape.layers * H);
    for (std::size_t l = 0; l < state.config.shape.layers; ++l)
        for (std::size_t h = 0; h < H; ++h) tally(tallies[l * H + h], a.layers[l].weights.data() + h * n * n, window.data(), n, newline, true);
    return scores_of(state, tallies);
}

std::vector<TextHeadScore> heldout_head_scores(const TrainerState& state, std::size_t windows) {
    const TextCorpus& corpus = corpus_of(state);
    const std::size_t T = state.config.shape.T, H = state.config.shape.heads, layers = state.config.shape.layers;
    std::vector<TextTally> tallies(layers * H);
    // Previous character and the offsets: the evaluation windows.
    const std::vector<std::size_t> starts = spread(corpus.heldout.size(), T + 1, windows);
    for (std::size_t done = 0; done < windows; done += eval_rows) {
        const std::size_t R = std::min(eval_rows, windows - done);
        std::vector<std::int32_t> rows(R * T);
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t j = 0; j < T; ++j) rows[r * T + j] = corpus.heldout[starts[done + r] + j];
        const Activations a = forward_rows(state, rows, std::vector<std::int32_t>(R * T, -1), T);
        for (std::size_t l = 0; l < layers; ++l)
            for (std::size_t r = 0; r < R; ++r)
                for (std::size_t h = 0; h < H; ++h)
                    tally(tallies[l * H + h], a.layers[l].weights.data() + (r * H + h) * T * T, rows.data() + r * T, T, corpus.newline, false);
    }
    // Induction: rows [prefix][P][P] of held-out text, P of L characters; query i in the second
    // copy predicts character i+1, which followed its earlier occurrence at key i−L+1.
    const std::size_t L = std::min<std::size_t>(32, T / 4), prefix = T - 2 * L, count = std::min<std::size_t>(128, windows);
    const std::vector<std::size_t> bases = spread(corpus.heldout.size(), T + 1, count);
    std::vector<std::int32_t> rows(count * T);
    for (std::size_t r = 0; r < count; ++r) {
        for (std::size_t j = 0; j < prefix + L; ++j) rows[r * T + j] = corpus.heldout[bases[r] + j];
        for (std::size_t j = 0; j < L; ++j) rows[r * T + prefix + L + j] = rows[r * T + prefix + j];
    }
    const Activations a = forward_rows(state, rows, std::vector<std::int32_t>(count * T, -1), T);
    for (std::size_t l = 0; l < layers; ++l)
        for (std::size_t h = 0; h < H; ++h) {
            TextTally& t = tallies[l * H + h];
            for (std::size_t r = 0; r < count; ++r) {
                const float* A = a.layers[l].weights.data() + (r * H + h) * T * T;
                for (std::size_t i = T - L; i < T; ++i) {
                    t.sum[1] += A[i * T + (i - L + 1)];
                    t.count[1] += 1;
                }
            }
        }
    return scores_of(state, tallies);
}

std::vector<std::vector<float>> text_attention(const TrainerState& state, const std::vector<std::int32_t>& ids) {
    require_text(state);
    const std::vector<std::int32_t> window = text_window(state, ids);
    Activations a = forward_rows(state, window, std::vector<std::int32_t>(window.size(), -1), window.size());
    std::vector<std::vector<float>> weights;
    for (LayerActivations& layer : a.layers) weights.push_back(std::move(layer.weights));
    return weights;
}

}  // namespace mha::model
