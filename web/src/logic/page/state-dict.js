// A PyTorch state dict pasted as JSON ({k: v.tolist() for k, v in module.state_dict().items()}),
// read into the parameters engine.fromTorch (nn.MultiheadAttention: in_proj_weight [3C, C],
// in_proj_bias, out_proj.weight, out_proj.bias) or engine.fromLinear (separate q_proj, k_proj,
// v_proj, out_proj, as Hugging Face BERT/GPT-style modules hold them) takes. Keys may carry a
// module prefix ("layers.0.self_attn.in_proj_weight"). Values are nested lists or flat arrays of
// numbers; the engine checks their lengths and values. No DOM: tests/js/state-dict.test.js.
import { isPlainObject } from '../../engine/values.js';
import { parseImportText } from './config-import.js';
import { PageError } from '../../text/page-error.js';

/** A state dict of C = 1024 as JSON is about 40 MB: more is refused before parsing. */
export const MAX_STATE_DICT_BYTES = 64 * 2 ** 20;

// bias_k and bias_v: a module built with add_bias_kv=True; q/k/v_proj_weight: with kdim or vdim
// (engine.fromTorch reads them when [C, C] and refuses them by name otherwise).
const TORCH = ['in_proj_weight', 'in_proj_bias', 'out_proj.weight', 'out_proj.bias', 'bias_k', 'bias_v',
  'q_proj_weight', 'k_proj_weight', 'v_proj_weight'];
const LINEAR = ['q_proj', 'k_proj', 'v_proj', 'out_proj'].flatMap((p) => [`${p}.weight`, `${p}.bias`]);
// Llama's name for the output projection.
const ALIASES = { 'o_proj.weight': 'out_proj.weight', 'o_proj.bias': 'out_proj.bias' };

/** A state dict that cannot be read: `code` names why (words: `torch.error.<code>`). */
export class StateDictError extends PageError {
  constructor(code, params = {}) {
    super({ code, field: 'stateDict', key: `torch.error.${code}`, params });
    this.name = 'StateDictError';
  }
}

// Row-major numbers of a nested list (or a flat array); null names a ragged or non-numeric value.
function flatten(value, name) {
  const out = [];
  const walk = (node) => {
    if (Array.isArray(node)) {
      const first = Array.isArray(node[0]);
      for (const child of node) {
        if (Array.isArray(child) !== first) throw new StateDictError('ragged', { name });
        walk(child);
      }
    } else if (typeof node === 'number') {
      out.push(node);
    } else {
      throw new StateDictError('notNumbers', { name });
    }
  };
  if (!Array.isArray(value)) throw new StateDictError('notNumbers', { name });
  walk(value);
  return Float32Array.from(out);
}

/**
 * A parsed state dict → { kind: 'torch' | 'linear', params (for engine.fromTorch / fromLinear),
 * C (from out_proj.weight, [C, C]), bias (whether it has biases) }.
 */
export function readStateDict(value) {
  if (!isPlainObject(value)) throw new StateDictError('notObject', {});
  // The tensors by their own name, without the module path before it (the attention module's
  // path: keys under another path are other modules of the layer, such as linear1.weight).
  const byName = new Map();
  const keyOf = new Map();
  const prefixOf = new Map();
  for (const key of Object.keys(value)) {
    const known = [...TORCH, ...LINEAR, ...Object.keys(ALIASES)].find((n) => key === n || key.endsWith(`.${n}`));
    if (!known) continue;
    const name = ALIASES[known] ?? known;
    // Two modules' attention (layers.0 and layers.1): which one is meant cannot be guessed.
    if (byName.has(name)) throw new StateDictError('twoModules', { first: keyOf.get(name), second: key });
    byName.set(name, value[key]);
    keyOf.set(name, key);
    prefixOf.set(name, key.slice(0, key.length - known.length));
  }
  const kind = byName.has('in_proj_weight') || byName.has('q_proj_weight') ? 'torch' : byName.has('q_proj.weight') ? 'linear' : null;
  if (!kind) throw new StateDictError('noWeights', {});
  const names = kind === 'torch' ? TORCH : LINEAR;
  // Every other key of the attention module's own path is refused by name, never dropped.
  const prefix = prefixOf.get(kind === 'torch' ? (byName.has('in_proj_weight') ? 'in_proj_weight' : 'q_proj_weight') : 'q_proj.weight');
  for (const key of Object.keys(value)) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    if (!names.includes(ALIASES[rest] ?? rest)) throw new StateDictError('unknownKey', { name: key });
  }
  const params = {};
  for (const name of names) if (byName.has(name)) params[name] = flatten(byName.get(name), name);
  if (!params['out_proj.weight']) throw new StateDictError('missing', { name: 'out_proj.weight' });
  const C = Math.round(Math.sqrt(params['out_proj.weight'].length));
  if (C * C !== params['out_proj.weight'].length) throw new StateDictError('notSquare', { n: params['out_proj.weight'].length });
  const bias = kind === 'torch' ? 'in_proj_bias' in params : 'q_proj.bias' in params;
  return { kind, params, C, bias };
}

/** JSON text → readStateDict's result; refuses what is not safe JSON first. */
export function parseStateDict(text) {
  return readStateDict(parseImportText(text, { maxBytes: MAX_STATE_DICT_BYTES, maxDepth: 6 }));
}

/**
 * in_proj_weight as nn.MultiheadAttention holds it, from the walkthrough's weights: rows 0…C−1
 * are Wqᵀ, C…2C−1 Wkᵀ, 2C…3C−1 Wvᵀ (nn.Linear stores [out, in] and computes x·Wᵀ, the
 * walkthrough writes Q = X·Wq with Wq [C, C]). Row-major [3C, C]; MHA only (Hkv = H).
 */
export function inProjWeight({ Wq, Wk, Wv }, C) {
  const out = new Float32Array(3 * C * C);
  for (let r = 0; r < 3 * C; r++) for (let c = 0; c < C; c++) out[r * C + c] = inProjAt({ Wq, Wk, Wv }, C, r, c);
  return out;
}

/** in_proj_weight[r][c] alone (a corner for the page, without building the [3C, C] copy). */
export function inProjAt({ Wq, Wk, Wv }, C, r, c) {
  const W = [Wq, Wk, Wv][Math.floor(r / C)];
  return W[c * C + (r % C)];
}
