#pragma once
/// @file config.hpp
/// @brief What a run is asked to compute, in the symbols of the walkthrough, and its validation.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mha {

enum class MaskKind { none, causal };

/// Parameters in the walkthrough's math convention, `Q = X·Wq + bq`; all row-major.
/// An empty vector means "not given".
struct Weights {
    std::vector<float> Wq;  ///< [C, H·D]
    std::vector<float> Wk;  ///< [C, Hkv·D]
    std::vector<float> Wv;  ///< [C, Hkv·D]
    std::vector<float> Wo;  ///< [C, C]
    std::vector<float> bq;  ///< [H·D]
    std::vector<float> bk;  ///< [Hkv·D]
    std::vector<float> bv;  ///< [Hkv·D]
    std::vector<float> bo;  ///< [C]
};

/// @brief n zeros, for a caller to copy a tensor into. Built with the engine, whose wasm build
///        fills them with one memory.fill instruction; the same vector made in code built
///        without bulk memory (the bindings) zero-fills through libc's memset loop, which was 7%
///        of a B=1 T=128 C=768 H=12 run with explicit weights.
std::vector<float> zeros(std::size_t n);

/// @brief The largest |value| of `values` (NaN if one is NaN, Infinity if one is infinite): what
///        validate() finds for each explicit tensor, for a caller that scans a tensor while it is
///        still in cache (Config::largest_known).
float largest_magnitude(const std::vector<float>& values);
/// @brief The same for `count` values at `values` (a caller scanning a tensor piece by piece).
float largest_magnitude(const float* values, std::size_t count);

constexpr std::uint64_t default_memory_cap = 256ull << 20;  // 256 MiB of snapshots

/// A lazy run's request for the values of one step; for a scores-sized step (scores, scaled,
/// masked, weights) optionally of one batch row and head only, [1, 1, Tq, Tk].
struct StepRequest {
    std::string id;
    std::optional<std::int64_t> batch;
    std::optional<std::int64_t> head;
};

/// A config as the user wrote it. Sizes are signed so that validation can name a negative one.
struct Config {
    std::int64_t B = 0;                 ///< batch
    std::int64_t T = 0;                 ///< query length
    std::optional<std::int64_t> Tk;     ///< key/value length; default T
    std::int64_t C = 0;                 ///< model width
    std::int64_t H = 0;                 ///< query heads
    std::optional<std::int64_t> Hkv;    ///< key/value heads; default H (GQA: 1 <= Hkv < H; MQA: 1)
    bool bias = true;
    std::uint32_t seed = 0;
    MaskKind mask = MaskKind::none;
    std::optional<std::vector<std::int64_t>> key_lengths;  ///< padding mask: B valid key lengths
    std::optional<std::vector<float>> x;   ///< [B, T, C]; default: seeded
    std::optional<std::vector<float>> kv;  ///< [B, Tk, C] source of K and V; default: x
    std::optional<Weights> weights;        ///< default: seeded
    std::uint64_t memory_cap = default_memory_cap;  ///< bytes of snapshots a run may hold
    bool snapshots = true;                 ///< false: compute the output only
    /// snapshots: "lazy": every step's metadata but no values, and attention one head at a time,
    /// so that any size whose working tensors fit runs; values are then asked for with `request`.
    bool lazy = false;
    std::optional<StepRequest> request;    ///< record only this step (a slice of it): what a lazy run asks
    /// false: steps carry ids, values, numel and changes_values only: no title, op, formula,
    /// shape, axes, strides or shape formula (for a caller that holds those from an earlier run with the
    /// same metadata_key).
    bool describe = true;
    /// false: a step whose values are, by construction, an earlier step's (Snapshot::same_values_as)
    /// keeps no copy of them (data empty): for the bindings, which hand such values to JS once.
    bool copy_same_values = true;
    /// The largest_magnitude() of explicit tensors, by their data pointer, when the caller has
    /// it already (the bindings scan each tensor right after copying it in, while it is in cache,
    /// instead of validate() reading all of them from memory again). Tensors not listed are scanned.
    std::vector<std::pair<const float*, float>> largest_known;
    /// If set, receives the values of the scores-sized steps (scores, scaled, masked, weights) of a
    /// full trace one head at a time, while they are in cache: (step id, index of the head's first
    /// value in the step's row-major data, values, count). Those snapshots then keep no values
    /// (data empty, Snapshot::streamed) and their changes_values are found head by head; context's
    /// follows the lazy run's rule (true) when its values alone do not settle it. For the
    /// bindings, which copy the values straight into JS memory instead of twice through the heap.
    std::function<void(const char* id, std::size_t offset, const float* values, std::size_t count)> head_values;
};

/// The sizes of a validated config, every default filled in.
struct Dims {
    std::size_t B, T, Tk, C, H, Hkv, D;
    bool cross;  ///< K and V come from a separate source sequence (kv given, or Tk != T)
    std::size_t group() const { return H / Hkv; }  ///< query heads per K/V head
};

/// @brief Checks `config` and returns its sizes; throws MhaError naming the first problem.
Dims validate(const Config& config);

/// @brief Bytes of all snapshots a run of these sizes records (what the memory cap limits).
std::uint64_t snapshot_bytes(const Dims& dims);

/// @brief True for the steps shaped [B, H, Tq, Tk] (scores, scaled, masked, weights).
bool is_scores_sized(const std::string& step_id);

/// @brief Parameter count: Wq, Wo are C×C, Wk, Wv are C×(Hkv·D); biases add H·D + 2·Hkv·D + C.
std::uint64_t parameter_count(const Dims& dims, bool bias);

/// @brief Float32 bytes one token adds to a KV cache (one layer): K and V, Hkv·D values each.
std::uint64_t kv_cache_bytes_per_token(const Dims& dims);

/// @brief Human-readable size, "1.50 GiB" / "12.0 MiB" / "512 bytes".
std::string format_bytes(double bytes);

}  // namespace mha
