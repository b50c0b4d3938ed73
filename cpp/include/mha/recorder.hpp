#pragma once
/// @file recorder.hpp
/// @brief How every pass keeps its snapshots, so that the math never asks how it is being
///        recorded. A pass hands each step to the recorder as a tensor (`record`), or asks for the
///        step's buffer and writes its values in place (`record_in_place`, `record_heads`); the
///        recorder keeps all of them, none, only their metadata (a lazy run), or the one step (or
///        one head of it, or one decoding step of it) a caller asked for. Every kept value lives in
///        the trace's one buffer, sized before the pass starts, so that nothing moves while a pass
///        writes into it.

#include <string_view>
#include <utility>
#include <vector>

#include "catalogue.hpp"
#include "config.hpp"
#include "run_options.hpp"
#include "tensor.hpp"
#include "trace.hpp"

namespace mha {

class Recorder {
public:
    /// @param masks_a_key whether the run's mask hides any key (what the mask step changes)
    Recorder(Trace& trace, const Config& config, const RunOptions& options, bool masks_a_key);

    /// Whether step `id` is recorded at all (its metadata, at least): a step of this run's
    /// algorithm that the caller asked for.
    bool records(std::string_view id) const;
    /// Whether step `id` is recorded with its values: the pass computes what only a snapshot needs
    /// (the copies of GQA's shared heads, the context as its own tensor) only then.
    bool keeps_values(std::string_view id) const;
    /// The one step asked for is recorded, so the pass may stop once it has written it.
    bool done() const { return done_; }
    /// The {batch, head} asked for, when one head of a step is asked for.
    const StepRequest* head_request() const;
    /// The request, when a decoding step is asked for as it was at step t.
    const StepRequest* t_request() const;
    /// Whether batch row b's head h is computed: every head, unless one head was asked for.
    bool wanted(std::size_t b, std::size_t h) const;

    /// Records `produced`, a container or a strided view, as step `id`; its strides are those
    /// xtensor reports for it.
    template <class E>
    void record(const char* id, const E& produced) {
        if (!records(id)) return;
        Snapshot& s = begin(id, shape_t(produced.shape().begin(), produced.shape().end()));
        s.strides.assign(produced.strides().begin(), produced.strides().end());
        s.contiguous = is_contiguous(s.shape, s.strides);
        if (keeps_values(id)) {
            float* values = take(s.numel, 0.0f);
            copy_row_major(produced, values);
            s.data = Values(trace_.values, values, s.numel);
        }
        finish(s);
    }

    /// Records step `id`, row-major of `shape`, whose values the pass writes afterwards: their place
    /// in the trace (every value `fill` until written), or nullptr when its values are not kept.
    float* record_in_place(const char* id, const shape_t& shape, float fill = 0.0f);

    /// One buffer per (batch row, head) of a step shaped [B, H, …]: `at(b, h)` is that head's
    /// values in place, or nullptr when the step's values are not kept or another head was asked for.
    class Heads {
    public:
        float* at(std::size_t b, std::size_t h) const;
    private:
        friend class Recorder;
        float* base_ = nullptr;
        std::size_t per_head_ = 0, H_ = 0;
        const StepRequest* request_ = nullptr;
    };
    /// Records step `id` of shape [B, H, per_head…] ([1, 1, per_head…] when one head was asked
    /// for) for the pass to write head by head.
    Heads record_heads(const char* id, const shape_t& per_head, float fill = 0.0f);

private:
    Snapshot& begin(const char* id, shape_t shape);
    void finish(Snapshot& s);
    float* take(std::size_t count, float fill);
    static bool is_contiguous(const shape_t& shape, const strides_t& strides);

    Trace& trace_;
    const Dims& dims_;
    bool masks_a_key_;
    bool all_;            // every step
    bool values_;         // with values
    const StepRequest* only_;
    bool done_ = false;
};

}  // namespace mha
