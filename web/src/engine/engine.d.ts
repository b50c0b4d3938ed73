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

/** The walkthrough's steps, in catalogue order (cpp/src/catalogue.cpp). */
export type StepId =
  | 'x' | 'source' | 'q' | 'k' | 'v' | 'q_split' | 'k_split' | 'v_split' | 'q_heads' | 'k_heads' | 'v_heads'
  | 'k_shared' | 'v_shared' | 'k_t' | 'scores' | 'scaled' | 'masked' | 'weights' | 'context' | 'context_t'
  | 'concat' | 'output';

export type StepOp = 'input' | 'projection' | 'reshape' | 'transpose' | 'repeat' | 'matmul' | 'scale' | 'mask' | 'softmax' | 'merge';

export type AxisName = 'B' | 'T' | 'Tq' | 'Tk' | 'C' | 'H' | 'Hkv' | 'D' | 'H·D' | 'Hkv·D';

/** Which way through attention a step belongs to (the forward pass only, so far). */
export type Pass = 'forward' | 'backward' | 'tiled' | 'incremental';

/**
 * One entry of the engine's step catalogue: what a step is, for every run. Its text fields are
 * templates the engine fills in per run (a run's Step has them filled): `{src}` is the sequence K
 * and V come from, `{k_heads}` the K heads the scores read, `{Hkv}` the K/V heads (H in plain
 * MHA), `{+bq}` a bias term, `{group}` H/Hkv.
 */
export interface CatalogueEntry {
  id: StepId;
  pass: Pass;
  op: StepOp;
  /** The step this one is computed from ("" for an input); may be a slot such as "{src}". */
  input: string;
  /** Axis symbols, comma-separated, e.g. "B,Tk,Hkv·D". */
  axes: string;
  /** English title; the page's titles in both languages are keyed by id (`step.<id>`). */
  title: string;
  formula: string;
  latex: string;
  /**
   * The shapes that go in, in axis symbols ("[B,H,Tq,D] @ [B,H,D,Tk]"): a step's `shapeFormula` is
   * this with numbers. Slots: {+[H·D]} is " + [H·D]" with a bias, {D} the head width, {mask} the
   * mask's shape ("" when the step has no operands: an input).
   */
  operands: string;
  /** The step whose buffer this one views without copying, or "". */
  viewOf: string;
  /** When a step appears: always, in cross-attention only, or under GQA/MQA only. */
  when: 'always' | 'cross' | 'grouped';
}

/**
 * One step of the walkthrough and the tensor it produced. Its `shape`, `axes` and `strides` arrays
 * (and the summary's `keyLengths`) are frozen: runs of the same sizes and options share them.
 */
export interface Step {
  id: StepId;
  /** Short English title (the catalogue's); web/src/text/en.js and zh.js have it as `step.<id>`. */
  title: string;
  op: StepOp;
  /** The id of the step this one is computed from in this run ("source" for K in cross-attention, …); "" for an input. */
  input: StepId | '';
  /** Symbolic formula, e.g. "Q = X·Wq + bq". */
  formula: string;
  /** The same formula in LaTeX, e.g. "Q = XW_q + b_q". */
  latex: string;
  /** The formula with this config's shapes, e.g. "[2,4,8] @ [8,8] + [8] → [2,4,8]". */
  shapeFormula: string;
  shape: readonly number[];
  axes: readonly AxisName[];
  /**
   * Values in row-major order of `shape`; masked scores are -Infinity. Owned by the run (never a
   * view of the wasm heap); treat it as read-only. null in `run.steps` of a lazy run: ask
   * `run.step(id)` for them.
   */
  data: Float32Array | null;
  /** Set on a step returned by `run.step(id, {batch, head})`: the slice its values are. */
  slice?: StepSlice;
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

/** One batch row's head of a [B, H, Tq, Tk] step. */
export interface StepSlice {
  batch: number;
  head: number;
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
}

export class Run {
  readonly steps: Step[];
  readonly summary: Summary;
  /** e.g. queries whose keys are all masked (their weights are 0; PyTorch gives NaN). */
  readonly warnings: MhaWarning[];
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
  step(id: StepId | string, slice?: StepSlice): Step;
  /**
   * Lets go of this run's arrays at once (a slider's previous run, say): every array the run made
   * (step data, output, seeded weights; never the caller's own tensors) is emptied (its buffer
   * detached), and step() throws. Calling it again does nothing.
   */
  release(): void;
}

export type ErrorCode =
  | 'bad_json' | 'unknown_key' | 'bad_type' | 'missing' | 'bad_size' | 'not_divisible' | 'heads_not_divisible'
  | 'bad_key_lengths' | 'bad_tensor_length' | 'non_finite' | 'bad_value' | 'memory_cap' | 'unknown_step' | 'released'
  | 'out_of_memory' | 'internal';

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
export type TorchParams = {
  in_proj_weight: Tensor; // [3C, C]
  in_proj_bias?: Tensor | null; // [3C]
  /** embed_dim; default √(out projection's length). */
  C?: number;
} & (
  | { out_proj_weight: Tensor; out_proj_bias?: Tensor | null } // [C, C], [C]
  | { 'out_proj.weight': Tensor; 'out_proj.bias'?: Tensor | null }
);

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
  /** Bytes of wasm linear memory (grows to the largest run, never shrinks). */
  readonly memoryBytes: number;
  /** Embind value handles alive in the module: the same after every run unless something leaks. */
  readonly liveHandles: number;
}

export interface EngineOptions {
  /** Where the .wasm is; default: next to dist/mha_engine.mjs. */
  wasmUrl?: string | URL;
  /** The .wasm bytes, if already loaded. */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

export function createEngine(options?: EngineOptions): Promise<Engine>;
