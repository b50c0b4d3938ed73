#include "mha/model/tasks.hpp"

#include <algorithm>
#include <numeric>

namespace mha::model {

const std::vector<TaskSpec>& task_specs() {
    // Model defaults: the smallest model that does the task through its head job. No MLP where
    // attention alone can move the answer (reverse, previous, induction), so the job is the
    // only way. Sort compares tokens, which takes an MLP; with two layers a seed can solve it
    // with a diffuse head (seed 0: answer score 0.30, seeds 1–2: 0.52–0.56), with three the last
    // layer's head finds the answer key (0.62–0.81 on seeds 0–2). Step counts: the length in
    // which tests/cpp/test_trainer.cpp sees every target met (README "Training").
    // name        task            causal  T   V   steps layers heads width mlp    lr     job               target
    static const std::vector<TaskSpec> specs = {
        {"reverse", Task::reverse, false, 16, 16, 400, 1, 1, 32, false, 3e-3f, "antiDiagonal", 0.9},
        {"sort", Task::sort, false, 8, 16, 1500, 3, 1, 64, true, 1e-3f, "answer", 0.45},
        {"previous", Task::previous, true, 16, 16, 400, 1, 1, 32, false, 3e-3f, "previousToken", 0.8},
        {"induction", Task::induction, true, 24, 32, 1000, 2, 1, 32, false, 3e-3f, "prefixMatching", 0.7},
        // The character language model (scripts/lm/FINDINGS.md): its vocabulary is its corpus's.
        {"text", Task::text, true, 128, 81, 3000, 2, 4, 128, true, 3e-3f, "previousToken", 0.9},
    };
    return specs;
}

const TaskSpec* find_task(const std::string& name) {
    for (const TaskSpec& spec : task_specs())
        if (name == spec.name) return &spec;
    return nullptr;
}

const TaskSpec& spec_of(Task task) { return task_specs()[static_cast<std::size_t>(task)]; }

std::size_t min_vocab(Task task, std::size_t T) {
    if (task == Task::sort) return T;                               // T distinct tokens
    if (task == Task::induction) return T - induction_min_repeat;   // the longest first part, distinct
    return 2;
}

namespace {

// The first n of a random permutation of 0 … vocab−1 (a partial Fisher–Yates shuffle).
void distinct_tokens(std::size_t n, std::size_t vocab, Mulberry32& rng, std::int32_t* out) {
    std::vector<std::int32_t> pool(vocab);
    std::iota(pool.begin(), pool.end(), 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t j = i + rng.next() % (vocab - i);
        std::swap(pool[i], pool[j]);
        out[i] = pool[i];
    }
}

}  // namespace

void make_batch(Task task, std::size_t B, std::size_t T, std::size_t vocab, Mulberry32& rng, std::int32_t* tokens, std::int32_t* targets) {
    for (std::size_t b = 0; b < B; ++b) {
        std::int32_t* x = tokens + b * T;
        std::int32_t* y = targets + b * T;
        switch (task) {
            case Task::reverse:
                for (std::size_t i = 0; i < T; ++i) x[i] = static_cast<std::int32_t>(rng.next() % vocab);
                for (std::size_t i = 0; i < T; ++i) y[i] = x[T - 1 - i];
                break;
            case Task::sort:
                distinct_tokens(T, vocab, rng, x);
                std::copy(x, x + T, y);
                std::sort(y, y + T);
                break;
            case Task::previous:
                for (std::size_t i = 0; i < T; ++i) x[i] = static_cast<std::int32_t>(rng.next() % vocab);
                y[0] = -1;
                for (std::size_t i = 1; i < T; ++i) y[i] = x[i - 1];
                break;
            case Task::induction: {
                // n distinct tokens, then their last m again: a fixed offset cannot find the answer,
                // only looking up where the current token was before.
                const std::size_t longest = T / 2;
                const std::size_t m = induction_min_repeat + rng.next() % (longest - induction_min_repeat + 1);
                const std::size_t n = T - m;
                distinct_tokens(n, vocab, rng, x);
                for (std::size_t j = 0; j < m; ++j) x[n + j] = x[n - m + j];
                std::fill(y, y + T, -1);
                for (std::size_t i = n; i + 1 < T; ++i) y[i] = x[i + 1];
                break;
            }
            case Task::text:  // drawn from its corpus (make_text_batch); nothing to make here
                std::fill(x, x + T, 0);
                std::fill(y, y + T, -1);
                break;
        }
    }
}

void JobTally::add(Task task, const float* A, const std::int32_t* x, const std::int32_t* y, std::size_t T) {
    for (std::size_t i = 0; i < T; ++i) {
        const float* row = A + i * T;
        // Anti-diagonal and previous token: one key each.
        sum[0] += row[T - 1 - i];
        count[0] += 1;
        if (i >= 1) {
            sum[2] += row[i - 1];
            count[2] += 1;
        }
        // The keys holding the answer.
        if (y[i] >= 0) {
            double mass = 0;
            for (std::size_t j = 0; j < T; ++j)
                if (x[j] == y[i]) mass += row[j];
            sum[1] += mass;
            count[1] += 1;
        }
        // Prefix matching: the keys just after an earlier occurrence of the current token.
        const bool scored = task == Task::induction ? y[i] >= 0 : std::find(x, x + i, x[i]) != x + i;
        if (scored) {
            double mass = 0;
            for (std::size_t j = 1; j <= i; ++j)
                if (x[j - 1] == x[i]) mass += row[j];
            sum[3] += mass;
            count[3] += 1;
        }
    }
}

JobScores JobTally::scores() const {
    auto mean = [&](int k) { return count[k] > 0 ? sum[k] / count[k] : 0.0; };
    return {mean(0), mean(1), mean(2), mean(3)};
}

double job_score(const JobScores& s, const std::string& job) {
    if (job == "antiDiagonal") return s.antiDiagonal;
    if (job == "answer") return s.answer;
    if (job == "previousToken") return s.previousToken;
    return s.prefixMatching;
}

}  // namespace mha::model

namespace mha::model {

void targets_for(Task task, const std::int32_t* x, std::size_t T, std::int32_t* y) {
    switch (task) {
        case Task::reverse:
            for (std::size_t i = 0; i < T; ++i) y[i] = x[T - 1 - i];
            break;
        case Task::sort:
            std::copy(x, x + T, y);
            std::sort(y, y + T);
            break;
        case Task::previous:
            y[0] = -1;
            for (std::size_t i = 1; i < T; ++i) y[i] = x[i - 1];
            break;
        case Task::induction:
            for (std::size_t i = 0; i < T; ++i) y[i] = i + 1 < T && std::find(x, x + i, x[i]) != x + i ? x[i + 1] : -1;
            break;
        case Task::text:
            for (std::size_t i = 0; i + 1 < T; ++i) y[i] = x[i + 1];
            if (T) y[T - 1] = -1;
            break;
    }
}

}  // namespace mha::model
