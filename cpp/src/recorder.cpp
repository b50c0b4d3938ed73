#include "mha/recorder.hpp"

namespace mha {

Recorder::Recorder(Trace& trace, const Config& config, const RunOptions& options, bool masks_a_key)
    : trace_(trace),
      context_{trace.dims, config.bias, config.mask, config.key_lengths.has_value()},
      masks_a_key_(masks_a_key),
      all_(!options.only && config.snapshots != Snapshots::none),
      values_(options.only || config.snapshots == Snapshots::all),
      only_(options.only ? &*options.only : nullptr) {}

bool Recorder::records(std::string_view id) const {
    if (only_) return only_->id == id;
    const StepSpec* step = find_step(id);
    return all_ && step && appears(*step, context_.dims);
}

bool Recorder::keeps_values(std::string_view id) const { return values_ && records(id); }

const StepRequest* Recorder::head_request() const { return only_ && only_->batch ? only_ : nullptr; }

const StepRequest* Recorder::t_request() const { return only_ && only_->t ? only_ : nullptr; }

void Recorder::record(const char* id, std::vector<float>&& values, const shape_t& shape) {
    if (!records(id)) return;
    Snapshot& s = begin(id, shape);
    s.strides.assign(shape.size(), 0);
    std::ptrdiff_t stride = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        s.strides[i] = shape[i] == 1 ? 0 : stride;  // as xtensor reports an axis of length 1
        stride *= static_cast<std::ptrdiff_t>(shape[i]);
    }
    if (keeps_values(id)) s.data = std::move(values);
    finish(s);
}

Snapshot& Recorder::begin(const char* id, shape_t shape) {
    Snapshot& s = trace_.steps.emplace_back();
    s.id = id;
    s.shape = std::move(shape);
    s.numel = 1;
    for (const std::size_t extent : s.shape) s.numel *= extent;
    s.bytes = s.numel * sizeof(float);
    return s;
}

void Recorder::finish(Snapshot& s) {
    const StepSpec& spec = *find_step(s.id);  // every id the pass records is in the catalogue
    s.title = spec.title;
    s.op = step_op(spec, context_.dims);
    s.input = step_input(spec, context_.dims);
    s.formula = step_formula(spec, context_);
    s.latex = step_latex(spec, context_);
    s.shape_formula = shape_formula(spec, context_);
    s.axes = axis_names(spec, context_.dims);
    s.flops = step_flops(spec, context_);
    s.changes_values = changes_values(spec, context_.dims, masks_a_key_);
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
