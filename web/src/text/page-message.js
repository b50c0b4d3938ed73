// An engine error as the docs page says it. The page sets the memory cap itself and has no control
// for it, so the engine's advice "or raise memoryCap" means nothing there: for the memory cap the
// page says what to lower, in the reader's language, from the error's own data (its `lower`
// parameter is the list of sizes). Every other error is the engine's message. No DOM.
import { renderMessage } from './render.js';

/** `error` (an MhaError) in `lang` for the page; `messages` is the engine's table (engine.messages). */
export function pageErrorText(error, lang, messages) {
  const [code, kind] = String(error.key ?? '').split('.');
  if (code !== 'memory_cap' || (kind !== 'needs' && kind !== 'addressable')) return error.messageIn(lang);
  const largest = renderMessage(messages, error.params.largest, {}, lang);
  return renderMessage(messages, kind === 'needs' ? 'page.memoryCap' : 'page.memoryAddressable', { ...error.params, largest }, lang);
}
