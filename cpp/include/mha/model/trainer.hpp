#pragma once
/// @file trainer.hpp
/// @brief Training the tiny transformer on a task, deterministically: AdamW, gradient clipping by
///        global norm, dropout on the attention weights in training only, every tensor float32.
///        A trainer's whole state (its options, step, random state, parameters and AdamW moments)
///        is a value, which `save` turns into a checkpoint and `load` back, bit for bit: the JS
///        API keeps that checkpoint and hands it to a stateless engine call per chunk of steps,
///        so no trainer lives inside the engine between calls.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../trace.hpp"
#include "tasks.hpp"
#include "transformer.hpp"

namespace mha::model {

struct TextCorpus;  // language_model.hpp

/// The language model's curriculum: a share of each batch's rows repeat a passage of min … max
/// characters (language_model.hpp, make_text_batch).
struct RepeatRows {
    float share = 0.0f;
    std::size_t min = 16, max = 48;
};

/// What a user writes: the task, and any option that overrides the task's default.
struct TrainerOptions {
    std::string task = "reverse";
    std::optional<double> seed, T, vocab, layers, heads, width, batch;
    std::optional<bool> mlp, layernorm;
    std::optional<double> lr, weight_decay, dropout, clip;
    // The text task's: the corpus's name (kept in checkpoints; its characters are given apart, as
    // TrainerState::corpus) and the repeat rows.
    std::string corpus;
    std::optional<double> repeat_share, repeat_min, repeat_max;
};

/// Options resolved against the task's defaults and checked.
struct TrainerConfig {
    Task task = Task::reverse;
    std::uint32_t seed = 0;
    ModelShape shape;
    std::size_t batch = 32;
    float lr = 3e-3f, weight_decay = 0.01f, dropout = 0.0f, clip = 1.0f;
    float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
    std::size_t steps = 0;  ///< the task's default training length
    std::string corpus;     ///< the text task's corpus by name ("moby-dick"), ≤ 32 bytes
    RepeatRows repeat;
};

/// @brief The task's defaults with `options` over them; throws MhaError naming the option at fault.
TrainerConfig resolve_options(const TrainerOptions& options);

struct TrainerState {
    TrainerConfig config;
    std::uint32_t step = 0;
    std::uint32_t rng = 0;  ///< mulberry32 state of the training batches and dropout
    std::vector<float> params, m, v;
    /// The text task's characters: not part of a checkpoint (the corpus's files are), attached
    /// after create or load; training the text task without it is refused by name.
    std::shared_ptr<const TextCorpus> corpus;
};

/// @brief A fresh trainer at step 0 with seeded parameters.
TrainerState create_trainer(const TrainerConfig& config);

/// How a trainer trains from its next step on, without changing what it is (its model, task, data
/// and step): what a learner turns while training runs. Each option absent keeps its value.
struct TrainingOptions {
    std::optional<double> lr, weight_decay, dropout, clip;
};

/// @brief `state` with other training options (the same ranges as resolve_options); its
///        parameters, moments, step and random state are kept, so evaluation, attention and head
///        scores do not change. Throws MhaError naming the option at fault.
TrainerState reconfigure(TrainerState state, const TrainingOptions& options);

/// Checkpoint format version (checkpoint bytes 4–7). Version 1 (the tasks' checkpoints before the
/// language model) is still read.
constexpr std::uint32_t checkpoint_version = 2;

/// How a checkpoint stores the model: whole (parameters and AdamW moments in float32, continues
/// bit for bit) or for shipping (parameters only, optionally in float16: training from it starts
/// its moments again at zero).
struct CheckpointStorage {
    bool parameters_only = false;
    bool float16 = false;
};

/// @brief The state as bytes: "MHAT", version, length, options (version 2: and the corpus's
///        name, the repeat rows, the storage), step, random state, parameters, AdamW moments, then
///        an FNV-1a checksum of the 32-bit words before it (little-endian).
std::vector<std::uint8_t> save(const TrainerState& state, CheckpointStorage storage = {});

/// @brief float ↔ IEEE half, round to nearest even (what float16 checkpoints store).
std::uint16_t to_half(float value);
float from_half(std::uint16_t half);

/// @brief The state `save` wrote; throws MhaError (field "checkpoint") for anything else.
TrainerState load(const std::uint8_t* bytes, std::size_t size);

struct TrainChunk {
    std::uint32_t step = 0;    ///< steps taken so far
    double loss = 0;           ///< the last step's training loss
    double accuracy = 0;       ///< the last training batch's accuracy on its scored positions
    std::vector<float> losses; ///< every step's loss, in order
};

/// @brief `steps` steps of AdamW on fresh batches (1 … max_steps_per_call).
TrainChunk train(TrainerState& state, double steps);
constexpr double max_steps_per_call = 100000;

struct Evaluation {
    double loss = 0, accuracy = 0;
    std::size_t sequences = 0;
};

/// Fresh batches for evaluation come from a stream of their own, the same at every call, so that
/// scores compare across steps and nothing depends on whether one evaluated.
constexpr std::size_t eval_sequences = 512;

/// @brief Loss and accuracy (on the scored positions) on fresh batches, without dropout.
Evaluation evaluate(const TrainerState& state, std::size_t sequences = eval_sequences);

struct HeadScore {
    std::size_t layer, head;
    JobScores jobs;
};

/// @brief Every head's score for every job, over fresh batches, without dropout.
std::vector<HeadScore> head_scores(const TrainerState& state, std::size_t sequences = eval_sequences);

/// @brief The length of one row of `tokens`: T, or for a language model (the text task) the
///        length of a text of 1 … T characters, which is one row.
std::size_t row_length(const TrainerState& state, const std::vector<std::int32_t>& tokens);

/// @brief Checks tokens [B, T] against the trainer (throws MhaError field "tokens"); returns B.
std::size_t check_tokens(const TrainerState& state, const std::vector<std::int32_t>& tokens);

/// @brief Checks a count of tokens before they are copied in: whole sequences of T, at most 512
///        of them, and the memory a forward pass over them takes within the trainer's limit
///        (the limit covers every call, not only the training batch). Returns B.
std::size_t check_token_count(const TrainerState& state, double count);

/// @brief The predicted target token per position. // [B, T]
std::vector<std::int32_t> predict(const TrainerState& state, const std::vector<std::int32_t>& tokens);

/// @brief Every layer's attention weights [B, H, T, T], without dropout.
std::vector<std::vector<float>> attention(const TrainerState& state, const std::vector<std::int32_t>& tokens);

/// @brief One layer's attention block as the walkthrough runs it: its input (after LayerNorm)
///        as x, its weights, its mask, and as dOutput the gradient the loss on these tokens sends
///        into the block's output (one training step's, without dropout): a traced forward and
///        backward pass. Positions without a target (and a task without targets here) give 0.
Trace block_run(const TrainerState& state, const std::vector<std::int32_t>& tokens, double layer);

/// @brief Bytes a trainer of this config allocates for one training step, all told.
double trainer_memory(const TrainerConfig& config);

}  // namespace mha::model
