#pragma once
/// @file backward.hpp
/// @brief The backward pass of the multi-head attention block: for L = Σ output ⊙ dOutput, the
///        gradient of every forward step in reverse walkthrough order (the catalogue's d_ steps)
///        and of every parameter. Each step is the backward of one forward step of forward.cpp
///        and attention.cpp, in the same numbering, read bottom to top.

#include <cstddef>

#include "attention.hpp"
#include "attention_head.hpp"
#include "config.hpp"
#include "recorder.hpp"
#include "trace.hpp"

namespace mha {

/// The forward pass's tensors the gradients are computed from, row-major.
struct ForwardTensors {
    const float* x;       ///< [B, T, C]
    const float* source;  ///< [B, Tk, C]: x itself in self-attention
    const float* q;       ///< [B, T, H·D]
    const float* k;       ///< [B, Tk, Hkv·D]
    const float* v;       ///< [B, Tk, Hkv·D]
    const float* concat;  ///< [B, T, C]: the heads' context, merged
};

/// @brief The backward pass of a validated run: steps 19 … 1 of the walkthrough backwards,
///        recorded as the recorder asks, the gradients of x (and of the source sequence) and of
///        every parameter written to `gradients`. Attention weights are recomputed head by head
///        from q and k with the forward pass's own operations, so they are bit for bit the forward's.
void backward(const Dims& dims, const KeyMask& mask, const Weights& weights, ForwardTensors forward,
              const float* d_output, Recorder& recorder, Gradients& gradients);

}  // namespace mha
