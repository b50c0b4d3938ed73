#include "mha/torch_params.hpp"

#include <cstdint>
#include <string>

#include "mha/error.hpp"

namespace mha {
namespace {

// Sizes above this are refused, as in validate(); it also keeps 3·C·C far from wrapping around.
constexpr std::uint64_t max_C = 1'000'000;

void expect_length(const char* name, const std::vector<float>& values, std::uint64_t expected,
                   const std::string& formula) {
    if (values.size() != expected)
        throw MhaError(ErrorCode::bad_tensor_length, name,
                       std::string(name) + " has " + std::to_string(values.size()) +
                           " values but needs " + formula + " = " + std::to_string(expected) +
                           " for embed_dim C.");
}

// rows [row0, row0 + C) of a [.., C] PyTorch weight, transposed into a [C, C] math-layout block.
std::vector<float> transposed_block(const std::vector<float>& torch_weight, std::size_t row0,
                                    std::size_t C) {
    std::vector<float> block(C * C);
    for (std::size_t out = 0; out < C; ++out)
        for (std::size_t in = 0; in < C; ++in) block[in * C + out] = torch_weight[(row0 + out) * C + in];
    return block;
}

}  // namespace

Weights weights_from_torch(std::size_t C, const std::vector<float>& in_proj_weight,
                           const std::vector<float>& in_proj_bias,
                           const std::vector<float>& out_proj_weight,
                           const std::vector<float>& out_proj_bias) {
    if (C < 1) throw MhaError(ErrorCode::bad_size, "C", "C must be at least 1 (the embed_dim of the module).");
    // Without this bound 3·C·C wraps around (at C = 65536 where size_t has 32 bits, as in
    // WebAssembly), empty tensors pass the length checks and the transposes write out of bounds.
    if (C > max_C)
        throw MhaError(ErrorCode::bad_size, "C",
                       "C=" + std::to_string(C) + " is too large: sizes go up to " + std::to_string(max_C) + ".");
    const std::uint64_t C64 = C;
    expect_length("in_proj_weight", in_proj_weight, 3 * C64 * C64, "3C·C");
    expect_length("out_proj_weight", out_proj_weight, C64 * C64, "C·C");
    if (in_proj_bias.empty() != out_proj_bias.empty())
        throw MhaError(ErrorCode::missing, in_proj_bias.empty() ? "in_proj_bias" : "out_proj_bias",
                       "Give both in_proj_bias and out_proj_bias (a module with bias=True), or neither "
                       "(bias=False).");
    if (!in_proj_bias.empty()) {
        expect_length("in_proj_bias", in_proj_bias, 3 * C, "3C");
        expect_length("out_proj_bias", out_proj_bias, C, "C");
    }

    Weights w;
    w.Wq = transposed_block(in_proj_weight, 0, C);
    w.Wk = transposed_block(in_proj_weight, C, C);
    w.Wv = transposed_block(in_proj_weight, 2 * C, C);
    w.Wo = transposed_block(out_proj_weight, 0, C);
    if (!in_proj_bias.empty()) {
        w.bq.assign(in_proj_bias.begin(), in_proj_bias.begin() + C);
        w.bk.assign(in_proj_bias.begin() + C, in_proj_bias.begin() + 2 * C);
        w.bv.assign(in_proj_bias.begin() + 2 * C, in_proj_bias.end());
        w.bo = out_proj_bias;
    }
    return w;
}

}  // namespace mha
