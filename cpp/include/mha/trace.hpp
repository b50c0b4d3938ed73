#pragma once
/// @file trace.hpp
/// @brief What a run records: one snapshot per step of the walkthrough, and what it computed.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "error.hpp"

namespace mha {

/// One step of the walkthrough and the tensor it produced. A public contract: ids are stable, and
/// everything but the values comes from the step's catalogue entry (catalogue.hpp).
struct Snapshot {
    std::string id;             ///< stable snake_case id: "x", "q", "scores", "weights", ...
    std::string title;          ///< short English title ("Query projection")
    std::string op;             ///< input, projection, reshape, transpose, repeat, matmul, scale, mask, softmax, merge
    std::string input;          ///< the step it is computed from ("" for an input)
    std::string formula;        ///< symbolic: "Q = X·Wq + bq"
    std::string latex;          ///< the same in LaTeX: "Q = XW_q + b_q"
    std::string shape_formula;  ///< with this config's numbers: "[2,4,8] @ [8,8] + [8] → [2,4,8]"
    std::vector<std::size_t> shape;
    std::vector<std::string> axes;        ///< one name per axis: B, T, Tq, Tk, C, H, Hkv, D, H·D, Hkv·D
    std::vector<float> data;              ///< values in row-major order of `shape` (empty when not kept)
    std::vector<std::ptrdiff_t> strides;  ///< as xtensor reports them for the produced tensor (elements)
    bool contiguous = true;               ///< row-major contiguous in its buffer (a transposed view is not)
    bool changes_values = false;          ///< see mha::changes_values
    std::size_t numel = 0;
    double flops = 0;                     ///< floating-point operations of this step
    std::uint64_t bytes = 0;              ///< bytes of the tensor this step produced (numel · 4)
};

/// The gradients of a run given dOutput (backward.hpp): of its inputs and of every parameter.
struct Gradients {
    std::vector<float> x;   ///< [B, T, C]
    std::vector<float> kv;  ///< [B, Tk, C], cross-attention only
    Weights weights;        ///< dWq … dbo, in the layout of the config's weights
};

/// What a tiled run went through (issue 15): its tiles, and how many a mask skipped whole.
struct TileCounts {
    std::uint64_t total = 0;     ///< B·H·Nq·Nk
    std::uint64_t computed = 0;  ///< tiles the pass computed
    std::uint64_t skipped = 0;   ///< tiles whose every score is masked (above a causal diagonal, past a
                                 ///< padding length): never computed
    std::vector<std::uint64_t> skipped_per_head;  ///< [B]: of one head of batch row b (the mask is the
                                                  ///< same for every head of a row)
};

/// Everything one run produced.
struct Trace {
    Dims dims;
    bool bias = true;
    MaskKind mask = MaskKind::none;
    std::vector<std::int64_t> key_lengths;  ///< empty without a padding mask
    std::vector<Snapshot> steps;            ///< in walkthrough order; empty when snapshots are off
    std::vector<float> output;              ///< [B, Tq, C], always present
    Weights weights;                        ///< the parameters used (explicit or seeded)
    Gradients gradients;                    ///< with dOutput only
    std::vector<Warning> warnings;
    std::uint64_t parameter_count = 0;
    std::uint64_t kv_cache_bytes_per_token = 0;
    double flops = 0;                       ///< of every step of the pass, recorded or not
    std::uint64_t snapshot_bytes = 0;       ///< bytes of the steps of a full trace
    TileCounts tiles;                       ///< a tiled run's tiles (all zero otherwise)

    /// @brief The step with this id; throws MhaError(unknown_step) listing the ids it has.
    const Snapshot& step(std::string_view id) const;
};

}  // namespace mha
