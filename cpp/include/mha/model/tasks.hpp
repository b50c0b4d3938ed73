#pragma once
/// @file tasks.hpp
/// @brief The four training tasks, each with one head job that is measured, never assumed:
///          reverse    (full attention)  target[i] = input[T−1−i]           job: anti-diagonal
///          sort       (full attention)  target[i] = the i-th smallest input job: the key holding the answer
///          previous   (causal)          target[i] = input[i−1], i ≥ 1      job: previous token
///          induction  (causal)          a random sequence, then a repeat of its last m tokens
///                                       (m random per row); target[i] = input[i+1] on the
///                                       repeat                             job: prefix matching
///        Every batch is drawn from a mulberry32 stream, so a seed fixes every batch.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../seeded.hpp"

namespace mha::model {

/// `text` is the language model's: the next character of a corpus (text.hpp draws its batches).
enum class Task : std::uint32_t { reverse = 0, sort = 1, previous = 2, induction = 3, text = 4 };

/// A task's sizes and the model defaults that make its head job visible (trainer.hpp).
struct TaskSpec {
    const char* name;
    Task task;
    bool causal;
    std::size_t T, vocab;
    std::size_t steps;          ///< the default training length, in which the targets are reached
    std::size_t layers, heads, width;
    bool mlp;
    float lr;
    const char* job;            ///< the job measured: antiDiagonal, answer, previousToken, prefixMatching
    double job_target;          ///< the score the job's best head reaches
};

const std::vector<TaskSpec>& task_specs();
const TaskSpec* find_task(const std::string& name);
const TaskSpec& spec_of(Task task);

/// The shortest repeat of the induction task; the repeat is at most T/2 long.
constexpr std::size_t induction_min_repeat = 3;

/// @brief The smallest vocabulary a task of length T can use (sort and induction draw distinct tokens).
std::size_t min_vocab(Task task, std::size_t T);

/// @brief B sequences of the task (not `text`, whose batches come from its corpus: text.hpp): tokens [B, T] in 0 … vocab−1 and targets [B, T] (−1 where a
///        position is not scored).
void make_batch(Task task, std::size_t B, std::size_t T, std::size_t vocab, Mulberry32& rng, std::int32_t* tokens,
                std::int32_t* targets);

/// The jobs a head can do, each a score in [0, 1]: the attention mass on the keys the job expects,
/// averaged over the query positions where the job is defined.
struct JobScores {
    double antiDiagonal = 0;    ///< query i → key T−1−i, every i
    double answer = 0;          ///< query i → the keys holding target[i], where there is a target
    double previousToken = 0;   ///< query i → key i−1, i ≥ 1
    double prefixMatching = 0;  ///< query i → key j ≤ i with input[j−1] = input[i] (Olsson et al.), where
                                ///< input[i] occurred before (for induction: the scored positions)
};

/// @brief Adds one head's weights [T, T] for one sequence to running sums (score sums and counts).
struct JobTally {
    double sum[4] = {0, 0, 0, 0};
    double count[4] = {0, 0, 0, 0};
    void add(Task task, const float* weights, const std::int32_t* tokens, const std::int32_t* targets, std::size_t T);
    JobScores scores() const;
};

/// @brief A job's score by name ("antiDiagonal", …).
double job_score(const JobScores& scores, const std::string& job);

}  // namespace mha::model

namespace mha::model {

/// @brief The targets a task sets for given tokens [T] (one sequence): the reverse, the sorted
///        tokens, the previous token, or for induction the next token wherever the current one
///        occurred before; −1 where there is none.
void targets_for(Task task, const std::int32_t* tokens, std::size_t T, std::int32_t* targets);

}  // namespace mha::model
