#pragma once
/// @file language_model.hpp
/// @brief The character language model: the trainer's transformer (trainer.hpp) on the `text`
///        task, whose batches are windows of a corpus of character ids. What a reader does with
///        it: the next character's distribution, generation with a KV cache, bits per character,
///        attention over their own text and each head's job scores.
///
///        Text longer than the model's context T is read in windows: the model sees at most T
///        characters, and when it would need one more it keeps the last T/2 and goes on
///        (window_start). The KV-cache decoder and the full forward pass both follow that rule,
///        so generation and next() agree character for character.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../seeded.hpp"
#include "trainer.hpp"

namespace mha::model {

/// A corpus as character ids (vocab.json decodes them): a training part and a held-out part.
struct TextCorpus {
    std::vector<std::uint16_t> train, heldout;
    std::size_t vocab = 0;
    std::int32_t newline = -1;  ///< the id of "\n" (poems and paragraphs end there), or −1
};

/// @brief Checks a corpus against a model's vocabulary and context; throws MhaError (field "corpus").
void check_corpus(const TextCorpus& corpus, std::size_t vocab, std::size_t T);

/// @brief B rows of T characters and their next characters, from the training text. A share
///        `repeat.share` of the rows repeat a passage (the curriculum that grows an induction head,
///        scripts/lm/FINDINGS.md): characters a … a+L−1 of the window are written again right after
///        it and the row goes on with the text that followed (L uniform in [min, max], at most
///        (T+1)/2; a uniform in [0, T+2−2L)).
void make_text_batch(const TextCorpus& corpus, const RepeatRows& repeat, std::size_t B, std::size_t T, Mulberry32& rng,
                     std::int32_t* tokens, std::int32_t* targets);

/// @brief Where the window the model reads begins, for a text of n characters and context T:
///        0 while n ≤ T; past T the window keeps its last T/2 characters and grows again.
std::size_t window_start(std::size_t n, std::size_t T);

/// @brief The next character's probabilities [V] after `ids` (the window window_start gives).
std::vector<float> next_distribution(const TrainerState& state, const std::vector<std::int32_t>& ids);

/// One layer's running keys and values, and the decoder that extends them one character at a time.
class Decoder {
public:
    explicit Decoder(const TrainerState& state);
    /// The logits [V] for the character after everything pushed so far, with `id` pushed.
    const std::vector<float>& push(std::int32_t id);
    /// Characters in the cache now (≤ T), and the bytes its keys and values hold.
    std::size_t cached() const { return length_; }
    double cache_bytes() const;
    /// Times the cache was rebuilt from the window's last T/2 characters.
    std::size_t rebuilds() const { return rebuilds_; }

private:
    void step(std::int32_t id);
    const TrainerState& state_;
    ParamLayout layout_;
    std::vector<std::vector<float>> keys_, values_;  ///< per layer [T, C]
    std::vector<std::int32_t> window_;
    std::size_t length_ = 0, rebuilds_ = 0;
    std::vector<float> x_, h_, q_, k_, v_, concat_, attn_, fc_, logits_, weights_;
};

/// Generation after a prompt (not empty), a chunk of characters at a time: temperature 0 takes
/// the most likely character (the lowest id of equals), otherwise it samples from
/// softmax(logits / temperature) over the `top_k` most likely (0: all), from mulberry32(seed).
/// It reads the state it was made with, which must outlive it unchanged.
class Generator {
public:
    Generator(const TrainerState& state, const std::vector<std::int32_t>& prompt, double temperature, std::size_t top_k,
              std::uint32_t seed);
    /// The next `count` characters.
    std::vector<std::int32_t> next(std::size_t count);
    const Decoder& decoder() const { return decoder_; }

private:
    Decoder decoder_;
    Mulberry32 rng_;
    double temperature_;
    std::size_t top_k_;
    std::vector<float> logits_, work_;
};

/// @brief Checks generation's options: length 1 … 100,000, temperature 0 … 10, topK 0 … vocab.
void check_generation(const TrainerState& state, double length, double temperature, double top_k, double seed);

/// @brief Bits per character of `ids` (at least 2): each character after the first predicted from
///        the ones before it, read in windows of T+1 characters.
double bits_per_char(const TrainerState& state, const std::vector<std::int32_t>& ids);

/// Evaluation on the held-out text: `windows` windows of T+1 characters spread evenly over it.
struct TextEvaluation {
    double bits = 0;
    std::size_t characters = 0;
};
TextEvaluation evaluate_heldout(const TrainerState& state, std::size_t windows = 256);

/// A head's jobs on text, each the attention mass on the key the job expects, averaged over the
/// queries where it is defined (query i predicts character i+1).
struct TextJobs {
    double previousChar = 0;  ///< key i−1
    double induction = 0;     ///< the key after the earlier occurrence of the last two characters
    double halfLine = 0;      ///< key i−5: the predicted character's place in the previous half-line (6 back)
    double line = 0;          ///< key i−11: its place in the previous line (12 back)
};
struct TextHeadScore {
    std::size_t layer, head;
    TextJobs jobs;
};

/// @brief Each head's jobs on `ids` (the window window_start gives).
std::vector<TextHeadScore> text_head_scores(const TrainerState& state, const std::vector<std::int32_t>& ids);

/// @brief Each head's jobs on held-out text: previousChar, halfLine and line over the evaluation
///        windows (halfLine and line only where no newline lies between query and key), induction
///        over rows that repeat a held-out passage of min(32, T/4) characters.
std::vector<TextHeadScore> heldout_head_scores(const TrainerState& state, std::size_t windows = 256);

/// @brief Every layer's attention [1, H, n, n] over `ids` (the window window_start gives).
std::vector<std::vector<float>> text_attention(const TrainerState& state, const std::vector<std::int32_t>& ids);

/// The positional-encoding lesson: the model with its learned positions as trained, removed (every
/// position's row zero: attention alone has no order), or shuffled (rows permuted by a seed).
enum class Positions { trained = 0, removed = 1, shuffled = 2 };

/// @brief A copy of the model's parameters with its positions changed (its moments left out).
TrainerState with_positions(const TrainerState& state, Positions positions, std::uint32_t seed);

/// @brief The window of `ids` the model reads, checked (ids in the vocabulary, at least one).
std::vector<std::int32_t> text_window(const TrainerState& state, const std::vector<std::int32_t>& ids);

}  // namespace mha::model
