// The "copy embed code" snippets for the current view: one script tag and element tags (a
// walkthrough and a heatmap that follows it), or an iframe for hosts that cannot run scripts.
// Every value is escaped for an HTML attribute: tokens are the reader's own text. No DOM.
import { DEFAULT_STATE } from './page-state.js';
import { CONFIG_ATTRIBUTES, CONFIG_FIELDS } from '../model/config-input.js';

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

/**
 * { html, iframe } for the view: `bundleUrl` is where mha-lens.js is served, `embedUrl` the
 * iframe page (embed.html).
 */
export function embedSnippets(state, tokens, { bundleUrl, embedUrl, lang }) {
  const config = configAttributes(state, tokens);
  const langPair = lang ? [['lang', lang]] : [];
  const html = [
    `<script type="module" src="${escapeAttribute(bundleUrl)}"></script>`,
    `<mha-walkthrough id="mha-walkthrough"${attributesText([...config, ...langPair])}></mha-walkthrough>`,
    `<mha-heatmap for="mha-walkthrough"${attributesText([['step', state.view ?? 'weights'], ['batch', state.batch ?? 0], ['head', state.head ?? 0], ...langPair])}></mha-heatmap>`,
  ].join('\n');
  const params = new URLSearchParams([['el', 'playground'], ...config.map(([k, v]) => [k, String(v)]), ...langPair]);
  const iframe = `<iframe src="${escapeAttribute(`${embedUrl}?${params}`)}" title="mha-lens" width="100%" height="900" loading="lazy"></iframe>`;
  return { html, iframe };
}

/** Attributes an iframe page may set on its element (anything else in its URL is ignored). */
export const EMBED_ELEMENTS = ['walkthrough', 'heatmap', 'shapes', 'playground'];
export const EMBED_ATTRIBUTES = [...CONFIG_ATTRIBUTES, 'lang', 'step', 'from', 'to', 'batch', 'head', 'only', 'theme'];

/** The element and attributes an iframe URL asks for. */
export function embedRequest(search) {
  const params = new URLSearchParams(search);
  const name = EMBED_ELEMENTS.includes(params.get('el')) ? params.get('el') : 'walkthrough';
  const attributes = EMBED_ATTRIBUTES.filter((a) => params.has(a)).map((a) => [a, params.get(a)]);
  return { tag: `mha-${name}`, attributes };
}
