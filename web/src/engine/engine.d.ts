// Type declarations for the mha-lens JS API (web/src/engine.js), written by hand: Emscripten
// 3.1.6 cannot emit them.

/** A config in the symbols of the walkthrough. B, T, C and H are required. */
export interface Config {
  /** Batch size. */
  B: number;
  /** Query length (tokens per sequence). */
  T: number;
  /** Key/value length; default T. Tk ≠ T (or `kv` given) is cross-attention. */
  Tk?: number;
  /** Model width; must be divisible by H. */
  C: number;
  /** Query heads; D = C / H. */
  H: number;
  /** Key/value heads; default H. 1 ≤ Hkv < H is GQA, Hkv = 1 is MQA. Must divide H. */
  Hkv?: number;
  /** Biases in the four projections; default true. */
  bias?: boolean;
  /** Seed of the generated x, kv and weights (0 … 2³²−1); default 0. */
  seed?: number;
  /** Default "none". A padding mask is set with keyLengths and combines with either. */
  mask?: 'none' | 'causal';
  /** Padding mask: B valid key lengths; keys at positions ≥ keyLengths[b] are masked. */
  keyLengths?: number[] | null;
  /** Explicit input [B, T, C], row-major. */
  x?: Float32Array | number[];
  /** Explicit source of K and V [B, Tk, C] (cross-attention); default x. */
  kv?: Float32Array | number[];
  /** Explicit parameters in the layout Q = X·Wq + bq (see engine.fromTorch for PyTorch's). */
  weights?: Partial<Weights<Float32Array | number[]>>;
  /** Bytes of snapshots a run may hold; default 256 MiB. */
  memoryCap?: number;
  /**
   * true (default): every step with its values. false: compute the output only (run.steps is
   * empty; what `npm run bench` times). 'lazy': every step's metadata with `data: null`, attention
   * one head at a time, so that a size whose full trace would pass memoryCap still runs (B=1
   * T=4096 C=768 H=12 within the default cap); `run.step(id)` or `run.step(id, {batch, head})`
   * then computes the values asked for.
   */
  snapshots?: boolean | 'lazy';
  /**
   * How attention is computed (issue 15); every algorithm gives the same output. 'naive'
   * (default): steps 12–16, one head's [Tq, Tk] score matrix at a time. 'tiled': FlashAttention's
   * algorithm, blockQ × blockK tiles with an online softmax, never holding a score matrix; its steps
   * tile_scores … tile_context replace scores … context. 'incremental': token by token with a KV
   * cache (causal self-attention only); x and the decoding steps decode_q … decode_output.
   */
  algorithm?: 'naive' | 'tiled' | 'incremental';
  /** Tiled only: query rows per tile (≥ 1; default 2, for the page; 64 runs fast). */
  blockQ?: number;
  /** Tiled only: keys per tile (≥ 1; default 2, for the page; 128 runs fast). */
  blockK?: number;
}

export interface Weights<T = Float32Array> {
  Wq: T; // [C, H·D]
  Wk: T; // [C, Hkv·D]
  Wv: T; // [C, Hkv·D]
  Wo: T; // [C, C]
  bq?: T; // [H·D]
  bk?: T; // [Hkv·D]
  bv?: T; // [Hkv·D]
  bo?: T; // [C]
}

export type StepId =
  | 'x' | 'source' | 'q' | 'k' | 'v' | 'q_split' | 'k_split' | 'v_split' | 'q_heads' | 'k_heads' | 'v_heads'
  | 'k_shared' | 'v_shared' | 'k_t' | 'scores' | 'scaled' | 'masked' | 'weights' | 'context' | 'context_t'
  | 'concat' | 'output'
  // tiled (issue 15)
  | 'tile_scores' | 'tile_max' | 'tile_correction' | 'tile_probs' | 'tile_sum' | 'tile_output' | 'tile_context'
  // incremental (issue 15)
  | 'decode_q' | 'decode_k' | 'decode_v' | 'cache_k' | 'cache_v' | 'decode_scores' | 'decode_weights' | 'decode_context'
  | 'decode_output';

/**
 * Nk: key blocks of a tiled run (⌈Tk/blockK⌉). t: one entry per decoding step (T in a whole run,
 * 1 in a {t} slice); t+1: the KV cache's length (T in a whole run, t+1 in a {t} slice).
 */
export type AxisName = 'B' | 'T' | 'Tq' | 'Tk' | 'C' | 'H' | 'Hkv' | 'D' | 'H·D' | 'Hkv·D' | 'Nk' | 't' | 't+1';

/**
 * One step of the walkthrough and the tensor it produced. Its `shape`, `axes` and `strides` arrays
 * (and the summary's `keyLengths`) are frozen: runs of the same sizes and options share them.
 */
export interface Step {
  id: StepId;
  /** Short English title; web/src/i18n.js has it in English and Chinese as `step.<id>`. */
  title: string;
  op: 'input' | 'projection' | 'reshape' | 'transpose' | 'repeat' | 'matmul' | 'scale' | 'mask' | 'softmax' | 'merge'
    // tiled and incremental (issue 15)
    | 'max' | 'rescale' | 'exp' | 'sum' | 'divide' | 'append';
  /** Symbolic formula, e.g. "Q = X·Wq + bq". */
  formula: string;
  /** The formula with this config's shapes, e.g. "[2,4,8] @ [8,8] + [8] → [2,4,8]". */
  shapeFormula: string;
  shape: readonly number[];
  axes: readonly AxisName[];
  /**
   * Values in row-major order of `shape`; masked scores are -Infinity. Owned by the run (never a
   * view of the wasm heap): the arrays of a run are windows on one buffer of its own (a big run's
   * scores-sized steps have one each, filled head by head during the run), and steps
   * whose values are the same numbers in the same order (q_split and q, a mask that masks
   * nothing and scaled, concat and context_t) share one array. Treat it as read-only.
   * null in `run.steps` of a lazy run: ask `run.step(id)` for them.
   */
  data: Float32Array | null;
  /** Set on a step returned by `run.step(id, {batch, head})` or `run.step(id, {t})`: the slice its values are. */
  slice?: StepSlice | DecodingSlice;
  /** Element strides of the produced tensor as xtensor reports them (0 for axes of length 1). */
  strides: readonly number[];
  /** False for a view with permuted strides (a transpose). */
  contiguous: boolean;
  /**
   * True if the step changed a value of its input: for scale, mask and softmax, some element
   * differs from the input's at the same index; for a projection or product, it holds a value
   * the input does not; always false for reshape, transpose, repeat and merge.
   */
  changesValues: boolean;
  numel: number;
  flops: number;
  /** numel · 4 */
  bytes: number;
}

/** One batch row's head of a [B, H, …] step (scores-sized and tiled steps). */
export interface StepSlice {
  batch: number;
  head: number;
}

/** A decoding step of an incremental run as it was at step t (0 ≤ t < T). */
export interface DecodingSlice {
  t: number;
}

/** A tiled run's tiles (summary.tiles; null in other runs). */
export interface TileCounts {
  /** The tile's rows and columns: blockQ and blockK, at most Tq and Tk. */
  blockQ: number;
  blockK: number;
  /** Nq = ⌈Tq/blockQ⌉ and Nk = ⌈Tk/blockK⌉: the grid of one head. */
  queryBlocks: number;
  keyBlocks: number;
  /** B·H·Nq·Nk = computed + skipped. */
  total: number;
  computed: number;
  /** Tiles whose every score is masked (above a causal diagonal, past a padding length): never computed. */
  skipped: number;
  /** [B]: skipped tiles of one head of each batch row (the same for every head). */
  skippedPerHead: readonly number[];
}

/** One tile of a tiled run's grid: rows [r0, r1) and keys [c0, c1) of the [Tq, Tk] matrix. */
export interface Tile {
  i: number;
  j: number;
  rows: [number, number];
  cols: [number, number];
  skipped: boolean;
}

/** A tile's values as the pass left them (run.tile). */
export interface TileValues extends Tile {
  /** S_ij [rows × cols], row-major; −∞ where masked. */
  scores: Float32Array;
  /** P_ij = exp(S_ij − m) [rows × cols]. */
  probs: Float32Array;
  /** Per row of the block: the running max m after this tile, and before it (−∞ before the first). */
  max: Float32Array;
  maxBefore: Float32Array;
  /** Per row: the running sum ℓ after and before this tile. */
  sum: Float32Array;
  sumBefore: Float32Array;
  /** Per row: exp(m_before − m), which rescaled ℓ and O (1 on a skipped tile). */
  correction: Float32Array;
  /** The unnormalised output O after this tile [rows × D]. */
  output: Float32Array;
}

/** An incremental run's KV cache at decoding step t, measured from its snapshots (run.cacheBytes). */
export interface CacheBytes {
  t: number;
  /** t + 1 */
  tokens: number;
  /** [B, Hkv, t+1, D], of K and of V. */
  shape: readonly number[];
  /** Byte length of cache_k and cache_v at step t. */
  bytes: number;
  /** B·(t+1)·kvCacheBytesPerToken: the formula 2·Hkv·D·4 bytes per token and layer, times the tokens. */
  formulaBytes: number;
}

export interface Summary {
  B: number; T: number; Tk: number; C: number; H: number; Hkv: number; D: number;
  bias: boolean;
  mask: 'none' | 'causal';
  keyLengths: readonly number[] | null;
  cross: boolean;
  /** 4C² + 4C for standard MHA with bias; less with GQA. */
  parameterCount: number;
  /** Float32 bytes of K and V one token adds to a cache: 2·Hkv·D·4. */
  kvCacheBytesPerToken: number;
  flops: number;
  snapshotBytes: number;
  algorithm: 'naive' | 'tiled' | 'incremental';
  /** A tiled run's tiles; null otherwise. */
  tiles: TileCounts | null;
}

export class Run {
  readonly steps: Step[];
  readonly summary: Summary;
  /** e.g. a query row whose keys are all masked (its weights are 0; PyTorch gives NaN). */
  readonly warnings: string[];
  /** [B, Tq, C] */
  readonly output: Float32Array;
  /**
   * The parameters used: seeded ones as owned copies; explicit ones as the Float32Arrays the
   * engine was given (the caller's own Float32Arrays, or their Float32Array conversion).
   */
  readonly weights: Weights;
  /**
   * The step with this id. With `{batch, head}` (scores, scaled, masked, weights only): that
   * batch row's head, shape [1, 1, Tq, Tk], strides [0, 0, Tk, 1]. In a lazy run the engine
   * computes the values here (for a slice: the projections and that one head's attention).
   * @throws MhaError (code "unknown_step"; "bad_value" for a slice of another step or an index
   *   out of range; "memory_cap" for a whole scores-sized step above memoryCap; "released"
   *   after release())
   */
  step(id: StepId | string, slice?: StepSlice | DecodingSlice): Step;
  /** A tiled run's tiles of batch row `batch` (default 0) in the order the pass goes through them. */
  tiles(options?: { batch?: number }): Tile[];
  /** Tile (i, j) of one (batch, head) of a tiled run (defaults 0, 0). */
  tile(i: number, j: number, slice?: Partial<StepSlice>): TileValues;
  /** An incremental run's cache bytes at every decoding step, measured from its snapshots. */
  cacheBytes(): CacheBytes[];
  /**
   * Hands this run's arrays back to the engine, which fills them with the next run of the same
   * size instead of allocating fresh memory (the larger part of handing a B=1 T=512 C=768 H=12
   * trace to JS). Afterwards every array of this run (step data, output, seeded weights) is empty
   * (detached) and step() throws. Call it once nothing uses the run, e.g. when the next run
   * replaces it. Calling it again does nothing.
   */
  release(): void;
}

export type ErrorCode =
  | 'bad_json' | 'unknown_key' | 'bad_type' | 'missing' | 'bad_size' | 'not_divisible' | 'heads_not_divisible'
  | 'bad_key_lengths' | 'bad_tensor_length' | 'non_finite' | 'bad_value' | 'memory_cap' | 'unknown_step' | 'released'
  | 'out_of_memory' | 'internal';

export class MhaError extends Error {
  readonly name: 'MhaError';
  readonly code: ErrorCode;
  /** The config field at fault: "C", "H", "keyLengths", "weights.Wq", ... */
  readonly field: string;
}

export interface TorchParams {
  in_proj_weight: Float32Array | number[]; // [3C, C]
  in_proj_bias?: Float32Array | number[] | null; // [3C]
  out_proj_weight: Float32Array | number[]; // [C, C]; 'out_proj.weight' also accepted
  out_proj_bias?: Float32Array | number[] | null; // [C]; 'out_proj.bias' also accepted
  /** embed_dim; default √(out_proj_weight.length). */
  C?: number;
}

export interface Engine {
  /** Validates and runs; throws MhaError naming the first problem. The engine stays usable. */
  run(config: Config): Run;
  /** PyTorch nn.MultiheadAttention parameters → this layout. */
  fromTorch(params: TorchParams): Weights;
  /**
   * c = a · b for row-major a [M, K] and b [K, N], with the engine's own matrix product (the one
   * `npm run bench` compares with the peers). Returns an owned c [M, N].
   * @throws MhaError (code "bad_size" or "bad_tensor_length")
   */
  matmul(a: Float32Array | number[], b: Float32Array | number[], sizes: { M: number; K: number; N: number }): Float32Array;
  /**
   * What a run of `config` without snapshots allocates with each algorithm (sizes checked, not the
   * memory cap). incremental is null unless the config is causal self-attention.
   */
  memory(config: Config): MemoryModel;
  /** memory() over T = 1, 2, 4, … 2^17 (with the config's T), or over `points`. */
  memoryCurve(config: Config, options?: { points?: number[] }): (MemoryModel & { T: number; current: boolean })[];
  /** The KV cache of a model shape under every choice of K/V heads (defaults: Hkv = H, 1 layer, 1 token). */
  kvCache(shape: { C: number; H: number; Hkv?: number; layers?: number; tokens?: number }): KvCacheTable;
  /** 7B-class model shapes (Mistral 7B: GQA; Llama 2 7B: MHA) at 4,096 tokens, each with its table. */
  readonly namedShapes: { id: string; name: string; table: KvCacheTable }[];
  /** Every step the engine knows, in walkthrough order. */
  readonly catalogue: CatalogueEntry[];
  /** Bytes of wasm linear memory (grows to the largest run, never shrinks). */
  readonly memoryBytes: number;
  /** Embind value handles alive in the module: the same after every run unless something leaks. */
  readonly liveHandles: number;
}

/** Bytes a run allocates, by kind (engine.memory). */
export interface MemoryParts {
  inputs: number;
  weights: number;
  working: number;
  /** The scores held at once: one head's [Tq, Tk] (naive), one [blockQ, blockK] tile (tiled), one row (incremental). */
  scores: number;
  snapshots: number;
  total: number;
}

export interface MemoryModel {
  naive: MemoryParts;
  tiled: MemoryParts;
  incremental: MemoryParts | null;
  /** The whole score matrix [B, H, Tq, Tk] in float32, which no algorithm here holds. */
  scoreMatrixBytes: number;
}

export interface KvCacheRow {
  layout: 'MHA' | 'GQA' | 'MQA';
  Hkv: number;
  /** 2·Hkv·D·4 */
  bytesPerTokenPerLayer: number;
  /** × layers */
  bytesPerToken: number;
  /** × tokens */
  bytes: number;
  /** The shape's own Hkv. */
  current: boolean;
}

export interface KvCacheTable {
  C: number; H: number; Hkv: number; D: number; layers: number; tokens: number;
  /** 4: float32 */
  bytesPerValue: number;
  /** Every divisor Hkv of H, from H (MHA) down to 1 (MQA). */
  rows: KvCacheRow[];
}

/** One entry of engine.catalogue (cpp/src/catalogue.cpp). */
export interface CatalogueEntry {
  id: StepId;
  pass: 'forward' | 'backward' | 'tiled' | 'incremental';
  op: string;
  input: string;
  axes: string;
  title: string;
  formula: string;
  latex: string;
  viewOf: string;
  when: 'always' | 'cross' | 'grouped';
  /** How run.step() may slice it: {batch, head}, {t}, or only whole. */
  slice: 'head' | 't' | '';
}

export interface EngineOptions {
  /** Where the .wasm is; default: next to dist/mha_engine.mjs. */
  wasmUrl?: string | URL;
  /** The .wasm bytes, if already loaded. */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

export function createEngine(options?: EngineOptions): Promise<Engine>;
