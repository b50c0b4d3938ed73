#pragma once
/// @file catalogue.hpp
/// @brief The walkthrough's steps as the engine records them: the table generated from
///        cpp/data/steps.json, the one source of every step's facts (scripts/generate.js also
///        makes the JS module, the .d.ts unions and the docs' step tables from it). Shapes, sizes
///        and FLOPs come from an entry and the dims, without running anything.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

namespace mha {

/// Which way through attention a step belongs to: the forward pass, its gradients, the tiled
/// (FlashAttention-style) forward, or incremental decoding with a KV cache.
enum class Pass { forward, backward, tiled, incremental };

/// "forward", "backward", "tiled", "incremental"
const char* pass_name(Pass pass);

/// When a step appears in a run (of the algorithms that record it: see `appears`).
enum class When {
    always,
    cross,    ///< cross-attention only (K and V from a source sequence of their own)
    grouped,  ///< GQA/MQA only (Hkv < H)
    bias,     ///< with biases only (the gradients of bq, bk, bv, bo)
    appended, ///< with a learned key and value appended (add_bias_kv) only
};

/// How a lazy run's request may slice a step: whole only, one {batch, head} ([1, 1, …]: the
/// scores-sized and tiled steps), or {t} (a decoding step as it was at step t).
enum class Slice { whole, head, t };

/// An axis of a step, by its symbol: B, T, Tq, Tk, C, H, Hkv, D, H·D, Hkv·D, Nk (a tiled run's key
/// blocks), t (one entry per decoding step) and t+1 (the KV cache's length).
enum class Axis { B, T, Tq, Tk, C, H, Hkv, D, HD, HkvD, Nk, t, t1 };

/// The bit of an algorithm in StepSpec::algorithms.
constexpr unsigned algorithm_bit(Algorithm algorithm) { return 1u << static_cast<unsigned>(algorithm); }

/// One step, as the engine records it. The catalogue's text (titles, formulas, LaTeX, the shapes
/// that go in) is for readers, so it lives in the JS module generated from the same data
/// (web/src/catalogue/catalogue.js), which fills it in per run.
struct StepSpec {
    const char* id;
    Pass pass;
    unsigned algorithms;  ///< algorithm_bit of each algorithm whose runs record the step
    When when;
    Slice slice;
    const char* op;     ///< input, projection, …; "{group_op:op}" is a sum over each group under GQA/MQA
    const char* axes;   ///< axis symbols, comma-separated: B, T, Tq, Tk, C, H, Hkv, D, H·D, Hkv·D, Nk, t, t+1
    std::size_t rank;   ///< the axes, as …
    Axis axis[5];       ///< … enumerators, the first `rank` of them
    /// Its Tk axis counts the source's keys (Dims::Tk), before add_bias_kv appends its learned
    /// key; every other step's Tk counts the keys attention sees (Dims::keys()).
    bool source_keys = false;
};

/// @brief Every step, in walkthrough order (cpp/data/steps.json).
const std::vector<StepSpec>& catalogue();

/// @brief The entry with this id, or nullptr.
const StepSpec* find_step(std::string_view id);

/// @brief Whether a run of these dims records the step: a step of the run's algorithm (a backward
///        step only when dOutput is given), then as the step's `when` says.
bool appears(const StepSpec& step, const Dims& dims);

/// @brief The step's operation in a run of these dims: a step written "{group_op:matmul}" sums
///        over each group of query heads under GQA/MQA ("sum"), and is the op named otherwise.
std::string_view step_op(const StepSpec& step, const Dims& dims);

/// @brief "head", "t" or "" (as the JS API names a step's slice).
const char* slice_name(Slice slice);

/// @brief True for the steps shaped [B, H, Tq, Tk] (scores, scaled, masked, weights).
bool is_scores_sized(std::string_view id);

/// @brief One name per axis; Hkv reads H in plain MHA, where K and V have as many heads as Q.
std::vector<std::string> axis_names(const StepSpec& step, const Dims& dims);
std::vector<std::size_t> step_shape(const StepSpec& step, const Dims& dims);
std::uint64_t step_numel(const StepSpec& step, const Dims& dims);
/// Floating-point operations: a product 2·M·K·N (+ M·N for a bias), the scale one per element,
/// softmax four (subtract, exp, add, divide), views and copies none.
double step_flops(const StepSpec& step, const Dims& dims);
/// Whether the step changes a value of its input, decided by what the step does for this config:
/// false for a reshape, transpose, repeat or merge, for a scale by 1/√D when D = 1 and for a mask
/// that masks nothing (`masks_a_key`); true for every other step that computes.
bool changes_values(const StepSpec& step, const Dims& dims, bool masks_a_key);

/// "[2,4,8]"
std::string shape_text(const std::vector<std::size_t>& shape);

}  // namespace mha
