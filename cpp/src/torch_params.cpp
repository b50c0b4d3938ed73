#include "mha/torch_params.hpp"

#include <cstdint>
#include <string>

#include "mha/error.hpp"

namespace mha {
namespace {

// Sizes above this are refused, as in validate(); it also keeps 3·C·C far from wrapping around.
constexpr std::uint64_t max_C = 1'000'000;

void expect_length(const char* name, std::uint64_t count, std::uint64_t expected, const char* formula) {
    if (count != expected)
        throw MhaError(name, "bad_tensor_length.torch",
                       {{"field", name}, {"count", std::to_string(count)}, {"formula", formula}, {"expected", std::to_string(expected)}});
}

// rows [row0, row0 + C) of a [.., C] PyTorch weight, transposed into a [C, C] math-layout block.
std::vector<float> transposed_block(const std::vector<float>& torch_weight, std::size_t row0,
                                    std::size_t C) {
    std::vector<float> block(C * C);
    for (std::size_t out = 0; out < C; ++out)
        for (std::size_t in = 0; in < C; ++in) block[in * C + out] = torch_weight[(row0 + out) * C + in];
    return block;
}

// rows × C of a PyTorch Linear weight, transposed into [C, rows].
std::vector<float> transposed(const std::vector<float>& weight, std::size_t rows, std::size_t C) {
    std::vector<float> out(rows * C);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t in = 0; in < C; ++in) out[in * rows + r] = weight[r * C + in];
    return out;
}

constexpr const char* linear_names[] = {"q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias",
                                        "v_proj.weight", "v_proj.bias", "out_proj.weight", "out_proj.bias"};

}  // namespace

void check_linear_lengths(std::uint64_t C, const LinearLengths& n) {
    if (C < 1 || C > max_C)
        throw MhaError("C", "bad_size.embed_dim", {{"value", std::to_string(C)}, {"max", std::to_string(max_C)}});
    expect_length("out_proj.weight", n[6], C * C, "C·C");
    // q, k and v are [rows, C]: rows = H·D for q, Hkv·D for k and v.
    for (const std::size_t i : {0, 2, 4})
        if (n[i] == 0 || n[i] % C != 0)
            throw MhaError(linear_names[i], "bad_tensor_length.linear_rows",
                           {{"field", linear_names[i]}, {"count", std::to_string(n[i])}, {"C", std::to_string(C)}});
    if (n[4] != n[2])
        throw MhaError("v_proj.weight", "bad_tensor_length.linear_kv", {{"count", std::to_string(n[4])}, {"expected", std::to_string(n[2])}});
    const bool any_bias = n[1] || n[3] || n[5] || n[7];
    for (const std::size_t i : {1, 3, 5, 7}) {
        const std::uint64_t expected = i == 7 ? C : n[i - 1] / C;
        if (any_bias && n[i] == 0) throw MhaError(linear_names[i], "missing.linear_bias", {{"field", linear_names[i]}});
        if (n[i] != 0 && n[i] != expected)
            throw MhaError(linear_names[i], "bad_tensor_length.linear_bias",
                           {{"field", linear_names[i]}, {"count", std::to_string(n[i])}, {"expected", std::to_string(expected)},
                            {"weight", linear_names[i - 1]}});
    }
}

Weights weights_from_linear(std::size_t C, const LinearParams& p) {
    check_linear_lengths(C, {p.q_weight.size(), p.q_bias.size(), p.k_weight.size(), p.k_bias.size(), p.v_weight.size(),
                             p.v_bias.size(), p.out_weight.size(), p.out_bias.size()});
    Weights w;
    w.Wq = transposed(p.q_weight, p.q_weight.size() / C, C);
    w.Wk = transposed(p.k_weight, p.k_weight.size() / C, C);
    w.Wv = transposed(p.v_weight, p.v_weight.size() / C, C);
    w.Wo = transposed(p.out_weight, C, C);
    w.bq = p.q_bias;
    w.bk = p.k_bias;
    w.bv = p.v_bias;
    w.bo = p.out_bias;
    return w;
}

void check_torch_lengths(std::uint64_t C, std::uint64_t in_proj_weight, std::uint64_t in_proj_bias,
                         std::uint64_t out_proj_weight, std::uint64_t out_proj_bias) {
    // Without the upper bound 3·C·C wraps around (at C = 65536 where size_t has 32 bits, as in
    // WebAssembly), empty tensors pass the length checks and the transposes write out of bounds.
    if (C < 1 || C > max_C)
        throw MhaError("C", "bad_size.embed_dim", {{"value", std::to_string(C)}, {"max", std::to_string(max_C)}});
    expect_length("in_proj_weight", in_proj_weight, 3 * C * C, "3C·C");
    expect_length("out_proj_weight", out_proj_weight, C * C, "C·C");
    if ((in_proj_bias == 0) != (out_proj_bias == 0))
        throw MhaError(in_proj_bias == 0 ? "in_proj_bias" : "out_proj_bias", "missing.torch_bias", {});
    if (in_proj_bias != 0) {
        expect_length("in_proj_bias", in_proj_bias, 3 * C, "3C");
        expect_length("out_proj_bias", out_proj_bias, C, "C");
    }
}

void check_torch_bias_kv(std::uint64_t C, std::uint64_t bias_k, std::uint64_t bias_v) {
    if ((bias_k == 0) != (bias_v == 0))
        throw MhaError(bias_k == 0 ? "bias_k" : "bias_v", "missing.torch_bias_kv", {{"field", bias_k == 0 ? "bias_k" : "bias_v"}});
    if (bias_k != 0) {
        expect_length("bias_k", bias_k, C, "C");
        expect_length("bias_v", bias_v, C, "C");
    }
}

Weights weights_from_torch(std::size_t C, const std::vector<float>& in_proj_weight,
                           const std::vector<float>& in_proj_bias,
                           const std::vector<float>& out_proj_weight,
                           const std::vector<float>& out_proj_bias) {
    check_torch_lengths(C, in_proj_weight.size(), in_proj_bias.size(), out_proj_weight.size(), out_proj_bias.size());
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
