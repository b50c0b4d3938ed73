// A widget's probe (browser.js) against what pages.js says it must draw: the list of what differs,
// each naming the attribute whose effect is missing, empty when it all holds.
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const show = (value) => JSON.stringify(value);

/** What is wrong with `got` (a probe) for `widget` ({ id, tag, attrs, expect }): a list of sentences. */
export function mismatches(widget, got) {
  const { expect, attrs } = widget;
  if (!got?.exists) return ['not on the page'];
  if (!got.defined) return [`<${widget.tag}> is not defined (no script defined it)`];
  if (got.error) return [`shows an error: ${got.error}`];
  const wrong = [];
  const thrown = (field) => (got[field]?.thrown ? `reading ${field} threw: ${got[field].thrown}` : null);
  for (const field of ['summary', 'stepId', 'scale', 'tokens', 'task', 'options']) if (thrown(field)) wrong.push(thrown(field));
  if (wrong.length) return wrong;
  if (expect.summary) {
    if (!got.summary) wrong.push(`no run (still ${got.loading ? 'loading' : 'empty'})`);
    else {
      for (const [key, value] of Object.entries(expect.summary)) {
        if (!same(got.summary[key], value)) wrong.push(`${key}=${show(got.summary[key])}, want ${show(value)}${hint(key, attrs)}`);
      }
    }
  }
  if (expect.firstShape && got.summary && !same(got.firstShape, expect.firstShape)) wrong.push(`first step's shape ${show(got.firstShape)}, want ${show(expect.firstShape)}`);
  if (expect.stepId && got.stepId !== expect.stepId) wrong.push(`step ${show(got.stepId)}, want ${show(expect.stepId)} (attribute step)`);
  if (expect.steps && got.summary && !same(got.steps, expect.steps)) wrong.push(`steps listed ${show(got.steps)}, want ${show(expect.steps)}${attrs.from ? ' (attributes from, to)' : ''}`);
  if (expect.panels && got.summary && !same(got.panels, expect.panels)) wrong.push(`panels [b,h] ${show(got.panels)}, want ${show(expect.panels)}${panelHint(attrs)}`);
  if (expect.current && got.summary && !same(got.current, expect.current)) wrong.push(`selected panel ${show(got.current)}, want ${show(expect.current)} (attributes batch, head)`);
  if (expect.scale && got.scale !== expect.scale) wrong.push(`scale ${show(got.scale)}, want ${show(expect.scale)} (attribute scale)`);
  if (expect.cellSize && got.summary && !(Math.abs((got.cellSize ?? 0) - expect.cellSize) <= 1)) wrong.push(`cells ${got.cellSize?.toFixed(1)} px, want ${expect.cellSize} (attribute cell-size)`);
  if (expect.labelLength && got.summary) {
    const tokens = String(attrs.tokens?.list?.join(' ') ?? attrs.tokens ?? '').split(/\s+/);
    const long = got.labels.filter((label) => [...label].length > expect.labelLength);
    if (long.length) wrong.push(`labels longer than ${expect.labelLength} characters: ${show([...new Set(long)])} (attribute label-length)`);
    else if (!tokens.some((token) => got.labels.some((label) => label.length && token.startsWith(label.replace(/…$/, ''))))) wrong.push(`no token labels drawn: ${show(got.labels.slice(0, 8))}`);
  }
  if (expect.lang === 'zh' && got.summary && !/[\u4e00-\u9fff]/.test(got.title ?? '')) wrong.push(`title ${show(got.title)} is not Chinese (attribute lang)`);
  if (expect.controls === false && got.summary && got.controlsShown) wrong.push('controls shown (attribute controls="none")');
  if (expect.ownBackground === 'dark' && got.summary && !isDark(got.background)) wrong.push(`background ${got.background}, want the dark theme's own (attribute theme="dark")`);
  if (expect.tokens !== undefined && got.tokens !== expect.tokens) wrong.push(`tokens ${show(got.tokens)}, want ${expect.tokens} words (attribute tokens)`);
  if (expect.task && got.task !== expect.task) wrong.push(`task ${show(got.task)}, want ${show(expect.task)} (attribute task)`);
  if (expect.options && got.options) {
    for (const [key, value] of Object.entries(expect.options)) if (!same(got.options[key], value)) wrong.push(`option ${key}=${show(got.options[key])}, want ${show(value)} (attribute ${key})`);
  }
  return wrong;
}

// The attribute each summary field comes from, for the message.
const SOURCES = { B: 'b; or one sentence of tokens', T: 't; or the number of tokens', Tk: 'tk', C: 'c', H: 'h', Hkv: 'hkv', mask: 'mask', bias: 'bias', keyLengths: 'key-lengths' };
function hint(key, attrs) {
  const from = attrs.for ? `, from the followed #${attrs.for}` : '';
  return SOURCES[key] ? ` (attribute ${SOURCES[key]}${from})` : '';
}
const panelHint = (attrs) => (attrs.only ? ' (attributes only, batch, head)' : attrs.average ? ' (attribute average)' : ' (B × H panels)');

function isDark(colour) {
  const m = String(colour).match(/rgba?\(([^)]+)\)/);
  if (!m) return false;
  const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
  return a > 0.5 && (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 < 0.35;
}
