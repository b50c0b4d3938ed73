// What a KV cache costs, as data for a worked example: for a model shape, the bytes of K
// and V each token adds under every choice of K/V heads (MHA Hkv = H, GQA 1 < Hkv < H, MQA Hkv = 1),
// per layer, per token and for a whole context, and real model shapes to work it through. No DOM.
// The formula is the engine's (kv_cache_bytes_per_token, cpp/src/config.cpp): 2·Hkv·D·4 bytes per
// token and layer in float32; tests/js/tiled.test.js holds the two to each other.

/** Bytes of one float32 value, as the engine stores K and V. */
export const BYTES_PER_VALUE = 4;

/** 2·Hkv·D·4: K and V, Hkv heads of D values each, for one token in one layer. */
export const kvCacheBytesPerToken = ({ Hkv, D }) => 2 * Hkv * D * BYTES_PER_VALUE;

/**
 * 7B-class shapes at a 4,096-token context: Mistral 7B's (GQA, Hkv = 8) and Llama 2 7B's (MHA),
 * both C = 4096, H = 32 (D = 128), 32 layers. `name` is English; a page names a shape by id.
 */
export const NAMED_SHAPES = [
  { id: 'mistral_7b', name: "7B-class model with GQA (Mistral 7B's shape)", C: 4096, H: 32, Hkv: 8, layers: 32, tokens: 4096 },
  { id: 'llama2_7b', name: "7B-class model with MHA (Llama 2 7B's shape)", C: 4096, H: 32, Hkv: 32, layers: 32, tokens: 4096 },
];

/**
 * The table for one shape: every divisor Hkv of H from H (MHA) down to 1 (MQA), with the bytes
 * per token and layer, per token (× layers) and in all (× tokens); `current` marks the shape's own
 * Hkv. The shape must be valid (engine.kvCache checks it).
 */
export function kvCacheTable({ C, H, Hkv = H, layers = 1, tokens = 1 }) {
  const D = C / H;
  const rows = [];
  for (let kv = H; kv >= 1; kv--) {
    if (H % kv !== 0) continue;
    const bytesPerTokenPerLayer = kvCacheBytesPerToken({ Hkv: kv, D });
    rows.push({
      layout: kv === H ? 'MHA' : kv === 1 ? 'MQA' : 'GQA', Hkv: kv, bytesPerTokenPerLayer,
      bytesPerToken: bytesPerTokenPerLayer * layers, bytes: bytesPerTokenPerLayer * layers * tokens, current: kv === Hkv,
    });
  }
  return { C, H, Hkv, D, layers, tokens, bytesPerValue: BYTES_PER_VALUE, rows };
}
