#pragma once
/// @file recorder.hpp
/// @brief How a pass keeps its snapshots, so that the math never asks how it is being recorded.
///        The pass hands every step to `record`; the recorder keeps all of them, none, only their
///        metadata (a lazy run), or the one step (or one head of it) a caller asked for, and fills
///        in everything but the values from the step's catalogue entry.

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
    /// The one step asked for is recorded, so the pass may stop.
    bool done() const { return done_; }
    /// The {batch, head} asked for, when one head of a scores-sized step is asked for.
    const StepRequest* head_request() const;
    /// The request, when a decoding step is asked for as it was at step t.
    const StepRequest* t_request() const;

    /// Records `produced`, a container or a strided view, as step `id`; its strides are those
    /// xtensor reports for it.
    template <class E>
    void record(const char* id, const E& produced) {
        if (!records(id)) return;
        Snapshot& s = begin(id, shape_t(produced.shape().begin(), produced.shape().end()));
        s.strides.assign(produced.strides().begin(), produced.strides().end());
        s.contiguous = is_contiguous(s.shape, s.strides);
        if (keeps_values(id)) {
            s.data.resize(s.numel);
            copy_row_major(produced, s.data.data());
        }
        finish(s);
    }

    /// Records values computed straight into a row-major buffer of `shape` (taken over, not
    /// copied). `values` may be empty when only the metadata is kept.
    void record(const char* id, std::vector<float>&& values, const shape_t& shape);

private:
    Snapshot& begin(const char* id, shape_t shape);
    void finish(Snapshot& s);
    static bool is_contiguous(const shape_t& shape, const strides_t& strides);

    Trace& trace_;
    StepContext context_;
    bool masks_a_key_;
    bool all_;            // every step
    bool values_;         // with values
    const StepRequest* only_;
    bool done_ = false;
};

}  // namespace mha
