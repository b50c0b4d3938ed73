#include "mha/recorder.hpp"

#include <stdexcept>

namespace mha {

Recorder::Recorder(Trace& trace, const Config& config, const RunOptions& options, bool masks_a_key)
    : trace_(trace),
      dims_(trace.dims),
      masks_a_key_(masks_a_key),
      all_(!options.only && config.snapshots != Snapshots::none),
      values_(options.only || config.snapshots == Snapshots::all),
      only_(options.only ? &*options.only : nullptr) {
    // Every value the run keeps, at once: a pass writes into its steps' buffers while it runs, so
    // the one buffer they live in must never move. One head asked for is [1, 1, …] of [B, H, …];
    // a decoding step asked for as it was at step t is no larger than the whole step.
    std::size_t capacity = 0, steps = 0;
    for (const StepSpec& step : catalogue())
        if (only_ ? only_->id == step.id : all_ && appears(step, dims_)) {
            ++steps;
            if (values_) capacity += step_numel(step, dims_) / (head_request() ? dims_.B * dims_.H : 1);
        }
    trace_.values->reserve(capacity);
    trace_.steps.reserve(steps);
}

bool Recorder::records(std::string_view id) const {
    if (only_) return only_->id == id;
    const StepSpec* step = find_step(id);
    return all_ && step && appears(*step, dims_);
}

bool Recorder::keeps_values(std::string_view id) const { return values_ && records(id); }

const StepRequest* Recorder::head_request() const { return only_ && only_->batch ? only_ : nullptr; }

const StepRequest* Recorder::t_request() const { return only_ && only_->t ? only_ : nullptr; }

bool Recorder::wanted(std::size_t b, std::size_t h) const {
    const StepRequest* r = head_request();
    return !r || (static_cast<std::size_t>(*r->batch) == b && static_cast<std::size_t>(*r->head) == h);
}

// Row-major strides, 0 for an axis of length 1 (as xtensor reports them).
static strides_t row_major_strides(const shape_t& shape) {
    strides_t strides(shape.size(), 0);
    std::ptrdiff_t stride = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        strides[i] = shape[i] == 1 ? 0 : stride;
        stride *= static_cast<std::ptrdiff_t>(shape[i]);
    }
    return strides;
}

float* Recorder::record_in_place(const char* id, const shape_t& shape, float fill) {
    if (!records(id)) return nullptr;
    Snapshot& s = begin(id, shape);
    s.strides = row_major_strides(shape);
    float* values = nullptr;
    if (keeps_values(id)) {
        values = take(s.numel, fill);
        s.data = Values(trace_.values, values, s.numel);
    }
    finish(s);
    return values;
}

Recorder::Heads Recorder::record_heads(const char* id, const shape_t& per_head, float fill) {
    const StepRequest* request = head_request();
    shape_t shape{request ? 1 : dims_.B, request ? 1 : dims_.H};
    shape.insert(shape.end(), per_head.begin(), per_head.end());
    Heads heads;
    heads.base_ = record_in_place(id, shape, fill);
    heads.per_head_ = 1;
    for (const std::size_t extent : per_head) heads.per_head_ *= extent;
    heads.H_ = dims_.H;
    heads.request_ = request;
    return heads;
}

float* Recorder::Heads::at(std::size_t b, std::size_t h) const {
    if (!base_) return nullptr;
    if (!request_) return base_ + (b * H_ + h) * per_head_;
    const bool asked = static_cast<std::size_t>(*request_->batch) == b && static_cast<std::size_t>(*request_->head) == h;
    return asked ? base_ : nullptr;
}

float* Recorder::take(std::size_t count, float fill) {
    std::vector<float>& values = *trace_.values;
    // Sized in the constructor from the catalogue's shapes; growing would move the buffer under
    // the snapshots that point into it.
    if (values.size() + count > values.capacity()) throw std::logic_error("a snapshot is larger than its catalogue shape");
    values.resize(values.size() + count, fill);
    return values.data() + values.size() - count;
}

Snapshot& Recorder::begin(const char* id, shape_t shape) {
    Snapshot& s = trace_.steps.emplace_back();
    s.id = find_step(id)->id;  // the catalogue's own text, which lives as long as the program
    s.shape = std::move(shape);
    s.numel = 1;
    for (const std::size_t extent : s.shape) s.numel *= extent;
    s.bytes = s.numel * sizeof(float);
    return s;
}

void Recorder::finish(Snapshot& s) {
    const StepSpec& spec = *find_step(s.id);  // every id the pass records is in the catalogue
    s.op = step_op(spec, dims_);
    s.grouped = dims_.Hkv < dims_.H;
    s.appended = dims_.appended;
    s.flops = step_flops(spec, dims_);
    s.changes_values = changes_values(spec, dims_, masks_a_key_);
    if (only_ && only_->id == s.id) done_ = true;
}

// Row-major contiguity, ignoring axes of extent 1 (xtensor gives those stride 0).
bool Recorder::is_contiguous(const shape_t& shape, const strides_t& strides) {
    std::ptrdiff_t expected = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (shape[i] == 1) continue;
        if (strides[i] != expected) return false;
        expected *= static_cast<std::ptrdiff_t>(shape[i]);
    }
    return true;
}

}  // namespace mha
