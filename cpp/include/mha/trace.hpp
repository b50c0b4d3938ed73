#pragma once
/// @file trace.hpp
/// @brief What a run records: one snapshot per step of the walkthrough, and what it computed.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <algorithm>

#include "config.hpp"
#include "error.hpp"

namespace mha {

/// A snapshot's values: a window of its trace's one buffer of values, read-only, which it keeps
/// alive (a snapshot copied out of a trace stays valid). Reads like the vector it is a window of
/// (size, begin/end, [], == a vector), and converts to a copy of one.
class Values {
public:
    Values() = default;
    Values(std::shared_ptr<const std::vector<float>> buffer, const float* data, std::size_t size)
        : buffer_(std::move(buffer)), data_(data), size_(size) {}
    const float* data() const { return data_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const float* begin() const { return data_; }
    const float* end() const { return data_ + size_; }
    float operator[](std::size_t i) const { return data_[i]; }
    operator std::vector<float>() const { return {begin(), end()}; }

    friend bool operator==(const Values& a, const Values& b) { return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin()); }
    friend bool operator!=(const Values& a, const Values& b) { return !(a == b); }
    friend bool operator==(const Values& a, const std::vector<float>& b) { return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin()); }
    friend bool operator==(const std::vector<float>& a, const Values& b) { return b == a; }
    friend bool operator!=(const Values& a, const std::vector<float>& b) { return !(a == b); }

private:
    std::shared_ptr<const std::vector<float>> buffer_;
    const float* data_ = nullptr;
    std::size_t size_ = 0;
};

/// One step of the walkthrough and the tensor it produced: the numbers of a run. A public contract:
/// ids are stable, and the step's words (title, formula, …) are its catalogue entry's, filled in
/// for the run by web/src/catalogue/step-text.js.
struct Snapshot {
    std::string_view id;        ///< stable snake_case id: "x", "q", "scores", "weights", ... (the catalogue's)
    std::string_view op;        ///< input, projection, reshape, transpose, repeat, matmul, scale, mask, softmax, merge
    std::vector<std::size_t> shape;
    /// One name per axis: B, T, Tq, Tk, C, H, Hkv, D, H·D, Hkv·D (Hkv reads H in plain MHA).
    std::vector<std::string> axes() const;
    Values data;                          ///< values in row-major order of `shape` (empty when not kept)
    std::vector<std::ptrdiff_t> strides;  ///< as xtensor reports them for the produced tensor (elements)
    bool contiguous = true;               ///< row-major contiguous in its buffer (a transposed view is not)
    bool changes_values = false;          ///< see mha::changes_values
    std::size_t numel = 0;
    double flops = 0;                     ///< floating-point operations of this step
    std::uint64_t bytes = 0;              ///< bytes of the tensor this step produced (numel · 4)
    bool grouped = false;                 ///< the run has fewer K/V heads than query heads (its axes say Hkv)
    std::size_t appended = 0;             ///< keys the run appended after the source's (its axes say Tk+1)
};

/// The gradients of a run given dOutput (backward.hpp): of its inputs and of every parameter.
struct Gradients {
    std::vector<float> x;   ///< [B, T, C]
    std::vector<float> kv;  ///< [B, Tk, C], cross-attention only
    Weights weights;        ///< dWq … dbo, in the layout of the config's weights
};

/// What a tiled run went through: its tiles, and how many a mask skipped whole.
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
    /// attnMask's and keyPaddingMask's form (MaskInput::Form as a number; −1: none) and attnMask's shape.
    double attn_mask_form = -1, key_padding_mask_form = -1;
    std::vector<std::int64_t> attn_mask_shape;
    std::vector<Snapshot> steps;            ///< in walkthrough order; empty when snapshots are off
    /// Every kept snapshot's values, one after another; each snapshot's `data` is a window of it.
    std::shared_ptr<std::vector<float>> values = std::make_shared<std::vector<float>>();
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
