// What engine.fromTorch and engine.fromLinear read out of a state dict as PyTorch writes it:
// the tensors by their own names, whatever module path comes before them ("self_attn.",
// "layers.0.attention."), or under an explicit `prefix`; nested lists as tensor.tolist() writes
// them flattened row-major; and every key either used or refused by name, never dropped. The
// engine then checks the lengths and values. No DOM, no engine: errors are {field, key, params}
// for MhaError.from (messages in cpp/data/messages.json, "page").

/** nn.MultiheadAttention's parameters (packed in_proj, as PyTorch writes them when kdim = vdim = embed_dim). */
export const TORCH_NAMES = ['in_proj_weight', 'in_proj_bias', 'out_proj.weight', 'out_proj.bias', 'bias_k', 'bias_v'];
// Its parameters when kdim or vdim ≠ embed_dim: q, k and v weights of their own (biases stay packed).
const TORCH_SEPARATE = ['q_proj_weight', 'k_proj_weight', 'v_proj_weight'];
// Spellings of out_proj.weight that a hand-made dict uses.
const TORCH_ALIASES = { out_proj_weight: 'out_proj.weight', out_proj_bias: 'out_proj.bias' };

/** Separate projections (Hugging Face BERT/GPT-style, Llama's o_proj for out_proj). */
const LINEAR_LAYERS = ['q_proj', 'k_proj', 'v_proj', 'out_proj'];
const LINEAR_ALIASES = { o_proj: 'out_proj' };
export const LINEAR_NAMES = LINEAR_LAYERS.flatMap((p) => [`${p}.weight`, `${p}.bias`]);

// Options beside the tensors.
const OPTIONS = ['C', 'prefix'];

/** A refused state dict: thrown as it is, engine.js makes it an MhaError. */
export class TorchNameError extends Error {
  constructor(field, key, params = {}) {
    super(key);
    this.detail = { field, key, params };
  }
}

const isTensorLike = (v) => ArrayBuffer.isView(v) || Array.isArray(v);

// Row-major numbers of a nested list (tensor.tolist()), or the array as it is: the engine reads a
// flat Array or typed array and names a bad value. A ragged list is refused here.
function flattened(value, name, shapes) {
  try {
    return flattenedOrThrow(value, name, shapes);
  } catch (error) {
    if (error instanceof TorchNameError) throw error;
    // An element whose getter throws: named as the tensor it is in, not rethrown raw.
    let detail = '?';
    try {
      detail = String(error instanceof Error ? error.message : error).slice(0, 200);
    } catch { /* an error whose message throws */ }
    throw new TorchNameError(name, 'bad_value.unreadable', { field: name, detail });
  }
}

function flattenedOrThrow(value, name, shapes) {
  if (ArrayBuffer.isView(value) || !Array.isArray(value) || !value.some(Array.isArray)) return value;
  const out = [];
  const walk = (node, depth, shape) => {
    if (!Array.isArray(node)) {
      if (depth !== shape.length) throw new TorchNameError(name, 'torch.ragged', { name });
      out.push(node);
      return;
    }
    if (depth === shape.length) shape.push(node.length);
    else if (shape[depth] !== node.length) throw new TorchNameError(name, 'torch.ragged', { name });
    for (const child of node) walk(child, depth + 1, shape);
  };
  const shape = [];
  walk(value, 0, shape);
  shapes?.set(name, shape);  // a nested list says its shape: what a flat array cannot
  return out;
}

// The module path a key has before a known name ('' for none), or null if it ends in none.
function split(key, names) {
  for (const name of names) {
    if (key === name) return { prefix: '', name };
    if (key.endsWith(`.${name}`)) return { prefix: key.slice(0, -name.length), name };
  }
  return null;
}

// `prefix` as given ('self_attn' or 'self_attn.'), with its dot.
const withDot = (prefix) => (prefix === '' || prefix.endsWith('.') ? prefix : `${prefix}.`);

/**
 * The tensors of `params` under the names `known`, with one module path (or `params.prefix`)
 * taken off. `rename` maps another spelling to a known name; `refuse(name, prefix)` may throw for a
 * name the reader knows but does not take. Any other key is refused by name.
 */
function take(params, known, { rename = {}, refuse = () => {}, kind, read }) {
  const explicit = Object.hasOwn(params, 'prefix') ? read(params, 'prefix', 'prefix') : undefined;
  if (explicit !== undefined && typeof explicit !== 'string') {
    throw new TorchNameError('prefix', 'torch.prefix_type', { got: String(explicit) });
  }
  const names = [...known, ...Object.keys(rename)];
  const keys = Object.keys(params).filter((key) => !OPTIONS.includes(key));
  // Nested objects ({ q_proj: { weight, bias } }) read as their dotted names.
  const entries = [];
  for (const key of keys) {
    const value = read(params, key, key);
    if (value !== null && typeof value === 'object' && !isTensorLike(value)) {
      for (const part of Object.keys(value)) entries.push([`${key}.${part}`, read(value, part, `${key}.${part}`)]);
    } else {
      entries.push([key, value]);
    }
  }
  const prefix = explicit === undefined ? undefined : withDot(explicit);
  const inScope = prefix === undefined ? entries : entries.filter(([key]) => key.startsWith(prefix));
  if (prefix !== undefined && prefix !== '' && inScope.length === 0) {
    throw new TorchNameError('prefix', 'torch.prefix_none', { prefix, keys: entries.slice(0, 6).map(([key]) => key) });
  }
  const hits = [];
  const prefixes = new Set();
  for (const [key, value] of inScope) {
    const local = prefix === undefined ? key : key.slice(prefix.length);
    const hit = split(local, names);
    if (!hit) {
      const other = split(local, kind === 'torch' ? LINEAR_NAMES.concat(['o_proj.weight', 'o_proj.bias']) : TORCH_NAMES.concat(TORCH_SEPARATE));
      if (other) refuse(other.name, key);
      throw new TorchNameError(key, kind === 'torch' ? 'torch.unknown_key' : 'linear.unknown_key', { key });
    }
    refuse(hit.name, key);
    prefixes.add(hit.prefix);
    hits.push({ key, value, name: rename[hit.name] ?? hit.name });
  }
  // More than one module's parameters (layers.0 and layers.1): which is meant cannot be guessed.
  if (prefixes.size > 1) {
    const list = [...prefixes].map((p) => p || '(none)');
    throw new TorchNameError('prefix', 'torch.prefixes', { prefixes: list, first: [...prefixes][0] });
  }
  const found = new Map();
  for (const { key, value, name } of hits) {
    if (found.has(name)) throw new TorchNameError(key, 'torch.twice', { name, first: found.get(name).key, key });
    found.set(name, { key, value });
  }
  const tensors = Object.create(null);
  const shapes = new Map();
  for (const [name, { value }] of found) tensors[name] = value == null ? value : flattened(value, name, shapes);
  return { tensors, shapes };
}

// The square root of an out projection's length: embed_dim C, unless `params.C` says.
function embedDim(params, outWeight, read) {
  if (Object.hasOwn(params, 'C')) return Number(read(params, 'C', 'C'));
  const length = outWeight == null ? undefined : read(outWeight, 'length', 'out_proj.weight');
  return Math.round(Math.sqrt(typeof length === 'number' ? length : NaN));
}

/**
 * nn.MultiheadAttention's state dict (or its parameters by name) → { C, tensors } with tensors
 * (`read(object, key, field)` reads a caller's key once; engine.js names a getter that throws)
 * named in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias, bias_k, bias_v.
 * The kdim/vdim layout (q_proj_weight, …) is read when its three weights are [C, C] each and
 * refused by name otherwise; separate q_proj/o_proj layers are pointed to fromLinear.
 */
const plainRead = (object, key) => object[key];

export function torchTensors(params, read = plainRead) {
  const refuse = (name, key) => {
    if (/^[qkvo]_proj\./.test(name)) throw new TorchNameError(key, 'torch.linear_names', { key });
  };
  const { tensors } = take(params, [...TORCH_NAMES, ...TORCH_SEPARATE], { rename: TORCH_ALIASES, refuse, kind: 'torch', read });
  const C = embedDim(params, tensors['out_proj.weight'], read);
  const separate = TORCH_SEPARATE.filter((name) => name in tensors);
  if (separate.length) {
    // PyTorch writes these only when kdim or vdim ≠ embed_dim: keys and values of their own width.
    for (const name of TORCH_SEPARATE) {
      const length = tensors[name]?.length;
      if (length !== C * C) {
        throw new TorchNameError(name, 'torch.kdim', { name, count: String(length ?? 0), expected: String(C * C), C: String(C) });
      }
    }
    if ('in_proj_weight' in tensors) throw new TorchNameError('in_proj_weight', 'torch.twice', { name: 'in_proj_weight', first: 'q_proj_weight', key: 'in_proj_weight' });
    const packed = new Float32Array(3 * C * C);
    TORCH_SEPARATE.forEach((name, i) => packed.set(Float32Array.from(tensors[name]), i * C * C));
    tensors.in_proj_weight = packed;
    for (const name of TORCH_SEPARATE) delete tensors[name];
  }
  return { C, tensors };
}

/**
 * Separate projections → { C, tensors } by their dotted names q_proj.weight … out_proj.bias
 * (o_proj read as out_proj); nn.MultiheadAttention's packed names are pointed to fromTorch.
 */
export function linearTensors(params, read = plainRead) {
  const rename = {};
  for (const [alias, layer] of Object.entries(LINEAR_ALIASES)) for (const part of ['weight', 'bias']) rename[`${alias}.${part}`] = `${layer}.${part}`;
  const refuse = (name, key) => {
    if (!LINEAR_NAMES.includes(name) && (TORCH_NAMES.includes(name) || TORCH_SEPARATE.includes(name))) {
      throw new TorchNameError(key, 'linear.torch_names', { key });
    }
  };
  const { tensors, shapes } = take(params, LINEAR_NAMES, { rename, refuse, kind: 'linear', read });
  const C = embedDim(params, tensors['out_proj.weight'], read);
  // nn.Linear(kdim, out) is [out, kdim]: a k_proj or v_proj that reads kdim ≠ C features is
  // attention over keys of their own width, which a flat array's length cannot tell apart.
  for (const name of ['q_proj.weight', 'k_proj.weight', 'v_proj.weight']) {
    const shape = shapes.get(name);
    if (shape && shape.length === 2 && shape[1] !== C) {
      throw new TorchNameError(name, 'linear.kdim', { name, rows: String(shape[0]), cols: String(shape[1]), C: String(C) });
    }
  }
  return { C, tensors };
}
