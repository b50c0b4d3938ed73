#pragma once
/// @file attention_tiled.hpp
/// @brief Steps 12–16 computed tiled, as FlashAttention does: the same output as attend()
///        (attention.hpp) without ever holding a [Tq, Tk] score matrix. Each block of Bq query rows
///        goes through the key blocks of Bk keys in turn, keeping per row a running max m, a
///        running sum ℓ and an unnormalised output O, which it rescales by exp(m_old − m_new)
///        whenever the max grows (the "online softmax"); at the end O / ℓ is the context.

#include <vector>

#include "attention.hpp"
#include "config.hpp"
#include "error.hpp"
#include "recorder.hpp"
#include "trace.hpp"

namespace mha {

/// @brief The tiled attention of every head: writes head h's context into columns h·D … of
///        `concat` [B, T, C] as attend() does, records the tiled steps (tile_scores … tile_context)
///        as the recorder asks, and counts the tiles into `tiles`. A tile whose every score is
///        masked (above a causal diagonal, past a padding length) is skipped, never computed. Its
///        working memory is one [Bq, Bk] tile of scores, O and P·V [Bq, D], and m, ℓ and the
///        correction [Bq]. A query whose keys are all masked gets a zero context and the same
///        warning as in attend().
void attend_tiled(const Dims& dims, const KeyMask& mask, Projections in, float* concat, Recorder& recorder,
                  std::vector<Warning>& warnings, TileCounts& tiles);

}  // namespace mha
