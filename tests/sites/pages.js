// What every tutorial site's pages hold: the same widgets with the same settings on every site, a
// lesson (walkthroughs, heatmaps, a shape chain), a trainer and a playground, with prose around
// them as a post has. Each site's template writes these in its framework's own idiom (the
// renderers below); the checks (checks.js) read back from the page what each widget's `expect`
// says it must draw. Expectations follow from the README's rules for the attributes (one sentence
// of tokens is one batch row, so B = 1 and T = the number of words; heads = B × H panels; …),
// never from running the engine.

/** A value an author may write as text (an attribute, a Markdown page) or as a JS list (a framework prop). */
const list = (items) => ({ list: items });

const PROSE = [
  'Multi-head attention splits the model width C into H heads of D = C/H features each. Every head compares each query with every key, and the softmax turns the scores of a query into weights that sum to one.',
  'Read the shapes as the tensors move through the block: the projections keep [B, T, C], the split makes [B, T, H, D], and the transpose puts the heads before the positions.',
  'The heatmap below follows the walkthrough above: step through it and watch the weights of each head.',
  'A causal mask hides the future: each query sees only the keys at or before its own position, so the upper triangle is hatched.',
  'Cross-attention reads keys from another sequence; averaging over heads is what nn.MultiheadAttention returns by default.',
  'The shape chain sums it all up in one line, with grouped-query attention sharing two K/V heads among four query heads.',
  'The same steps with Chinese labels, from the query projection to the heads.',
  'Pinned to the scores, with a padding mask that keeps three and two keys of the two batch rows.',
];

/** The steps of the walkthrough in the README's order (its table of steps). */
export const STEP_IDS = ['x', 'q', 'k', 'v', 'q_split', 'k_split', 'v_split', 'q_heads', 'k_heads', 'v_heads', 'k_t', 'scores', 'scaled', 'masked', 'weights', 'context', 'context_t', 'concat', 'output'];
const range = (from, to) => STEP_IDS.slice(STEP_IDS.indexOf(from), STEP_IDS.indexOf(to) + 1);

/**
 * The pages. `blocks`: prose ({ p }) and widgets ({ id, tag, attrs, expect }). `attrs` values:
 * a string, a number, `true` (a bare attribute) or list([...]) (text as the words joined by
 * spaces, or an array where the framework passes JS values). `expect` (checks.js reads them):
 * summary (fields of run.summary), firstShape (the walkthrough's or chain's first shape), panels
 * ([b, h] of every heatmap panel drawn), current ([b, h] of the selected panel), stepId, steps (the
 * walkthrough's visible step ids), scale, cellSize, labelLength (most characters in a label), lang
 * ('zh': the titles are Chinese), controls (false: none shown), ownBackground ('dark'), options
 * and task (the trainer's), tokens (how many the playground holds).
 */
export const PAGES = {
  lesson: {
    title: 'Attention, shape by shape',
    blocks: [
      { p: PROSE[0] },
      { id: 'walk', tag: 'mha-walkthrough', attrs: { c: 12, h: 3, tokens: 'the cat sat on the mat', seed: 7 },
        expect: { summary: { B: 1, T: 6, C: 12, H: 3 }, firstShape: [1, 6, 12], steps: STEP_IDS } },
      { p: PROSE[2] },
      { id: 'follow', tag: 'mha-heatmap', attrs: { for: 'walk', step: 'scores', head: 2 },
        expect: { summary: { B: 1, T: 6, C: 12, H: 3 }, stepId: 'scores', panels: [[0, 0], [0, 1], [0, 2]], current: [0, 2] } },
      { p: PROSE[3] },
      { id: 'causal', tag: 'mha-heatmap', attrs: { c: 8, h: 2, mask: 'causal', tokens: 'I love deep learning', bias: false, only: true, head: 1, scale: 'head', 'cell-size': 28, 'label-length': 3 },
        expect: { summary: { B: 1, T: 4, C: 8, H: 2, mask: 'causal', bias: false }, stepId: 'weights', panels: [[0, 1]], current: [0, 1], scale: 'head', cellSize: 28, labelLength: 3 } },
      { p: PROSE[4] },
      { id: 'cross', tag: 'mha-heatmap', attrs: { b: 1, t: 3, tk: 5, c: 8, h: 4, hkv: 1, average: true, theme: 'dark', controls: 'none' },
        expect: { summary: { B: 1, T: 3, Tk: 5, C: 8, H: 4, Hkv: 1 }, panels: [[0, 0]], controls: false, ownBackground: 'dark' } },
      { p: PROSE[5] },
      { id: 'shapes', tag: 'mha-shapes', attrs: { b: 2, t: 5, c: 16, h: 4, hkv: 2 },
        expect: { summary: { B: 2, T: 5, C: 16, H: 4, Hkv: 2 }, firstShape: [2, 5, 16] } },
      { p: PROSE[6] },
      { id: 'zh', tag: 'mha-walkthrough', attrs: { c: 8, h: 2, tokens: list(['我', '爱', '深度', '学习']), lang: 'zh', from: 'q', to: 'q_heads', controls: 'none' },
        expect: { summary: { B: 1, T: 4, C: 8, H: 2 }, firstShape: [1, 4, 8], steps: range('q', 'q_heads'), lang: 'zh', controls: false } },
      { p: PROSE[7] },
      { id: 'pinned', tag: 'mha-walkthrough', attrs: { step: 'scores', b: 2, t: 3, c: 8, h: 2, 'key-lengths': list([3, 2]) },
        expect: { summary: { B: 2, T: 3, C: 8, H: 2, keyLengths: [3, 2] }, stepId: 'scores' } },
      { p: PROSE[1] },
    ],
  },
  trainer: {
    title: 'Train a tiny transformer',
    blocks: [
      { p: 'A one-layer transformer learns to reverse its input, here on the page. Press Train and watch the heads find their job.' },
      { id: 'trainer', tag: 'mha-trainer', attrs: { task: 'reverse', layers: 1, heads: 2, lr: 0.01, seed: 3 },
        expect: { task: 'reverse', options: { task: 'reverse', layers: 1, heads: 2, lr: 0.01, seed: 3 } } },
      { p: 'Each map is one head over the probe; the score beside it says how much of its job it does.' },
    ],
  },
  playground: {
    title: 'Try your own sizes',
    blocks: [
      { p: 'Change the sizes and the tokens; every step below follows.' },
      { id: 'play', tag: 'mha-playground', attrs: { c: 12, h: 3, tokens: 'the cat sat on the mat' },
        expect: { summary: { B: 1, T: 6, C: 12, H: 3 }, tokens: 6 } },
    ],
  },
};

/** The page names, in the order the checks visit them. */
export const PAGE_NAMES = Object.keys(PAGES);

/** The widgets of a page. */
export const widgetsOf = (page) => PAGES[page].blocks.filter((block) => block.tag);

/** The tags a page uses. */
export const tagsOf = (page) => [...new Set(widgetsOf(page).map((w) => w.tag))];

// --- Renderers: one per idiom an author writes in ----------------------------------------------

const escapeHtml = (text) => String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const textOf = (value) => (value?.list ? value.list.join(' ') : String(value));

/** HTML attributes as the README writes them (also Markdown, MDX and Astro pages). */
export function htmlAttributes(attrs) {
  return Object.entries(attrs).map(([name, value]) => (value === true ? name : `${name}="${escapeHtml(textOf(value))}"`)).join(' ');
}

/** A widget as HTML. */
export const htmlWidget = ({ id, tag, attrs }) => `<${tag} id="${id}" ${htmlAttributes(attrs)}></${tag}>`;

/** A page's body as HTML: an h1, paragraphs and the widgets. */
export const htmlBody = (page, { heading = true } = {}) => [
  ...(heading ? [`<h1>${escapeHtml(PAGES[page].title)}</h1>`] : []),
  ...PAGES[page].blocks.map((block) => (block.p ? `<p>${escapeHtml(block.p)}</p>` : htmlWidget(block))),
].join('\n\n');

/**
 * A JSX attribute: numbers and lists as JS values where `values` allows them (a React component's
 * props), text where the types ask for text (React's plain custom elements: tokens="…").
 */
function jsxAttribute(name, value, { lists }) {
  if (value === true) return name;
  if (typeof value === 'number' || typeof value === 'boolean') return `${name}={${value}}`;
  if (value?.list) return lists ? `${name}={${JSON.stringify(value.list)}}` : `${name}="${escapeHtml(textOf(value))}"`;
  return `${name}="${escapeHtml(value)}"`;
}

/** A widget in JSX: `name` the tag or component, `prop` maps an attribute to its prop name. */
export function jsxWidget({ id, attrs }, name, { prop = (a) => a, lists = false, extra = '' } = {}) {
  const props = Object.entries(attrs).map(([attribute, value]) => jsxAttribute(prop(attribute), value, { lists }));
  return `<${name} id="${id}" ${props.join(' ')}${extra ? ` ${extra}` : ''} />`;
}

/** A widget in a Vue template: numbers, booleans and lists bound as JS values (`:c="12"`). */
export function vueWidget({ id, tag, attrs }, { extra = '' } = {}) {
  const props = Object.entries(attrs).map(([name, value]) => {
    if (value === true) return name;
    if (typeof value === 'number' || typeof value === 'boolean') return `:${name}="${value}"`;
    if (value?.list) return `:${name}="${escapeHtml(JSON.stringify(value.list).replace(/"/g, "'"))}"`;
    return `${name}="${escapeHtml(value)}"`;
  });
  return `<${tag} id="${id}" ${props.join(' ')}${extra ? ` ${extra}` : ''}></${tag}>`;
}

/** The site's own stylesheet: a readable column, light or dark as the reader prefers. */
export const SITE_CSS = `body { margin: 0; font: 17px/1.6 Georgia, serif; color: #222; background: #fdfdfb; }
main { max-width: 760px; margin: 0 auto; padding: 1rem; }
mha-walkthrough, mha-heatmap, mha-shapes, mha-playground, mha-trainer { margin: 1.5rem 0; }
nav a { margin-right: 1em; }
@media (prefers-color-scheme: dark) {
  body { color: #dfdfd6; background: #1b1b1f; }
  a { color: #a8b1ff; }
}
`;
