// Import config (JSON): a file or pasted text, an exported snapshot or a plain config. What is
// refused — by logic/page/config-import.js (size, depth, prototype keys, types) or by the engine's own
// validation — gets its message here, in the reader's language, and changes nothing.
import { ImportError, checkImportSize, importConfig } from '../../logic/page/config-import.js';
import { el } from '../base/dom.js';
import { sheet } from '../base/styles.js';

export const IMPORT_STYLES = sheet(`
.import { margin-top: 0.6em; }
.import-body { display: flex; flex-direction: column; gap: 0.35em; margin-top: 0.4em; }
.import-body input[type="file"] { max-width: 100%; }
.import-body textarea { width: 100%; font-family: var(--mha-mono, ui-monospace, Menlo, Consolas, monospace); font-size: 0.85em; border: 1px solid var(--line); border-radius: 6px; padding: 0.4em; background: var(--bg); color: var(--fg); }
.import-body button { align-self: flex-start; }
.import-body code { overflow-wrap: anywhere; }
`);

export class ImportPanel {
  #t;
  #lang;
  #apply;
  #error;
  #status;

  /**
   * `apply(imported)` takes the imported config state: it throws the engine's MhaError if the
   * engine refuses it, and returns false if there is no engine yet.
   */
  constructor({ t, lang, apply }) {
    this.#t = t;
    this.#lang = lang;
    this.#apply = apply;
    const file = el('input', { type: 'file', id: 'import-file', accept: '.json,application/json', 'aria-describedby': 'error-import import-hint' });
    const paste = el('textarea', { id: 'import-text', rows: 3, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'error-import import-hint' });
    const button = el('button', { type: 'button', 'data-action': 'import' }, t('import.button'));
    file.addEventListener('change', async () => {
      const chosen = file.files?.[0];
      if (!chosen) return;
      let text;
      try {
        checkImportSize(chosen.size); // refused before a byte is read
        text = await chosen.text();
      } catch (error) {
        this.#refused(error instanceof ImportError ? error : new ImportError('unreadable', { detail: error.message }));
        return;
      } finally {
        file.value = ''; // the same file can be chosen again
      }
      this.#import(text);
    });
    button.addEventListener('click', () => this.#import(paste.value));
    this.#error = el('p', { class: 'error', id: 'error-import', role: 'alert' });
    this.#status = el('p', { class: 'note import-status', 'aria-live': 'polite' });
    this.element = el('details', { class: 'import' }, el('summary', {}, t('import.title')),
      el('div', { class: 'import-body' },
        el('p', { class: 'note', id: 'import-hint' }, t('import.hint'), ' ', el('code', {}, t('import.example')), ' ', t('import.only')),
        el('label', { for: 'import-file' }, t('import.file')), file,
        el('label', { for: 'import-text' }, t('import.paste')), paste, button,
        this.#error, this.#status));
  }

  #import(text) {
    let imported;
    try {
      imported = importConfig(text);
      if (!this.#apply(imported)) return;
    } catch (error) {
      if (typeof error?.messageIn !== 'function') throw error; // a bug, not a refusal
      this.#refused(error);
      return;
    }
    this.#status.textContent = this.#t('import.done');
  }

  // An import refused (ImportError) or the engine's own error (MhaError): each says itself.
  #refused(error) {
    this.#status.textContent = '';
    this.#error.textContent = `${this.#t('import.refused')} ${error.messageIn(this.#lang)}`;
  }
}
