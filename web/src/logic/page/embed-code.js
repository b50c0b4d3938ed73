// The "copy embed code" snippets for the current view: one script tag and element tags (a
// walkthrough and a heatmap that follows it), or an iframe of the same two (embed.html) with the
// line of script that sizes it to its content; and what the iframe page reads from its URL.
// Every value is escaped for an HTML attribute: tokens are the reader's own text. No DOM.
import { DEFAULT_STATE } from './page-state.js';
import { CONFIG_ATTRIBUTES, CONFIG_FIELDS } from '../config-input.js';
import { heatmapHeight, walkthroughHeight } from './reserve.js';

const escapeAttribute = (text) => String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// T follows the tokens, and bias is written only when it is off.
const FIELDS = CONFIG_FIELDS.filter(({ field }) => !['T', 'tokens', 'bias'].includes(field));

/** Config attributes for a page state, as [name, value] pairs (defaults left out except b, c, h). */
export function configAttributes(state, tokens) {
  const pairs = [['tokens', tokens.join(' ')]];
  for (const { field, attribute } of FIELDS) {
    const value = state[field];
    if (value === null || value === undefined || value === '') continue;
    if (!['B', 'C', 'H'].includes(field) && value === DEFAULT_STATE[field]) continue;
    pairs.push([attribute, value]);
  }
  if (state.bias === false) pairs.push(['bias', 'false']);
  return pairs;
}

const attributesText = (pairs) => pairs.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');

/** The message the iframe route posts to its parent with its content height (embed.js). */
export const HEIGHT_MESSAGE = 'mha-lens:height';

/**
 * The host's half of a self-sizing frame: one line of script that sets the height of the iframe a
 * message comes from (and no other) to the content height it posts.
 */
export const SIZING_SCRIPT = `<script>addEventListener('message',(e)=>{const f=[...document.querySelectorAll('iframe')].find((f)=>f.contentWindow===e.source);if(f&&e.data&&e.data.type==='${HEIGHT_MESSAGE}')f.height=Math.ceil(Number(e.data.height))||f.height})</script>`;

// The frame's first height, before it reports its own: the walkthrough and its heatmap in a
// 680 px blog column, with the iframe page's padding.
function firstHeight(state, tokens) {
  const config = { B: Number(state.B) || 2, T: tokens.length || 4, C: Number(state.C) || 8, H: Number(state.H) || 2, Hkv: Number(state.Hkv) || undefined, Tk: Number(state.Tk) || undefined };
  const input = { config, tokens, width: 664, em: 15 };
  return Math.round(walkthroughHeight(input) + heatmapHeight({ ...input, attributes: { only: state.only } }) + 16);
}

/**
 * { html, iframe } for the view: `bundleUrl` is where mha-lens.js is served, `embedUrl` the
 * iframe page (embed.html). The iframe snippet is two lines: the frame (a walkthrough and the
 * heatmap that follows it, as in the script version) and the script that sizes it to its content.
 */
export function embedSnippets(state, tokens, { bundleUrl, embedUrl, lang }) {
  const config = configAttributes(state, tokens);
  const langPair = lang ? [['lang', lang]] : [];
  const view = [['view', state.view ?? 'weights'], ['batch', state.batch ?? 0], ['head', state.head ?? 0]];
  const html = [
    // blocking="render": the elements reserve their space before the page is first painted.
    `<script type="module" src="${escapeAttribute(bundleUrl)}" blocking="render"></script>`,
    `<mha-walkthrough id="mha-walkthrough"${attributesText([...config, ...langPair])}></mha-walkthrough>`,
    `<mha-heatmap for="mha-walkthrough"${attributesText([['step', state.view ?? 'weights'], ['batch', state.batch ?? 0], ['head', state.head ?? 0], ...langPair])}></mha-heatmap>`,
  ].join('\n');
  const params = new URLSearchParams([['el', 'walkthrough,heatmap'], ...config.map(([k, v]) => [k, String(v)]), ...view.map(([k, v]) => [k, String(v)]), ...langPair]);
  const frame = `<iframe src="${escapeAttribute(`${embedUrl}?${params}`)}" title="mha-lens" width="100%" height="${firstHeight(state, tokens)}" loading="lazy"></iframe>`;
  return { html, iframe: `${frame}\n${SIZING_SCRIPT}` };
}

/** Elements an iframe page may show, and the attributes it may set on them (anything else in its URL is ignored). */
export const EMBED_ELEMENTS = ['walkthrough', 'heatmap', 'shapes', 'playground', 'trainer'];
// <mha-trainer> runs no config: it takes its own options (and `trained` opens its checkpoint).
const TRAINER_ATTRIBUTES = ['task', 'layers', 'heads', 'lr', 'dropout', 'seed', 'probe', 'trained', 'compare', 'worker'];
const SHARED = ['lang', 'theme', 'controls'];
export const EMBED_ATTRIBUTES = [...CONFIG_ATTRIBUTES, ...SHARED, 'step', 'from', 'to', 'batch', 'head', 'only'];
// What each element takes from the URL when it runs the URL's config.
const OWN = { walkthrough: ['step', 'from', 'to'], heatmap: ['step', 'batch', 'head', 'only'], shapes: [], playground: [] };
// A heatmap that follows a walkthrough in the same frame: its step is the URL's `view`.
const FOLLOWER = { view: 'step', batch: 'batch', head: 'head', only: 'only' };
const FRAME_ID = 'mha-frame-first';

/**
 * The elements an iframe URL asks for: `el` names one (walkthrough, heatmap, shapes, playground,
 * trainer; default walkthrough) or several separated by commas, of which the first runs the URL's
 * config and the others follow it (a walkthrough and its heatmap: el=walkthrough,heatmap, the
 * heatmap's step as `view`); a trainer takes its own options (el=trainer&task=induction&trained).
 * Returns [{ tag, attributes: [[name, value]] }].
 */
export function embedRequest(search) {
  const params = new URLSearchParams(search);
  const names = (params.get('el') ?? '').split(',').map((name) => name.trim()).filter((name) => EMBED_ELEMENTS.includes(name)).slice(0, 4);
  if (names.length === 0) names.push('walkthrough');
  const given = (list) => list.filter((a) => params.has(a)).map((a) => [a, params.get(a)]);
  return names.map((name, i) => {
    if (name === 'trainer') return { tag: 'mha-trainer', attributes: given([...TRAINER_ATTRIBUTES, ...SHARED]) };
    if (i === 0) {
      const attributes = given(EMBED_ATTRIBUTES.filter((a) => !['step', 'from', 'to', 'batch', 'head', 'only'].includes(a) || OWN[name].includes(a)));
      if (name === 'heatmap' && !params.has('step') && params.has('view')) attributes.push(['step', params.get('view')]);
      if (names.length > 1) attributes.unshift(['id', FRAME_ID]);
      return { tag: `mha-${name}`, attributes };
    }
    const follows = [['for', FRAME_ID], ...given(SHARED)];
    if (name === 'heatmap') for (const [from, to] of Object.entries(FOLLOWER)) if (params.has(from)) follows.push([to, params.get(from)]);
    return { tag: `mha-${name}`, attributes: follows };
  });
}
