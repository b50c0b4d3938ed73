// Type declarations for the mha-lens JS API (web/src/engine/engine.js), written by hand: Emscripten
// 3.1.6 cannot emit them. tests/js/catalogue.test.js checks StepId, StepOp, AxisName and Pass
// against the engine's step catalogue, and tests/js/i18n.test.js ErrorCode against its messages.

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
  /**
   * nn.MultiheadAttention's add_bias_kv: a learned key and value (weights.bias_k, weights.bias_v,
   * seeded unless given) appended to every batch row's K and V as its last key, which every query
   * sees. Given weights holding bias_k imply it. Steps k_appended and v_appended show it; the
   * steps after them have Tk+1 keys. Naive and tiled only, no backward yet.
   */
  addBiasKv?: boolean;
  /**
   * nn.MultiheadAttention's add_zero_attn: a key and a value of zeros appended after the others
   * (after addBiasKv's), which every query sees. Naive and tiled; no backward yet.
   */
  addZeroAttn?: boolean;
  /**
   * PyTorch's attn_mask, by its convention (MaskInput): `masked` (nn.MultiheadAttention: true =
   * hidden), `attend` (scaled_dot_product_attention: true = may attend) or `add` (floats added to
   * the scaled scores, −Infinity hides). `shape` broadcasts to [B, H, Tq, Tk]: [Tq, Tk],
   * [B·H, Tq, Tk] (per head, as nn.MultiheadAttention takes it), [H, Tq, Tk], [B, 1, Tq, Tk],
   * [B, H, Tq, Tk], each extent 1 or the full one. Combines with mask, keyLengths and addBiasKv.
   */
  attnMask?: MaskInput & { shape: number[] };
  /** PyTorch's key_padding_mask [B, Tk], any pattern: `masked` (true = padding), `attend` or `add`. */
  keyPaddingMask?: MaskInput;
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
  /** Bytes a run may allocate, all told (inputs, weights, the tensors of the pass, snapshots); default 256 MiB. */
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
   * [B, Tq, C]: the gradient of a loss L = Σ output ⊙ dOutput. Given, the run also goes backwards:
   * `run.steps` continues with the d_ steps and `run.gradients` holds every gradient (naive
   * algorithm only).
   */
  dOutput?: Float32Array | number[];
  /**
   * How attention is computed; every algorithm gives the same output. 'naive'
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

/** The gradients of a run given dOutput. */
export interface Gradients extends Weights {
  x: Float32Array; // [B, T, C]
  kv?: Float32Array; // [B, Tk, C], cross-attention only
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
  /** add_bias_kv's learned key and value, appended after the source's keys. */
  bias_k?: T; // [Hkv·D]
  bias_v?: T; // [Hkv·D]
}

// The step ids, ops, axis symbols and passes are generated from the catalogue (cpp/data/steps.json).
import type { AxisName, CatalogueStep, Pass, StepId, StepOp } from '../catalogue/catalogue.js';
export type { Algorithm, AxisName, CatalogueStep, Pass, StepId, StepOp } from '../catalogue/catalogue.js';

/**
 * One entry of engine.catalogue: the catalogue's entry (its text fields are templates that a run's
 * Step has filled in), with `title` its English title and `titles` both.
 */
export interface CatalogueEntry extends Omit<CatalogueStep, 'title'> {
  /** English title; `titles` holds it in both languages. */
  title: string;
  titles: { en: string; zh: string };
}

/**
 * One step of the walkthrough and the tensor it produced: its numbers as fields, its words
 * (title, op, input, viewOf, formula, latex, shapeFormula) made from its catalogue entry when
 * read. `toJSON()` gives everything as one plain object. Its `axes` array is frozen (shared by
 * runs of the same sizes).
 */
export class Step {
  private constructor();
  readonly id: StepId;
  /** Short English title (the catalogue's). */
  readonly title: string;
  /** The title in 'en' or 'zh'. */
  titleIn(lang: 'en' | 'zh'): string;
  readonly op: StepOp;
  /** The id of the step this one is computed from in this run ("source" for K in cross-attention, …); "" for an input. */
  readonly input: StepId | '';
  /** The step whose buffer this one views without copying in this run, or "". */
  readonly viewOf: StepId | '';
  /** Symbolic formula, e.g. "Q = X·Wq + bq". */
  readonly formula: string;
  /** The same formula in LaTeX, e.g. "Q = XW_q + b_q". */
  readonly latex: string;
  /** The formula with this config's shapes, e.g. "[2,4,8] @ [8,8] + [8] → [2,4,8]". */
  readonly shapeFormula: string;
  shape: readonly number[];
  axes: readonly AxisName[];
  /**
   * Values in row-major order of `shape`; masked scores are -Infinity. Owned by the run (never a
   * view of the wasm heap): a window of the one Float32Array the run's steps share; treat it as
   * read-only. null in `run.steps` of a lazy run: ask `run.step(id)` for them.
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
  /** This step with other values (a slice of it, or all of them). */
  withData(data: Float32Array, slice?: StepSlice | DecodingSlice): Step;
  /** Every field, words included, as one plain object. */
  toJSON(): StepObject;
}

/** A Step as a plain object (Step.toJSON()). */
export interface StepObject {
  id: StepId; title: string; op: StepOp; input: StepId | ''; viewOf: StepId | ''; formula: string; latex: string; shapeFormula: string;
  shape: readonly number[]; axes: readonly AxisName[]; data: Float32Array | null; slice?: StepSlice | DecodingSlice;
  strides: readonly number[]; contiguous: boolean; changesValues: boolean; numel: number; flops: number; bytes: number;
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
  /** Keys appended after the source's Tk (1 with addBiasKv, else 0): attention sees Tk + appended. */
  appended: number;
  /** The appended keys: add_bias_kv's bias_k first, then add_zero_attn's zeros. */
  biasKv: boolean;
  zeroAttn: boolean;
  /** The run's attnMask: its convention and its shape as given; null without one. */
  attnMask: { form: MaskForm; shape: readonly number[] } | null;
  /** The run's keyPaddingMask ([B, Tk]): its convention; null without one. */
  keyPaddingMask: { form: MaskForm } | null;
}

/** A mask's convention: masked (true hides a key, nn.MultiheadAttention), attend (true lets a query look, scaled_dot_product_attention), add (floats added to the scores, −∞ hides). */
export type MaskForm = 'masked' | 'attend' | 'add';

/** attnMask or keyPaddingMask: exactly one of masked, attend or add, row-major. */
export type MaskInput = { shape?: number[] } & (
  | { masked: Float32Array | Uint8Array | readonly (boolean | number)[] }
  | { attend: Float32Array | Uint8Array | readonly (boolean | number)[] }
  | { add: Float32Array | readonly number[] }
);

export class Run {
  readonly steps: Step[];
  readonly summary: Summary;
  /** e.g. queries whose keys are all masked (their weights are 0; PyTorch gives NaN). */
  readonly warnings: MhaWarning[];
  /** [B, Tq, C] */
  readonly output: Float32Array;
  /**
   * The parameters used: seeded ones as owned copies, made when first read (read after release()
   * it throws "released"); explicit ones as the Float32Arrays the engine was given (the caller's
   * own Float32Arrays, or their Float32Array conversion).
   */
  readonly weights: Weights;
  /** With dOutput: the gradients of the inputs and of every parameter; null without. */
  readonly gradients: Gradients | null;
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
   * Lets go of this run's arrays at once (a slider's previous run, say): every array the run made
   * (step data, output, seeded weights; never the caller's own tensors) is emptied (its buffer
   * detached), and step() throws. Calling it again does nothing.
   */
  release(): void;
  /** The run as plain data a worker can post (its arrays are the run's own: transfer them); Run.fromTransfer() makes it a Run again. */
  toTransfer(): RunTransfer;
  static fromTransfer(transfer: RunTransfer, messages: MessageTable): Run;
}

/** A run as plain data (Run.toTransfer()): its summary, each step's numbers and values, its arrays and warnings. */
export interface RunTransfer {
  summary: Summary;
  steps: { id: StepId; shape: readonly number[]; strides: readonly number[]; contiguous: boolean; changesValues: boolean; flops: number; data: Float32Array | null; slice?: StepSlice | DecodingSlice }[];
  output: Float32Array | null;
  weights: Weights | null;
  gradients: Gradients | null;
  warnings: { key: string; params: Record<string, string | string[]> }[];
}

// The engine's error codes, generated from its messages (cpp/data/messages.json).
import type { ErrorCode } from '../text/messages.js';
export type { ErrorCode } from '../text/messages.js';

/** The engine's message table: every error and warning, by key, in English and Chinese. */
export type MessageTable = Readonly<Record<string, { readonly en: string; readonly zh: string }>>;

/**
 * An invalid config or input. Data, not a sentence: a stable `code`, the message `key` (the code,
 * or the code and a variant, e.g. "bad_size.below_one"), the `field` at fault and the `params` its
 * message is made from. `message` is the English; `messageIn('zh')` the Chinese.
 */
export class MhaError extends Error {
  readonly name: 'MhaError';
  readonly code: ErrorCode;
  /** The key of the message in engine.messages, e.g. "not_divisible" or "bad_type.value". */
  readonly key: string;
  /** The config field at fault: "C", "H", "keyLengths", "weights.Wq", ... */
  readonly field: string;
  /** What the message is made from, e.g. { C: '10', H: '4', divisors: '1, 2, 5, 10' }. */
  readonly params: Readonly<Record<string, string | number>>;
  /** The message in 'en' or 'zh'. */
  messageIn(lang: 'en' | 'zh'): string;
}

/** Why the engine's .wasm did not load (it has no engine.messages: that table is in the .wasm). */
export type LoadErrorKey = 'load.bad_url' | 'load.http' | 'load.network' | 'load.not_wasm' | 'load.not_wasm_file' | 'load.compile' | 'load.file' | 'load.glue';

/**
 * createEngine() or getEngine() could not load the .wasm. The message names the URL tried and the
 * fix (where to copy mha_engine.wasm, or how to say where it is).
 */
export class MhaLoadError extends Error {
  readonly name: 'MhaLoadError';
  readonly code: 'engine_load';
  readonly key: LoadErrorKey;
  readonly field: 'wasmUrl';
  /** The URL tried ('wasmBinary' for bytes passed in). */
  readonly url: string;
  readonly params: Readonly<Record<string, string | number>>;
  /** The message in 'en' or 'zh'. */
  messageIn(lang: 'en' | 'zh'): string;
}

/** Something unusual about a run's result, e.g. queries whose keys are all masked. */
export class MhaWarning {
  /** The key of the message in engine.messages, e.g. "warning.fully_masked". */
  readonly key: string;
  readonly params: Readonly<Record<string, string | number>>;
  /** The English message (also what toString() and JSON give). */
  readonly message: string;
  /** The message in 'en' or 'zh'. */
  messageIn(lang: 'en' | 'zh'): string;
  toString(): string;
  toJSON(): string;
}

type Tensor = Float32Array | number[];

/**
 * nn.MultiheadAttention's parameters, by attribute name or by state_dict name: the output
 * projection as `out_proj_weight`/`out_proj_bias` or `'out_proj.weight'`/`'out_proj.bias'`.
 */
/** A tensor as a state dict holds it: flat, or nested lists as tensor.tolist() writes them. */
export type NestedTensor = Tensor | NestedTensor[];

/**
 * nn.MultiheadAttention's state dict: its keys under any one module path ("self_attn.in_proj_weight")
 * or the one `prefix` names; every other key is refused by name.
 */
export type TorchParams = {
  in_proj_weight?: NestedTensor; // [3C, C]
  in_proj_bias?: NestedTensor | null; // [3C]
  /** add_bias_kv=True: [1, 1, C] each. */
  bias_k?: NestedTensor | null;
  bias_v?: NestedTensor | null;
  /** The kdim/vdim layout, read when each is [C, C]; refused by name when kdim or vdim ≠ C. */
  q_proj_weight?: NestedTensor; k_proj_weight?: NestedTensor; v_proj_weight?: NestedTensor;
  /** embed_dim; default √(out projection's length). */
  C?: number;
  /** The module path before the parameter names ("layers.0.self_attn."); keys outside it are not read. */
  prefix?: string;
  'out_proj.weight'?: NestedTensor; // [C, C]
  'out_proj.bias'?: NestedTensor | null; // [C]
  out_proj_weight?: NestedTensor;
  out_proj_bias?: NestedTensor | null;
  /** The same names after a module path, e.g. "self_attn.in_proj_weight". */
  [prefixed: string]: NestedTensor | number | string | null | undefined;
};

/** One nn.Linear: weight [out_features, C], bias [out_features]. */
export interface LinearLayer {
  weight: Tensor;
  bias?: Tensor | null;
}

/**
 * The separate projections of a Hugging Face-style attention module, by state_dict name
 * ('q_proj.weight', …, 'out_proj.bias') or nested ({ q_proj: { weight, bias }, … }). K and V may
 * have fewer heads than Q. Biases: all four or none.
 */
export type LinearParams = {
  /** embed_dim; default √(out_proj.weight's length). */
  C?: number;
  /** The module path before the projections' names; keys outside it are not read. */
  prefix?: string;
  /** Llama's name for out_proj. */
  o_proj?: LinearLayer;
  q_proj?: LinearLayer; k_proj?: LinearLayer; v_proj?: LinearLayer; out_proj?: LinearLayer;
  'q_proj.weight'?: Tensor; 'q_proj.bias'?: Tensor | null;
  'k_proj.weight'?: Tensor; 'k_proj.bias'?: Tensor | null;
  'v_proj.weight'?: Tensor; 'v_proj.bias'?: Tensor | null;
  'out_proj.weight'?: Tensor; 'out_proj.bias'?: Tensor | null;
};

export interface Engine {
  /** Validates and runs; throws MhaError naming the first problem. The engine stays usable. */
  run(config: Config): Run;
  /** Checks `config` as run() would (sizes, memory, tensors) and runs nothing; throws MhaError naming the first problem. */
  validate(config: Config): void;
  /** Every step the engine knows, in walkthrough order (a fresh copy each time). */
  readonly catalogue: CatalogueEntry[];
  /** Every error and warning message, in English and Chinese, that MhaError and MhaWarning render from. */
  readonly messages: MessageTable;
  /** PyTorch nn.MultiheadAttention parameters → this layout. */
  fromTorch(params: TorchParams): Weights;
  /** Separate q/k/v/out nn.Linear projections (Hugging Face style) → this layout. */
  fromLinear(params: LinearParams): Weights;
  /**
   * c = a · b for row-major a [M, K] and b [K, N], with the engine's own matrix product (the one
   * `npm run bench` compares with the peers). Returns an owned c [M, N].
   * @throws MhaError (code "bad_size" or "bad_tensor_length")
   */
  matmul(a: Float32Array | number[], b: Float32Array | number[], sizes: { M: number; K: number; N: number }): Float32Array;
  /** A tiny transformer trained on a task (an engine made with createEngine({ trainer: true })). */
  trainer(options?: TrainerOptions): Trainer;
  /** A character language model (an engine made with createEngine({ trainer: true })); synchronous where the files can be read (Node). */
  languageModel(options: LanguageModelOptions): LanguageModel;
  /** languageModel() with its files fetched first: works in a browser as in Node. */
  loadLanguageModel(options: LanguageModelOptions): Promise<LanguageModel>;
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

  /** Bytes of wasm linear memory (grows to the largest run, never shrinks). */
  readonly memoryBytes: number;
  /** Embind value handles alive in the module: the same after every run unless something leaks. */
  readonly liveHandles: number;
}

export type TaskName = 'reverse' | 'sort' | 'previous' | 'induction';

/** engine.trainer(options): every option but task defaults to the task's (trainer.options shows them). */
export interface TrainerOptions {
  task?: TaskName;
  /** 0 … 2³²−1; default 0. Fixes the parameters, every batch and dropout. */
  seed?: number;
  /** Sequence length (4 … 64) and vocabulary (2 … 512; sort needs ≥ T, induction ≥ T − 3). */
  T?: number;
  vocab?: number;
  /** 1 … 4 blocks, 1 … 16 heads dividing width (4 … 256). */
  layers?: number;
  heads?: number;
  width?: number;
  /** A ReLU MLP (C → 4C → C) after each attention; pre-LayerNorm before each sublayer (default true). */
  mlp?: boolean;
  layernorm?: boolean;
  /** Sequences per step (1 … 512, default 32). */
  batch?: number;
  /** AdamW: learning rate (0 … 1], decoupled weight decay [0, 1] (default 0.01). */
  lr?: number;
  weightDecay?: number;
  /** Dropout on the attention weights in training, [0, 0.9] (default 0). */
  dropout?: number;
  /** Gradient clipping by global norm (default 1; 0: none). */
  clip?: number;
  /** What trainer.save() returned: continue that trainer (no other option with it). */
  checkpoint?: Uint8Array;
}

export interface TaskInfo {
  name: TaskName;
  T: number;
  /** Input tokens are the integers 0 … vocab − 1. */
  vocab: number;
  causal: boolean;
  /** The default training length, in which the task reaches its targets. */
  steps: number;
  /** The job its head is measured on, and the score it reaches. */
  job: keyof JobScores;
  jobTarget: number;
}

/** Attention mass on the keys a job expects, averaged over fresh batches. */
export interface JobScores {
  antiDiagonal: number; // query i → key T−1−i
  answer: number; // query i → the keys holding target[i]
  previousToken: number; // query i → key i−1
  prefixMatching: number; // query i → the key after an earlier occurrence of token i (Olsson et al.)
}

export interface HeadScore {
  layer: number;
  head: number;
  jobs: JobScores;
  /** The task's own job's score. */
  score: number;
}

export interface TrainResult {
  step: number;
  /** The last step's training loss and accuracy (on its scored positions). */
  loss: number;
  accuracy: number;
  /** Every step's loss. */
  losses: Float32Array;
}

/**
 * A trainer lives in the engine behind one handle until dispose() frees it (a trainer dropped
 * without dispose() is freed when it is garbage-collected); train() copies nothing but the losses.
 */
export class Trainer {
  readonly task: TaskInfo;
  readonly options: Required<Omit<TrainerOptions, 'checkpoint'>>;
  readonly step: number;
  readonly parameterCount: number;
  /**
   * Changes how it trains from its next step (learning rate, weight decay, dropout, clipping); its
   * model, step and random state stay, so evaluate(), attention() and headScores() do not change.
   * Any other option is refused naming it (MhaError 'bad_option.fixed'). Returns this trainer.
   */
  configure(options: Pick<TrainerOptions, 'lr' | 'weightDecay' | 'dropout' | 'clip'>): this;
  /** Trains synchronously (1 … 100,000 steps): call it in chunks from a Web Worker. */
  train(steps?: number): TrainResult;
  /** On fresh batches (the same ones every call), without dropout. */
  evaluate(options?: { sequences?: number }): { loss: number; accuracy: number; sequences: number };
  headScores(): HeadScore[];
  /** tokens [B, T] → the predicted target per position, [B, T]. */
  predict(tokens: Int32Array | number[]): Int32Array;
  /** Every layer's attention weights [B, H, T, T], without dropout. */
  attention(tokens: Int32Array | number[]): { layer: number; weights: Float32Array }[];
  /** One layer's block as a walkthrough run, forward and backward (its dOutput from the loss). */
  run(tokens: Int32Array | number[], options?: { layer?: number }): Run;
  /**
   * What a picture of the trainer needs in one call, without a walkthrough trace: every layer's
   * attention over `tokens`, the predictions, and (unless `scores: false`) every head's scores.
   */
  view(tokens: Int32Array | number[], options?: { scores?: boolean }): TrainerView;
  /** The whole trainer as bytes; engine.trainer({ checkpoint }) continues from it exactly. */
  save(): Uint8Array;
  /** Frees the trainer in the engine now; every later call throws MhaError 'trainer.disposed'. Twice is harmless. */
  dispose(): void;
  /** True once dispose() has freed it. */
  readonly disposed: boolean;
}

export type CorpusName = 'moby-dick' | 'tang-poems';

/** A corpus as loadCorpus() reads it: the characters by id, the unknown mark, the id arrays. */
export interface CorpusData {
  name: CorpusName;
  chars: string[];
  unknown: string | null;
  heldout: Uint8Array | Uint16Array;
  train: Uint8Array | Uint16Array | null;
}

/** engine.languageModel(options). With trained: false, the model options; otherwise corpus or checkpoint alone. */
export interface LanguageModelOptions {
  corpus?: CorpusName | CorpusData;
  /** true (default): the shipped checkpoint; false: a new model from the options below. */
  trained?: boolean;
  checkpoint?: Uint8Array;
  seed?: number; T?: number; layers?: number; heads?: number; width?: number; batch?: number;
  lr?: number; weightDecay?: number; dropout?: number; clip?: number; mlp?: boolean; layernorm?: boolean;
  /** The share of each batch's rows that repeat a passage of repeatMin … repeatMax characters. */
  repeatShare?: number; repeatMin?: number; repeatMax?: number;
}

export interface TextJobs {
  /** Mass on key i−1. */
  previousChar: number;
  /** Mass on the key after the earlier occurrence of the last two characters. */
  induction: number;
  /** Mass on key i−5: the predicted character's place 6 back (the previous half-line of a verse). */
  halfLine: number;
  /** Mass on key i−11: 12 back (the previous line). */
  line: number;
}

export type Positions = 'trained' | 'removed' | 'shuffled';

export interface GenerationChunk {
  text: string;
  ids: Int32Array;
  /** Characters in the KV cache now (at most T). */
  cached: number;
  cacheBytes: number;
  /** Times the cache was rebuilt from the window's last T/2 characters. */
  rebuilds: number;
}

export class LanguageModel {
  readonly vocab: string[];
  readonly corpus: CorpusName;
  /** The longest window the model reads at once (T). */
  readonly context: number;
  readonly options: Record<string, number | boolean | string>;
  readonly step: number;
  readonly parameterCount: number;
  readonly disposed: boolean;
  encode(text: string): { ids: Int32Array; chars: string[]; unknown: { index: number; char: string }[] };
  decode(ids: ArrayLike<number>): string;
  /** The characters of `text` the model reads (its last ≤ T, by the window rule). */
  windowOf(text: string): string[];
  next(text: string, options?: { topK?: number; positions?: Positions; seed?: number }): { char: string; p: number }[];
  generate(prompt: string, options?: { length?: number; temperature?: number; topK?: number; seed?: number }): string;
  stream(prompt: string, options?: { temperature?: number; topK?: number; seed?: number }): { cached: number; cacheBytes: number; next(count?: number): GenerationChunk };
  attention(text: string, options?: { positions?: Positions; seed?: number }): { layer: number; weights: Float32Array; chars: string[] }[];
  bitsPerChar(text: string): number;
  evaluate(options?: { windows?: number }): { bits: number; characters: number };
  /** On `text`, or on held-out text when it is left out. */
  headScores(text?: string, options?: { windows?: number }): { layer: number; head: number; jobs: TextJobs }[];
  train(steps?: number): TrainResult;
  /** Loads the training text where it must be fetched (a browser) before train(). */
  loadTrainingText(): Promise<void>;
  configure(options: { lr?: number; weightDecay?: number; dropout?: number; clip?: number }): this;
  run(text: string, options?: { layer?: number }): Run;
  save(options?: { parametersOnly?: boolean; float16?: boolean }): Uint8Array;
  dispose(): void;
}

/** A corpus's files beside the trainer's .wasm, read (train: false leaves the training ids out). */
export function loadCorpus(name: CorpusName, trainerWasmUrl: string | UrlLike, options?: { train?: boolean }): Promise<CorpusData>;

export interface TrainerView {
  step: number;
  layers: { layer: number; weights: Float32Array }[];
  predicted: Int32Array;
  scores?: HeadScore[];
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

export interface EngineOptions {
  /**
   * Load the engine with the trainer (dist/mha_trainer.wasm), which engine.trainer() needs and which
   * runs everything the engine alone runs. Its .wasm is found by the same rule, with <meta
   * name="mha-lens:trainer-wasm-url">, else beside the engine's .wasm; its JS (mha_trainer.mjs)
   * beside its .wasm.
   */
  trainer?: boolean;
  /**
   * Where the .wasm is (relative: to the page; in Node, to the working directory). Without it:
   * <meta name="mha-lens:wasm-url" content="…"> on the page, else beside the JS that holds the
   * engine (web/dist/mha_engine.mjs, or your bundle: Vite and webpack emit the file and point
   * there; with esbuild, copy mha_engine.wasm beside the bundle).
   */
  wasmUrl?: string | UrlLike;
  /** The .wasm bytes, if already loaded. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * The compiled .wasm (what compileEngine() gave, posted to a Web Worker, say), with its URL as
   * `wasmUrl` so that the trainer's glue is found beside it: nothing is fetched or compiled again.
   */
  wasmModule?: CompiledWasm;
}

/**
 * Fetches and compiles the .wasm once per URL (the rule of EngineOptions.wasmUrl; `trainer`: the
 * engine with the trainer) and gives the compiled module with the URL it came from.
 * @throws MhaLoadError naming the URL tried and the fix
 */
export function compileEngine(options?: { wasmUrl?: string | UrlLike; trainer?: boolean }): Promise<{ url: string; given: boolean; module: CompiledWasm }>;

/**
 * Loads an engine of its own. The .wasm at one URL is fetched and compiled once, however many
 * engines are made from it. @throws MhaLoadError naming the URL tried and the fix
 */
export function createEngine(options?: EngineOptions): Promise<Engine>;

/**
 * The page's (or process's) one engine, shared with every mha-lens element: loaded by the first
 * call, with that call's options; later calls get the same engine. A failed load is not kept.
 * @throws MhaLoadError naming the URL tried and the fix
 */
export function getEngine(options?: EngineOptions): Promise<Engine>;

/**
 * Settings for the whole page (or process). `assetPath`: the folder (a URL, relative to the page)
 * that holds mha_engine.wasm, mha_trainer.mjs, mha_trainer.wasm and checkpoints/, for a site that
 * serves them itself; null (the default): where the bundler emitted them, or beside the package's
 * JS. A wasm-url attribute or a meta tag wins over it.
 */
export declare const env: { assetPath: string | null };

// Named without the DOM's types, so that a Node-only project (lib es2022, @types/node or none)
// type-checks against these declarations too.
/** A URL object (URL in browsers and Node), or anything with its href. */
export interface UrlLike { readonly href: string }
/** A compiled WebAssembly.Module, as compileEngine() gives it. */
export type CompiledWasm = typeof globalThis extends { WebAssembly: { Module: new (...args: never[]) => infer M } } ? M : object;
