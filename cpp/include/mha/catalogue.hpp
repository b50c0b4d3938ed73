#pragma once
/// @file catalogue.hpp
/// @brief The walkthrough's steps, one entry each: the single source of truth for a step's id,
///        operation, input, axes, formula and which earlier step's buffer it views. Shapes, sizes,
///        FLOPs and the formula with a config's numbers are computed from an entry and the dims,
///        without running anything. The forward pass records each step under its id; the JS step
///        list, the i18n keys, the .d.ts ids and the README table are checked against this table
///        by tests (tests/cpp/test_catalogue.cpp, tests/js/catalogue.test.js).

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
};

/// One step. Text fields are templates, filled in per run by the functions below (backward steps
/// add the slots {group_sum}, {dx_formula}, {dx_latex}, {dv_operands}, {dk_operands}, {dx_operands}
/// and the input/view slots {dv_from}, {dk_from}, {d_k_per_head}; see catalogue.cpp):
///   axes      axis symbols, comma-separated: B, T, Tq, Tk, C, H, Hkv, D, H·D, Hkv·D.
///             Hkv reads "H" in plain MHA (Hkv = H), where K and V have as many heads as Q.
///             Tiled steps add Nk (key blocks, ⌈Tk/Bk⌉); decoding steps t (one entry per
///             decoding step: T in a whole run, 1 in the slice {t}) and t+1 (the cache's
///             length: T in a whole run, t+1 in the slice {t}).
///   formula   plain text; {src} is X, or S in cross-attention; {+bq} is " + bq" with a bias;
///             {Hkv} as in the axes; {group} is H/Hkv.
///   latex     the same formula in LaTeX, with the same slots ({Hkv} is H_{kv} or H).
///   operands  the shapes that go in, in axis symbols: every [..] becomes numbers; {+[H·D]} is
///             " + [..]" with a bias; {D} and {group} are numbers; {mask} names the mask's shape.
struct StepSpec {
    const char* id;
    Pass pass;
    const char* op;        ///< input, projection, reshape, transpose, repeat, matmul, scale, mask, softmax, merge
    const char* input;     ///< the step whose tensor this one is computed from ("" for an input)
    const char* axes;
    const char* title;     ///< English title; the page's titles in both languages are keyed by id
    const char* formula;
    const char* latex;
    const char* operands;
    const char* view_of;   ///< the step whose buffer this one views without copying, or ""
    When when;
};

/// @brief Every step, in walkthrough order.
const std::vector<StepSpec>& catalogue();

/// @brief The entry with this id, or nullptr.
const StepSpec* find_step(std::string_view id);

/// @brief Whether a run of these dims records the step (a backward step only when dOutput is given).
bool appears(const StepSpec& step, const Dims& dims);

/// @brief The step's operation in a run of these dims: a backward step written "{group_op:matmul}"
///        sums over each group of query heads under GQA/MQA ("sum"), and is the op named otherwise.
std::string step_op(const StepSpec& step, const Dims& dims);
/// @brief Whether a run of these dims records the step: a naive run the forward pass's steps, a
///        tiled run the same with the tiled steps for scores … context, an incremental run the
///        input x and the decoding steps; then as the step's `when` says.
bool appears(const StepSpec& step, const Dims& dims);

/// @brief How a lazy run's request may slice the step: "head" ({batch, head}: the scores-sized
///        and tiled steps, [1, 1, …]), "t" ({t}: the decoding steps, as they were at step t), or "".
const char* slice_kind(const StepSpec& step);

/// @brief The id of the step this one is computed from in a run of these dims ("" for an input).
std::string step_input(const StepSpec& step, const Dims& dims);

/// @brief The id of the step whose buffer this one views in a run of these dims, or "".
std::string step_view_of(const StepSpec& step, const Dims& dims);

/// @brief True for the steps shaped [B, H, Tq, Tk] (scores, scaled, masked, weights).
bool is_scores_sized(std::string_view id);

/// What a run's options make of a step's text.
struct StepContext {
    const Dims& dims;
    bool bias;
    MaskKind mask;
    bool padding;  ///< keyLengths given
};

std::vector<std::string> axis_names(const StepSpec& step, const Dims& dims);
std::vector<std::size_t> step_shape(const StepSpec& step, const Dims& dims);
std::uint64_t step_numel(const StepSpec& step, const Dims& dims);
std::string step_formula(const StepSpec& step, const StepContext& context);
std::string step_latex(const StepSpec& step, const StepContext& context);
/// "[2,4,8] @ [8,8] + [8] → [2,4,8]"; just the shape for an input.
std::string shape_formula(const StepSpec& step, const StepContext& context);
/// Floating-point operations: a product 2·M·K·N (+ M·N for a bias), the scale one per element,
/// softmax four (subtract, exp, add, divide), views and copies none.
double step_flops(const StepSpec& step, const StepContext& context);
/// Whether the step changes a value of its input, decided by what the step does for this config:
/// false for a reshape, transpose, repeat or merge, for a scale by 1/√D when D = 1 and for a mask
/// that masks nothing (`masks_a_key`); true for every other step that computes.
bool changes_values(const StepSpec& step, const Dims& dims, bool masks_a_key);

/// "[2,4,8]"
std::string shape_text(const std::vector<std::size_t>& shape);

}  // namespace mha
