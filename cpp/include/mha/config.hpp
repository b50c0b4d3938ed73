#pragma once
/// @file config.hpp
/// @brief What a user asks a run to compute, in the symbols of the walkthrough, and its checks.
///        How a run is recorded for a caller (one step of a lazy run) is not config: see
///        run_options.hpp.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run_options.hpp"

namespace mha {

enum class MaskKind { none, causal };

/// Which snapshots a run keeps: every step's values, none (the output only), or every step's
/// metadata with values computed when asked for (a lazy run, for sizes whose full trace is big).
enum class Snapshots { all, none, lazy };

/// How attention is computed. naive: the walkthrough's steps 12–16, one head's whole
/// [Tq, Tk] score matrix at a time. tiled: FlashAttention's algorithm, blockQ × blockK tiles with
/// an online softmax, never holding a score matrix. incremental: decoding one token at a time
/// with a KV cache (causal self-attention only). All three give the same output.
enum class Algorithm { naive, tiled, incremental };

/// "naive", "tiled", "incremental"
const char* algorithm_name(Algorithm algorithm);

/// The tiled pass's default block sizes: small, so that the page's few tokens make several tiles
/// (4 tokens: a 2×2 grid). For speed at large sizes pass larger blocks (64 and 128, see README).
constexpr std::int64_t default_block_q = 2;
constexpr std::int64_t default_block_k = 2;

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
    /// nn.MultiheadAttention(add_bias_kv=True): one learned key and one learned value appended to
    /// every batch row's K and V after the projections, as key Tk (every query sees it). Empty:
    /// none. Independent of `bias`.
    std::vector<float> bias_k;  ///< [Hkv·D]
    std::vector<float> bias_v;  ///< [Hkv·D]
};

/// A mask as PyTorch takes one (nn.MultiheadAttention's attn_mask and key_padding_mask,
/// scaled_dot_product_attention's attn_mask), under the name of its convention: `masked`
/// booleans (nn.MultiheadAttention: true = the key is hidden), `attend` booleans
/// (scaled_dot_product_attention: true = the query may look), or `add`, a float mask added to the
/// scaled scores (−∞ hides a key, any other value biases it, as ALiBi does).
struct MaskInput {
    enum class Form { masked, attend, add };
    Form form = Form::masked;
    /// As given. attnMask: a shape that broadcasts to [B, H, Tq, Tk] — [Tq, Tk], [B·H, Tq, Tk]
    /// (nn.MultiheadAttention's per-head form), [H, Tq, Tk], [B, 1, Tq, Tk], [B, H, Tq, Tk], each
    /// extent 1 or the full one. keyPaddingMask: [B, Tk] (empty: that).
    std::vector<std::int64_t> shape;
    std::vector<float> values;  ///< row-major; 0 or 1 for masked and attend
};

/// "masked", "attend", "add"
const char* mask_form_name(MaskInput::Form form);

/// The parameter tensors by name, in the order of Weights: {"Wq", &Weights::Wq}, ...
/// `is_bias`: there exactly when the config's `bias` is; `appended`: there exactly when the run
/// appends a learned key and value (addBiasKv).
struct WeightField {
    const char* name;
    std::vector<float> Weights::*member;
    bool is_bias;
    bool appended = false;
};
inline constexpr WeightField weight_fields[] = {
    {"Wq", &Weights::Wq, false}, {"Wk", &Weights::Wk, false}, {"Wv", &Weights::Wv, false}, {"Wo", &Weights::Wo, false},
    {"bq", &Weights::bq, true},  {"bk", &Weights::bk, true},  {"bv", &Weights::bv, true},  {"bo", &Weights::bo, true},
    {"bias_k", &Weights::bias_k, false, true}, {"bias_v", &Weights::bias_v, false, true}};

constexpr std::uint64_t default_memory_cap = 256ull << 20;  // 256 MiB

/// A config as the user wrote it. Sizes are signed so that validation can name a negative one.
struct Config {
    std::int64_t B = 0;                 ///< batch
    std::int64_t T = 0;                 ///< query length
    std::optional<std::int64_t> Tk;     ///< key/value length; default T
    std::int64_t C = 0;                 ///< model width
    std::int64_t H = 0;                 ///< query heads
    std::optional<std::int64_t> Hkv;    ///< key/value heads; default H (GQA: 1 <= Hkv < H; MQA: 1)
    bool bias = true;
    /// Append a learned key and value row (nn.MultiheadAttention's add_bias_kv): weights.bias_k and
    /// weights.bias_v, seeded unless given. Given weights with bias_k imply it.
    std::optional<bool> add_bias_kv;
    /// nn.MultiheadAttention's add_zero_attn: a key and a value of zeros appended after the rest
    /// (after add_bias_kv's), which every query sees: a query can put weight on nothing.
    bool add_zero_attn = false;
    std::uint32_t seed = 0;
    MaskKind mask = MaskKind::none;
    std::optional<std::vector<std::int64_t>> key_lengths;  ///< padding mask: B valid key lengths
    std::optional<MaskInput> attn_mask;         ///< attnMask, with the causal mask and keyLengths
    std::optional<MaskInput> key_padding_mask;  ///< keyPaddingMask [B, Tk], any pattern
    std::optional<std::vector<float>> x;   ///< [B, T, C]; default: seeded
    std::optional<std::vector<float>> kv;  ///< [B, Tk, C] source of K and V; default: x
    std::optional<Weights> weights;        ///< default: seeded
    /// [B, T, C]: the gradient of a loss L = Σ output ⊙ dOutput. Given, the run also computes the
    /// backward pass: the gradient of every step and of every parameter (backward.hpp).
    std::optional<std::vector<float>> d_output;
    std::uint64_t memory_cap = default_memory_cap;  ///< bytes a run may allocate, all told
    Snapshots snapshots = Snapshots::all;
    // --- Tiled and incremental attention ---
    Algorithm algorithm = Algorithm::naive;
    std::optional<std::int64_t> block_q;  ///< tiled: query rows per tile; default default_block_q
    std::optional<std::int64_t> block_k;  ///< tiled: keys per tile; default default_block_k
};

/// The sizes of a validated config, every default filled in.
struct Dims {
    std::size_t B, T, Tk, C, H, Hkv, D;
    bool cross;  ///< K and V come from a separate source sequence (kv given, or Tk != T)
    bool bias = true;       ///< the projections have biases (and so their gradients)
    bool backward = false;  ///< dOutput given: the run also computes every gradient
    std::size_t group() const { return H / Hkv; }  ///< query heads per K/V head
    /// Keys appended after the source's Tk (add_bias_kv: 1). Tk counts the source's keys (K, V
    /// and their heads are Tk long); attention sees keys() of them, the appended ones last.
    std::size_t appended = 0;
    bool bias_kv = false;    ///< the first appended key is add_bias_kv's bias_k (and value bias_v)
    bool zero_attn = false;  ///< the last appended key and value are zeros (add_zero_attn)
    std::size_t keys() const { return Tk + appended; }
    // --- Tiled and incremental attention ---
    Algorithm algorithm = Algorithm::naive;
    std::size_t Bq = 0, Bk = 0;  ///< tiled: the tile's rows and columns (blockQ, blockK, at most Tq, Tk)
    std::size_t Nq() const { return Bq ? (T + Bq - 1) / Bq : 0; }   ///< tiled: query blocks
    std::size_t Nk() const { return Bk ? (keys() + Bk - 1) / Bk : 0; }  ///< tiled: key blocks
};

/// What a run allocates, in bytes, by kind (counted in double: a config far over any cap must
/// not wrap around to a small number).
struct MemoryNeed {
    double inputs = 0;     ///< x and the source sequence
    double weights = 0;    ///< Wq, Wk, Wv, Wo and the biases
    double working = 0;    ///< the other tensors the pass computes (q, k, v, the concat, ...)
    double scores = 0;     ///< the scores it holds at once: one head's [Tq, Tk] (naive), one
                           ///< [Bq, Bk] tile (tiled), one row of the cache's length (incremental)
    double snapshots = 0;  ///< the values it records
    double total() const { return inputs + weights + working + scores + snapshots; }
};

/// @brief Checks `config` (sizes, divisibility, padding lengths, memory, then the explicit
///        tensors) and returns its sizes; throws MhaError naming the first problem.
Dims validate(const Config& config, const RunOptions& options = {});

/// @brief The checks that read no tensor values: everything but the explicit tensors' lengths
///        and values. A caller that copies tensors in (the bindings) runs this first.
Dims validate_sizes(const Config& config, const RunOptions& options = {});

/// @brief Number of values the explicit tensor `name` ("x", "kv", "weights.Wq", ...) must hold.
std::uint64_t tensor_length(std::string_view name, const Dims& dims);

/// @brief Throws MhaError(bad_tensor_length) unless an explicit tensor of `count` values fits.
void check_tensor_length(std::string_view name, std::uint64_t count, const Dims& dims);

/// @brief What a run of `config` with these options allocates.
MemoryNeed memory_need(const Dims& dims, const Config& config, const RunOptions& options = {});

/// @brief What a run of `config` would allocate with each algorithm, checking the config's sizes
///        but not its memory (the page's memory panel draws configs far above any cap):
///        `algorithm` replaces the config's own, and snapshots are off.
/// @throws MhaError for sizes that are invalid whatever the memory
MemoryNeed memory_need_of(const Config& config, Algorithm algorithm);

/// @brief Bytes of all snapshots of a full trace of these sizes.
std::uint64_t snapshot_bytes(const Dims& dims);

/// @brief Parameter count: Wq, Wo are C×C, Wk, Wv are C×(Hkv·D); biases add H·D + 2·Hkv·D + C.
std::uint64_t parameter_count(const Dims& dims, bool bias);

/// @brief Float32 bytes one token adds to a KV cache (one layer): K and V, Hkv·D values each.
std::uint64_t kv_cache_bytes_per_token(const Dims& dims);

/// @brief The divisors of n as a list parameter of a message (the first twenty): which H a C allows.
std::string divisors_of(std::uint64_t n);

/// @brief Human-readable size, "1.50 GiB" / "12.0 MiB" / "512 bytes".
std::string format_bytes(double bytes);

/// @brief The largest |value| of `values` (NaN if one is NaN, Infinity if one is infinite).
float largest_magnitude(const float* values, std::size_t count);

/// The most bytes one run may allocate in this build, whatever memoryCap says: in WebAssembly,
/// whose addresses have 32 bits, 3 GiB of the 4 GiB the module may grow to.
constexpr double addressable_bytes = sizeof(std::size_t) == 4 ? 3.0 * (1ull << 30) : 1099511627776.0;

}  // namespace mha
