#pragma once
// A double-precision plain-loop attention block, for finite differences: L = Σ output ⊙ dOutput
// computed from the formulas with std::vector and nested loops (no engine code), so that a
// central difference (L(θ + ε) − L(θ − ε)) / 2ε is accurate to ~1e-9 and checks the engine's
// float32 gradients independently of PyTorch.

#include <cstdint>
#include <vector>

namespace ref {

struct Block {
    std::size_t B, T, Tk, C, H, Hkv;
    bool causal = false;
    std::vector<std::int64_t> key_lengths;  // empty: no padding
    bool cross = false;                     // K and V from kv
    std::vector<double> x, kv;              // [B, T, C], [B, Tk, C]
    std::vector<double> Wq, Wk, Wv, Wo;     // [C, H·D], [C, Hkv·D] ×2, [C, C]
    std::vector<double> bq, bk, bv, bo;     // empty without bias
};

// L = Σ output ⊙ d_output; a query whose keys are all masked gets weights 0.
double attention_loss(const Block& block, const std::vector<double>& d_output);

}  // namespace ref
