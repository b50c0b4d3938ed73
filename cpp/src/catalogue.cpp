#include "mha/catalogue.hpp"

#include <cmath>
#include <algorithm>

namespace mha {

const std::vector<StepSpec>& catalogue() {
    static const std::vector<StepSpec> steps = {
#include "mha/steps.inc"
    };
    return steps;
}

const char* pass_name(Pass pass) {
    switch (pass) {
        case Pass::forward: return "forward";
        case Pass::backward: return "backward";
        case Pass::tiled: return "tiled";
        case Pass::incremental: return "incremental";
    }
    return "forward";
}

const StepSpec* find_step(std::string_view id) {
    // Every snapshot looks its entry up: by ids sorted once, not a scan of the catalogue.
    static const std::vector<const StepSpec*> by_id = [] {
        std::vector<const StepSpec*> sorted;
        for (const StepSpec& step : catalogue()) sorted.push_back(&step);
        std::sort(sorted.begin(), sorted.end(), [](const StepSpec* a, const StepSpec* b) { return std::string_view(a->id) < b->id; });
        return sorted;
    }();
    const auto found = std::lower_bound(by_id.begin(), by_id.end(), id, [](const StepSpec* step, std::string_view key) { return step->id < key; });
    return found != by_id.end() && (*found)->id == id ? *found : nullptr;
}

const char* slice_name(Slice slice) {
    switch (slice) {
        case Slice::whole: return "";
        case Slice::head: return "head";
        case Slice::t: return "t";
    }
    return "";
}

bool appears(const StepSpec& step, const Dims& d) {
    if (step.pass == Pass::backward && !d.backward) return false;  // gradients only with dOutput
    if (!(step.algorithms & algorithm_bit(d.algorithm))) return false;
    switch (step.when) {
        case When::always: return true;
        case When::cross: return d.cross;
        case When::grouped: return d.Hkv < d.H;
        case When::bias: return d.bias;
        case When::appended: return d.appended > 0;
    }
    return false;
}

std::string_view step_op(const StepSpec& step, const Dims& d) {
    const std::string_view op = step.op;
    // "{group_op:matmul}": a sum over each group under GQA/MQA, else the op named.
    if (op.rfind("{group_op:", 0) == 0) return d.Hkv < d.H ? std::string_view("sum") : op.substr(10, op.size() - 11);
    return op;
}

bool is_scores_sized(std::string_view id) {
    return id == "scores" || id == "scaled" || id == "masked" || id == "weights";
}

namespace {

std::vector<std::string_view> split_axes(std::string_view axes) {
    std::vector<std::string_view> symbols;
    for (std::size_t at = 0; at < axes.size();) {
        const std::size_t comma = axes.find(',', at);
        const std::size_t end = comma == std::string_view::npos ? axes.size() : comma;
        symbols.push_back(axes.substr(at, end - at));
        at = end + 1;
    }
    return symbols;
}

std::size_t size_of(Axis axis, const Dims& d, bool source_keys) {
    switch (axis) {
        case Axis::B: return d.B;
        case Axis::T:
        case Axis::Tq: return d.T;
        case Axis::Tk: return source_keys ? d.Tk : d.keys();
        case Axis::C: return d.C;
        case Axis::H: return d.H;
        case Axis::Hkv: return d.Hkv;
        case Axis::D: return d.D;
        case Axis::HD: return d.H * d.D;
        case Axis::HkvD: return d.Hkv * d.D;
        case Axis::Nk: return d.Nk();
        case Axis::t:
        case Axis::t1: return d.T;  // a whole run: every step t, the full cache
    }
    return 0;
}

// Hkv reads H in plain MHA, where K and V have as many heads as Q.
std::string axis_name(std::string_view symbol, const Dims& d, bool source_keys) {
    if (symbol == "Tk" && d.appended && !source_keys) return "Tk+" + std::to_string(d.appended);  // the learned key appended
    if (d.Hkv == d.H && symbol == "Hkv") return "H";
    if (d.Hkv == d.H && symbol == "Hkv·D") return "H·D";
    return std::string(symbol);
}

}  // namespace

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
}

std::vector<std::string> axis_names(const StepSpec& step, const Dims& d) {
    std::vector<std::string> names;
    for (const std::string_view symbol : split_axes(step.axes)) names.push_back(axis_name(symbol, d, step.source_keys));
    return names;
}

std::vector<std::size_t> step_shape(const StepSpec& step, const Dims& d) {
    std::vector<std::size_t> shape(step.rank);
    for (std::size_t i = 0; i < step.rank; ++i) shape[i] = size_of(step.axis[i], d, step.source_keys);
    return shape;
}

std::uint64_t step_numel(const StepSpec& step, const Dims& d) {
    std::uint64_t n = 1;
    for (std::size_t i = 0; i < step.rank; ++i) n *= size_of(step.axis[i], d, step.source_keys);
    return n;
}

// Floating-point operations of a gradient: a product 2·M·K·N, a sum one per value added, the
// softmax backward four per element (dA ⊙ A, the row sum, the subtraction, the product with A).
static double backward_flops(const StepSpec& step, const Dims& d) {
    const double B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, D = d.D, HD = H * D, KD = static_cast<double>(d.Hkv) * D;
    const double scores = B * H * T * Tk;
    const bool grouped = d.Hkv < d.H;
    const double group_sum = (static_cast<double>(d.group()) - 1) * B * KD * Tk;
    const std::string_view id = step.id;
    if (id == "d_concat") return 2 * B * T * C * C;
    if (id == "d_weights" || id == "d_q_heads" || id == "d_k_t" || id == "d_v_shared") return 2 * scores * D;
    if (id == "d_masked") return 4 * scores;
    if (id == "d_scores") return scores;
    if (id == "d_v_heads") return grouped ? group_sum : 2 * scores * D;
    if (id == "d_k_heads") return grouped ? group_sum : 0;
    if (id == "d_source") return 4 * B * Tk * KD * C + B * Tk * C;
    if (id == "d_x") return 2 * B * T * HD * C + (d.cross ? 0 : 4 * B * T * KD * C + 2 * B * T * C);
    if (id == "d_wq") return 2 * C * B * T * HD;
    if (id == "d_wk" || id == "d_wv") return 2 * C * B * Tk * KD;
    if (id == "d_wo") return 2 * C * B * T * C;
    if (id == "d_bq" || id == "d_bo") return B * T * (id == "d_bq" ? HD : C);
    if (id == "d_bk" || id == "d_bv") return B * Tk * KD;
    return 0;  // the input dOutput, views, the mask (which writes zeros)
}

// Tiled and decoding steps, counted as their naive counterparts are: over every tile
// (skipped ones too, as the naive products count the masked scores) and, decoding, over every
// entry of the cache each token attends to.
static double pass_flops(const StepSpec& step, const Dims& d, bool bias) {
    const std::string_view id = step.id;
    const double B = d.B, H = d.H, T = d.T, Tk = static_cast<double>(d.keys()), D = d.D, C = d.C;
    const double scores = B * H * T * Tk, rows = B * H * T * static_cast<double>(d.Nk());
    if (id == "tile_scores") return 2 * scores * D + scores;   // Q_i·K_jᵀ, then the scale
    if (id == "tile_max") return scores;                       // one comparison per score
    if (id == "tile_correction") return 2 * rows;              // a subtraction and an exp per row and tile
    if (id == "tile_probs") return 2 * scores;                 // subtract, exp
    if (id == "tile_sum") return scores + 2 * rows;            // add; rescale and add per row and tile
    if (id == "tile_output") return 2 * scores * D + 2 * rows * D;  // P_ij·V_j; rescale and add O
    if (id == "tile_context") return B * H * T * D;            // one division per value
    const double cache = B * H * T * (T + 1) / 2;              // Σ_t (t+1) scores over the steps
    if (id == "decode_q" || id == "decode_k" || id == "decode_v" || id == "decode_output") {
        const double out = static_cast<double>(step_numel(step, d));
        return 2 * out * C + (bias ? out : 0);
    }
    if (id == "decode_scores") return 2 * cache * D + cache;
    if (id == "decode_weights") return 4 * cache;
    if (id == "decode_context") return 2 * cache * D;
    return 0;  // the caches: appending copies
}

double step_flops(const StepSpec& step, const Dims& d) {
    if (step.pass == Pass::backward) return backward_flops(step, d);
    if (step.pass == Pass::tiled || step.pass == Pass::incremental) return pass_flops(step, d, d.bias);
    const std::string_view op = step.op;
    const double out = static_cast<double>(step_numel(step, d));
    if (op == "projection") {  // [rows, C] @ [C, N]: each output value is a dot product over C
        return 2.0 * out * static_cast<double>(d.C) + (d.bias ? out : 0.0);
    }
    if (op == "matmul") {  // scores contract D, the context contracts Tk
        const std::string_view id = step.id;
        return 2.0 * out * static_cast<double>(id == "scores" ? d.D : d.keys());
    }
    if (op == "scale") return out;
    if (op == "softmax") return 4.0 * out;
    return 0.0;
}

bool changes_values(const StepSpec& step, const Dims& d, bool masks_a_key) {
    const std::string_view op = step_op(step, d);
    if (op == "input" || op == "reshape" || op == "transpose" || op == "repeat" || op == "merge" || op == "append") return false;
    if (op == "scale") return d.D != 1;  // a scale by 1/√1 leaves every value alone
    // Backward through the mask: the softmax's backward already gave masked keys a gradient of 0.
    if (op == "mask") return step.pass == Pass::forward && masks_a_key;
    return true;
}

}  // namespace mha
