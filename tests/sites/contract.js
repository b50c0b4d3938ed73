// The contract a framework relies on (React 19 and Vue set a custom element's *properties* when
// the element has them): every observed attribute of every element has a same-named property
// that accepts what a framework passes, the attribute's text or the natural JS value, never throws
// on assignment, and has the attribute's effect. Checked in the page, element against twin: one
// given the attribute, one the property (set before it is connected, as React and Vue do), both
// read back once they have drawn. The observed attributes are read from the elements themselves,
// so an attribute added later is covered without a change here.

/** For each attribute: [text as an attribute takes it, the value a framework passes]. */
export const SAMPLES = {
  b: ['1', 1], t: ['3', 3], tk: ['5', 5], c: ['12', 12], h: ['4', 4], hkv: ['1', 1],
  mask: ['causal', 'causal'], 'key-lengths': ['3 2', [3, 2]], bias: ['false', false], seed: ['7', 7],
  tokens: ['the cat sat on the mat', ['the', 'cat', 'sat', 'on', 'the', 'mat']],
  lang: ['zh', 'zh'], theme: ['dark', 'dark'], controls: ['none', 'none'],
  step: ['scores', 'scores'], from: ['q', 'q'], to: ['v_heads', 'v_heads'], current: ['scores', 'scores'],
  batch: ['1', 1], head: ['1', 1], only: ['', true], pinned: ['', true], scale: ['head', 'head'], average: ['', true],
  'cell-size': ['20', 20], 'label-length': ['3', 3], 'trained-href': ['#trained', '#trained'], src: ['attention.json', 'attention.json'],
  'embed-base': ['https://example.org/mha-lens/', 'https://example.org/mha-lens/'],
  // <mha-trainer>
  task: ['previous', 'previous'], layers: ['2', 2], heads: ['2', 2], lr: ['0.01', 0.01], dropout: ['0.1', 0.1],
  probe: ['3 1 4 1 5', [3, 1, 4, 1, 5]], trained: ['', true], compare: ['', true], worker: ['none', 'none'],
};

/**
 * Runs in the page (the widgets defined): for each element and each observed attribute, the twin
 * comparison. Returns [{ tag, attribute, problems: [sentences] }].
 */
export function runContract(page, { wasmUrl }) {
  return page.evaluate(async ({ samples, wasmUrl }) => {
    const tags = ['mha-walkthrough', 'mha-heatmap', 'mha-shapes', 'mha-playground', 'mha-trainer'];
    const main = document.getElementById('main');
    // The base config every twin shares (a config attribute under test overrides it).
    const BASE = { 'mha-walkthrough': { c: '8', h: '2' }, 'mha-heatmap': { b: '2', t: '3', c: '8', h: '2' }, 'mha-shapes': { c: '8', h: '2' }, 'mha-playground': { c: '8', h: '2' }, 'mha-trainer': { task: 'reverse' } };
    const source = document.createElement('mha-walkthrough');
    source.id = 'contract-source';
    source.setAttribute('c', '12');
    source.setAttribute('h', '3');
    source.setAttribute('tokens', 'one two three four five');
    main.append(source);
    const sampleOf = (name) => (name === 'wasm-url' ? [wasmUrl, wasmUrl] : name === 'for' ? ['contract-source', 'contract-source'] : samples[name]);
    // A trainer reads its options when it connects: no need to wait for its model.
    const settledEl = (el) => el.shadowRoot?.querySelector('.element-error') || (el.localName === 'mha-trainer' ? true : el.run);
    const fingerprint = (el) => {
      const root = el.shadowRoot;
      const read = (fn) => { try { return fn(); } catch (error) { return `threw: ${error.message}`; } };
      return JSON.stringify({
        summary: read(() => el.run?.summary ?? null),
        stepId: read(() => el.stepId ?? null),
        batch: read(() => (el.localName === 'mha-heatmap' ? el.batch : null)),
        head: read(() => (el.localName === 'mha-heatmap' ? el.head : null)),
        scale: read(() => el.scale ?? null),
        options: read(() => (el.localName === 'mha-trainer' ? el.options : null)),
        compare: read(() => (el.localName === 'mha-trainer' ? el.compare : null)),
        state: read(() => (el.localName === 'mha-playground' ? el.state : null)),
        error: root?.querySelector('.element-error')?.textContent ?? null,
        text: el.localName === 'mha-trainer' ? null : (root?.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 4000),
        background: getComputedStyle(el).backgroundColor,
        color: root?.querySelector('h3, figcaption, .id, p') ? getComputedStyle(root.querySelector('h3, figcaption, .id, p')).color : null,
      });
    };
    const results = [];
    const waitAll = async (els, ms = 20000) => {
      const until = performance.now() + ms;
      while (performance.now() < until && !els.every(settledEl)) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50)));
    };
    await waitAll([source]);
    for (const tag of tags) {
      const Element = customElements.get(tag);
      if (!Element) { results.push({ tag, attribute: '*', problems: [`<${tag}> is not defined`] }); continue; }
      const observed = [...(Element.observedAttributes ?? [])];
      // Twins in batches: an element per attribute and per way of setting it.
      const pairs = [];
      for (const attribute of observed) {
        const sample = sampleOf(attribute);
        if (!sample) { results.push({ tag, attribute, problems: [`no sample value for ${attribute} in tests/sites/contract.js`] }); continue; }
        const [text, value] = sample;
        const base = { ...BASE[tag] };
        if (attribute === 'tokens' || attribute === 't' || attribute === 'for') { delete base.t; delete base.b; }
        if (attribute === 'probe') base.task = 'reverse';
        const problems = [];
        const byAttribute = document.createElement(tag);
        for (const [name, v] of Object.entries(base)) byAttribute.setAttribute(name, v);
        byAttribute.setAttribute(attribute, text);
        const byProperty = document.createElement(tag);
        for (const [name, v] of Object.entries(base)) byProperty.setAttribute(name, v);
        // The property a framework sets: the attribute's name, camelCased (key-lengths → keyLengths),
        // as Vue looks it up and as custom elements name theirs; `lang` is HTMLElement's own.
        const property = attribute.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
        const descriptor = (() => { for (let p = Object.getPrototypeOf(byProperty); p; p = Object.getPrototypeOf(p)) { const d = Object.getOwnPropertyDescriptor(p, property); if (d) return d; } return null; })();
        if (!descriptor) problems.push(`no property "${property}": React 19 and Vue then set the attribute only while the element is not yet defined`);
        else if (descriptor.get && !descriptor.set) problems.push(`property "${property}" is getter-only: React 19 throws, Vue drops the value`);
        for (const [label, v] of [['text', text], ['JS value', value]]) {
          const probe = document.createElement(tag);
          try { probe[property] = v; } catch (error) { problems.push(`el.${property} = ${JSON.stringify(v)} (${label}) threw: ${error.message}`); }
        }
        try { byProperty[property] = value; } catch { /* reported above */ }
        pairs.push({ attribute, property, value, byAttribute, byProperty, problems });
      }
      // The trainer and the playground are heavy: a few at a time.
      const batch = tag === 'mha-playground' ? 6 : tag === 'mha-trainer' ? 8 : 16;
      for (let i = 0; i < pairs.length; i += batch) {
        const group = pairs.slice(i, i + batch);
        for (const { byAttribute, byProperty } of group) main.append(byAttribute, byProperty);
        await waitAll(group.flatMap((p) => [p.byAttribute, p.byProperty]));
        // A playground draws its panels over several frames (idle time, on a busy machine seconds
        // later): a difference must outlast them.
        let prints = group.map(({ byAttribute, byProperty }) => [fingerprint(byAttribute), fingerprint(byProperty)]);
        for (let retry = 0; retry < 5 && prints.some(([a, p]) => a !== p); retry++) {
          await new Promise((r) => setTimeout(r, 1000));
          prints = group.map(({ byAttribute, byProperty }) => [fingerprint(byAttribute), fingerprint(byProperty)]);
        }
        for (const [index, { attribute, property, value, byAttribute, byProperty, problems }] of group.entries()) {
          const [a, p] = prints[index];
          if (a !== p) {
            const [fa, fp] = [JSON.parse(a), JSON.parse(p)];
            const differ = Object.keys(fa).filter((k) => JSON.stringify(fa[k]) !== JSON.stringify(fp[k]));
            problems.push(`the property's effect differs from the attribute's in ${differ.map((k) => `${k} (attribute: ${JSON.stringify(fa[k])?.slice(0, 120)}; property: ${JSON.stringify(fp[k])?.slice(0, 120)})`).join('; ')}`);
          }
          // After it has drawn too: a framework updates a prop on a live element.
          try { byProperty[property] = value; } catch (error) { problems.push(`setting ${property} again on the live element threw: ${error.message}`); }
          results.push({ tag, attribute, problems });
          byAttribute.remove();
          byProperty.remove();
        }
      }
    }
    source.remove();
    return results;
  }, { samples: SAMPLES, wasmUrl });
}
