// An engine error as the docs page says it. The page sets the memory cap itself and has no control
// for it, so the engine's advice "or raise memoryCap" means nothing there: for the memory cap the
// page says what to lower, in the reader's language, from the error's own data. Every other error
// is the engine's message. No DOM.
import { renderMessage } from './render.js';
import { translator } from './translate.js';

/** `error` (an MhaError) in `lang` for the page; `messages` is the engine's table (engine.messages). */
export function pageErrorText(error, lang, messages) {
  const [code, kind] = String(error.key ?? '').split('.');
  if (code !== 'memory_cap' || (kind !== 'needs' && kind !== 'addressable')) return error.messageIn(lang);
  const t = translator(lang);
  // The fields to lower, as the engine lists them ("C", "B, T, Tk or H"), joined in `lang`.
  const fields = String(error.params.lower ?? '').split(/, | or /).filter(Boolean);
  const lower = fields.length > 1 ? t('page.listOr', { list: fields.slice(0, -1).join(t('page.listSeparator')), last: fields.at(-1) }) : fields[0] ?? '';
  const largest = renderMessage(messages, error.params.largest, {}, lang);
  return t(kind === 'needs' ? 'page.memoryCap' : 'page.memoryAddressable', { ...error.params, largest, lower });
}
