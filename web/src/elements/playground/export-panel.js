// Export: the run's snapshots as JSON (every step's shape, axes, strides and values, and the
// config that made them, which the import panel reads back), and the embed code for this view.
import { embedSnippets } from '../../logic/page/embed-code.js';
import { snapshotJson } from '../../logic/page/snapshot-file.js';
import { download, el } from '../base/dom.js';
import { sheet } from '../base/styles.js';
import { block } from './frame.js';

export const EXPORT_STYLES = sheet(`
.exports-row { display: flex; gap: 0.5em; flex-wrap: wrap; align-items: center; }
.embed { display: flex; flex-direction: column; gap: 0.3em; }
.embed[hidden] { display: none; }
.embed textarea { width: 100%; font-family: var(--mha-mono, ui-monospace, Menlo, Consolas, monospace); font-size: 0.85em; border: 1px solid var(--line); border-radius: 6px; padding: 0.4em; background: var(--bg); color: var(--fg); }
`);

export class ExportPanel {
  #t;
  #lang;
  #view;
  #embedBase;

  /**
   * `view()` returns what is on screen: { state, config, tokens, run } (run null before the first).
   * `embedBase` is where the docs page (and its dist/) is served, for the embed code's URLs.
   */
  constructor({ t, lang, view, embedBase }) {
    this.#t = t;
    this.#lang = lang;
    this.#view = view;
    this.#embedBase = embedBase;
    const exportJson = el('button', { type: 'button', 'data-export': 'json' }, t('ctl.exportJson'));
    exportJson.addEventListener('click', () => this.#exportJson());
    const embedButton = el('button', { type: 'button', 'data-action': 'embed' }, t('embed.button'));
    const embedBox = el('div', { class: 'embed', hidden: true },
      el('label', { for: 'embed-html' }, t('embed.html')), el('textarea', { id: 'embed-html', readonly: true, rows: 4, spellcheck: 'false' }),
      el('label', { for: 'embed-iframe' }, t('embed.iframe')), el('textarea', { id: 'embed-iframe', readonly: true, rows: 3, spellcheck: 'false' }),
      el('p', { class: 'note', 'aria-live': 'polite' }));
    embedButton.addEventListener('click', () => this.#showEmbed(embedBox));
    this.section = block('export', t('export.title'), el('div', { class: 'exports-row' }, exportJson, embedButton), el('p', { class: 'note' }, t('export.note')), embedBox);
  }

  #exportJson() {
    const view = this.#view();
    if (!view.run) return;
    download(new Blob([snapshotJson(view)], { type: 'application/json' }), 'mha-lens-run.json');
  }

  async #showEmbed(box) {
    const t = this.#t;
    const { state, tokens } = this.#view();
    const base = this.#embedBase();
    const { html, iframe } = embedSnippets(state, tokens, { bundleUrl: new URL('dist/mha-lens.js', base).href, embedUrl: new URL('embed.html', base).href, lang: this.#lang });
    const [htmlBox, iframeBox] = box.querySelectorAll('textarea');
    htmlBox.value = html;
    iframeBox.value = iframe;
    box.hidden = false;
    htmlBox.select();
    const note = box.querySelector('.note');
    try {
      await navigator.clipboard.writeText(html);
      note.textContent = t('embed.copied');
    } catch {
      note.textContent = t('embed.select'); // no clipboard permission: the text is selected instead
    }
  }
}
