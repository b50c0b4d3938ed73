// An error of the page itself, not the engine's (an element's `for` names no element, the engine
// did not load, an import is refused): data like MhaError — a code, the field at fault, the key of
// its message (the page's part of cpp/data/messages.json) and its parameters — that says itself in
// either language, so every place that shows an error shows `error.messageIn(lang)`. No DOM.
import { MESSAGES } from './messages.js';
import { renderMessage } from './render.js';

export class PageError extends Error {
  /**
   * `cause`, another error that says itself (an MhaError, a PageError) or any Error, fills the
   * `{detail}` slot in the reader's language.
   */
  constructor({ code, field, key, params = {}, cause }) {
    super('', cause === undefined ? undefined : { cause });
    this.name = 'PageError';
    this.code = code;
    this.field = field;
    this.key = key;
    this.params = params;
    this.message = this.messageIn('en');
  }

  /** The message in `lang` ('en' or 'zh'). */
  messageIn(lang) {
    const { cause } = this;
    const detail = typeof cause?.messageIn === 'function' ? cause.messageIn(lang) : cause?.message;
    return renderMessage(MESSAGES, this.key, detail === undefined ? this.params : { ...this.params, detail }, lang);
  }
}
