// A catalogue entry's words for one run: its title, op, input, the step it views, its formula,
// LaTeX and shape formula, with every {slot} of the entry (catalogue.js, from cpp/data/steps.json)
// filled in from the run's summary. The engine sends a run's numbers only; this is where a step's
// text is made, for the API, the page and the CLI alike. No DOM.
//
// The slots (web/docs/architecture.md):
//   {src}       X, or S in cross-attention (in input and viewOf: the step x or source)
//   {+term}     " + term" with a bias, nothing without
//   {Hkv}       Hkv under GQA/MQA (H_{kv} in LaTeX), H in plain MHA
//   {group}     H/Hkv, a number
//   {k_heads}   the K heads the scores read: k_shared under GQA/MQA, else k_appended under
//               addBiasKv, else k_heads
//   {k_append}, {v_append}  k_appended / v_appended under addBiasKv, else k_heads / v_heads
//   {context}   the context a run computed: tile_context in a tiled run, else context
//   {heads}     in titles: MHA, GQA or MQA
//   backward:   {group_sum}, {dx_formula}, {dx_latex}, {dv_operands}, {dk_operands}, {dx_operands},
//               {dv_from}, {dk_from}, {d_k_per_head}, and ops written {group_op:op}
//   operands:   [symbols] become numbers; {mask} names the mask's shape; {D} is the head width

/** 'MHA' (as many K/V heads as query heads), 'MQA' (one K/V head) or 'GQA' (groups between). */
export function headSharing({ H, Hkv }) {
  if (Hkv === H) return 'MHA';
  return Hkv === 1 ? 'MQA' : 'GQA';
}

const grouped = (s) => s.Hkv < s.H;
const padded = (s) => Array.isArray(s.keyLengths) || ArrayBuffer.isView(s.keyLengths);

/** The entry's title in `lang` ('en' or 'zh') for a run of `summary`. */
export function titleOf(entry, summary, lang = 'en') {
  return appendedRows((entry.title[lang] ?? entry.title.en).replaceAll('{heads}', headSharing(summary)), summary, false);
}

// {k_rows}, {v_rows} (and _latex): the keys and values a run appends, in PyTorch's order.
function appendedRows(text, s, latex) {
  const rows = (bias, biasLatex) => [s.biasKv ? (latex ? biasLatex : bias) : null, s.zeroAttn ? (latex ? '\\mathbf{0}' : 'zeros') : null].filter(Boolean).join(latex ? ';\\ ' : ', ');
  return text
    .replaceAll('{k_rows_latex}', rows('bias_k', 'b_k^{*}'))
    .replaceAll('{v_rows_latex}', rows('bias_v', 'b_v^{*}'))
    .replaceAll('{k_rows}', rows('bias_k', 'b_k^{*}'))
    .replaceAll('{v_rows}', rows('bias_v', 'b_v^{*}'));
}

/** The entry's op: "{group_op:op}" is a sum over each group of query heads under GQA/MQA. */
export function opOf(entry, summary) {
  const slot = /^\{group_op:(\w+)\}$/.exec(entry.op);
  if (!slot) return entry.op;
  return grouped(summary) ? 'sum' : slot[1];
}

// An input or view written as a slot: the step it names in this run.
function stepRef(ref, s) {
  switch (ref) {
    case '{src}': return s.cross ? 'source' : 'x';
    case '{k_heads}': return grouped(s) ? 'k_shared' : s.appended ? 'k_appended' : 'k_heads';
    case '{k_append}': return s.appended ? 'k_appended' : 'k_heads';
    case '{v_append}': return s.appended ? 'v_appended' : 'v_heads';
    case '{context}': return s.algorithm === 'tiled' ? 'tile_context' : 'context';
    case '{dv_from}': return grouped(s) ? 'd_v_shared' : 'd_context';
    case '{dk_from}': return grouped(s) ? 'd_k_shared' : 'd_k_t';
    case '{d_k_per_head}': return grouped(s) ? 'd_k_shared' : 'd_k';
    default: return ref;
  }
}

/** The step the entry is computed from in this run ("" for an input). */
export const inputOf = (entry, summary) => stepRef(entry.input, summary);

/** The step whose buffer the entry views in this run, or "". */
export const viewOfStep = (entry, summary) => stepRef(entry.viewOf, summary);

// {+term}: " + term" with a bias, nothing without.
const biasTerms = (text, bias) => text.replace(/\{\+([^}]*)\}/g, (_, term) => (bias ? ` + ${term}` : ''));

function fill(text, s, latex) {
  const group = String(s.H / s.Hkv);
  // The backward pass's slots: the sum over each group of query heads under GQA/MQA, and dX,
  // which gathers dK and dV too in self-attention (where K and V are computed from X).
  const groupSum = !grouped(s) ? '' : latex ? '\\sum_{\\text{group of } {group}} ' : 'Σ over each group of {group} query heads: ';
  return biasTerms(appendedRows(text, s, latex)
    .replaceAll('{group_sum}', groupSum)
    .replaceAll('{dx_formula}', s.cross ? 'dX = dQ·Wqᵀ' : 'dX = dQ·Wqᵀ + dK·Wkᵀ + dV·Wvᵀ')
    .replaceAll('{dx_latex}', s.cross ? 'dX = dQ\\,W_q^{\\top}' : 'dX = dQ\\,W_q^{\\top} + dK\\,W_k^{\\top} + dV\\,W_v^{\\top}')
    .replaceAll('{src}', s.cross ? 'S' : 'X')
    .replaceAll('{Hkv}', grouped(s) ? (latex ? 'H_{kv}' : 'Hkv') : 'H')
    .replaceAll('{group}', group), s.bias);
}

/** The entry's formula for this run: "Q = X·Wq + bq". */
export const formulaOf = (entry, summary) => fill(entry.formula, summary, false);

/** The entry's LaTeX for this run: "Q = XW_q + b_q". */
export const latexOf = (entry, summary) => fill(entry.latex, summary, true);

/**
 * The size of an axis symbol in a run ("H·D" is H times D; "1" is 1; t and t+1 span a whole
 * decoding run); undefined for a symbol the run has no size for (a tile's, outside a tiled run).
 */
export function axisSize(symbol, s) {
  const tiles = s.tiles ?? {};
  switch (symbol) {
    case 'B': return s.B;
    case 'T': case 'Tq': case 't': case 't+1': return s.T;
    case 'Tk': return s.Tk;
    case 'C': return s.C;
    case 'H': return s.H;
    case 'Hkv': return s.Hkv;
    case 'D': return s.D;
    case 'H·D': return s.H * s.D;
    case 'Hkv·D': return s.Hkv * s.D;
    case '1': return 1;
    case 'B·T': case 'B·Tq': return s.B * s.T;  // every token of the batch, as a weight's gradient sums them
    case 'B·Tk': return s.B * s.Tk;
    case 'Bq': return tiles.blockQ;
    case 'Bk': return tiles.blockK;
    case 'Nq': return tiles.queryBlocks;
    case 'Nk': return tiles.keyBlocks;
    default: return undefined;
  }
}

/** An axis symbol as a run names it: Hkv reads H in plain MHA, where K and V have as many heads as Q. */
export function axisName(symbol, s) {
  if (s.Hkv === s.H && symbol === 'Hkv') return 'H';
  if (s.Hkv === s.H && symbol === 'Hkv·D') return 'H·D';
  return symbol;
}

// The mask's own shape, broadcast over the scores: causal [Tq, Tk], padding [B, 1, 1, Tk];
// attnMask as given, keyPaddingMask [B, 1, 1, Tk].
function maskOperand(s) {
  const causal = s.mask === 'causal';
  if (s.attnMask || s.keyPaddingMask) {
    const parts = [];
    if (causal) parts.push('causal mask [Tq,Tk]');
    if (padded(s)) parts.push('keyLengths [B,1,1,Tk]');
    if (s.attnMask) parts.push(`attnMask (${s.attnMask.form}) [${s.attnMask.shape.join(',')}]`);
    if (s.keyPaddingMask) parts.push(`keyPaddingMask (${s.keyPaddingMask.form}) [B,1,1,Tk]`);
    return ` + ${parts.join(' + ')}`;
  }
  if (causal && padded(s)) return ' + causal and padding mask [B,1,Tq,Tk]';
  if (causal) return ' + causal mask [Tq,Tk]';
  return padded(s) ? ' + padding mask [B,1,1,Tk]' : ' with no mask';
}

// With a learned key appended (addBiasKv), the Tk of a step after the append counts it too.
const shapeOfSymbols = (symbols, s, attended = false) =>
  `[${symbols.split(',').map((symbol) => (symbol === 'Tk' && attended ? s.Tk + (s.appended ?? 0) : axisSize(symbol, s) ?? (/^\d+$/.test(symbol) ? Number(symbol) : 0))).join(',')}]`;

/** "[2,4,8] @ [8,8] + [8] → [2,4,8]": the shapes that go in and the step's own, for this run; just the shape for an input. */
export function shapeFormulaOf(entry, summary) {
  const s = summary;
  const attended = entry.keys !== 'source';
  const result = shapeOfSymbols(entry.axes, s, attended);
  if (!entry.operands) return result;
  const group = String(s.H / s.Hkv);
  const operands = biasTerms(entry.operands, s.bias)
    .replaceAll('{dv_operands}', grouped(s) ? '[B,H,Tk,D] summed over groups of {group}' : '[B,H,Tk,Tq] @ [B,H,Tq,D]')
    .replaceAll('{dk_operands}', grouped(s) ? '[B,H,Tk,D] summed over groups of {group}' : '[B,H,D,Tk]')
    .replaceAll('{dx_operands}', s.cross ? '[B,T,H·D] @ [C,H·D]ᵀ' : '[B,T,H·D] @ [C,H·D]ᵀ + [B,T,Hkv·D] @ [C,Hkv·D]ᵀ + [B,T,Hkv·D] @ [C,Hkv·D]ᵀ')
    .replaceAll('{group}', group)
    .replaceAll('{mask}', maskOperand(s))
    .replaceAll('{D}', String(s.D));
  const operandsAttended = attended && entry.op !== 'append';  // an append reads the source's keys
  return `${operands.replace(/\[([^\]]*)\]/g, (_, symbols) => shapeOfSymbols(symbols, s, operandsAttended))} → ${result}`;
}
