#pragma once
/// @file trace.hpp
/// @brief What a forward pass records: one snapshot per step of the walkthrough.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

namespace mha {

/// One step of the walkthrough and the tensor it produced. A public contract: ids are stable.
struct Snapshot {
    std::string id;             ///< stable snake_case id: "x", "q", "scores", "weights", ...
    std::string title;          ///< short English title ("Query projection")
    std::string op;             ///< input, projection, reshape, transpose, repeat, matmul, scale, mask, softmax, merge
    std::string formula;        ///< symbolic: "Q = X·Wq + bq"
    std::string shape_formula;  ///< with this config's numbers: "[2,4,8] @ [8,8] + [8] → [2,4,8]"
    std::vector<std::size_t> shape;
    std::vector<std::string> axes;  ///< one name per axis: B, T, Tq, Tk, C, H, Hkv, D, H·D, Hkv·D
    std::vector<float> data;        ///< values in row-major order of `shape`
    std::vector<std::ptrdiff_t> strides;  ///< as xtensor reports them for the produced tensor (elements)
    bool contiguous = true;         ///< row-major contiguous in its buffer (a transposed view is not)
    /// Changed a value of its input: for scale, mask and softmax, an element differs from the
    /// input's at its index; for a projection or product, it holds a value the input does not;
    /// false for reshape, transpose, repeat and merge.
    bool changes_values = false;
    std::size_t numel = 0;
    double flops = 0;               ///< floating-point operations of this step
    std::uint64_t bytes = 0;        ///< bytes of the tensor this step produced (numel · 4)
    /// Id of an earlier step whose data holds, by construction, the same numbers in the same
    /// order (a reshape of a contiguous buffer, a mask that masks nothing), or empty. Set in full
    /// traces only; the bindings hand such values to JS once (and, with
    /// Config::copy_same_values = false, this step's data is left empty).
    std::string same_values_as;
    /// The values went to Config::head_values, head by head, instead of into data.
    bool streamed = false;
};

/// Everything one forward pass produced.
struct Trace {
    Dims dims;
    bool bias = true;
    MaskKind mask = MaskKind::none;
    std::vector<std::int64_t> key_lengths;  ///< empty without a padding mask
    std::vector<Snapshot> steps;            ///< in walkthrough order; empty when snapshots are off
    std::vector<float> output;              ///< [B, Tq, C], always present
    Weights weights;                        ///< the parameters used (explicit or seeded)
    std::vector<std::string> warnings;
    std::uint64_t parameter_count = 0;
    std::uint64_t kv_cache_bytes_per_token = 0;
    double flops = 0;                       ///< sum over steps
    std::uint64_t snapshot_bytes = 0;       ///< sum of the steps' bytes

    /// @brief The step with this id; throws MhaError(unknown_step) listing the ids it has.
    const Snapshot& step(std::string_view id) const;
};

}  // namespace mha
