// The errors and warnings of the engine as JS callers see them: data (a code, a message key, the
// field at fault, the parameters) that renders its own sentence in English or Chinese from the
// message table (cpp/data/messages.json). No DOM.
import { MESSAGES } from '../text/messages.js';
import { renderMessage } from '../text/render.js';

/** An invalid config or input. `code` is stable, `field` names the config field at fault. */
export class MhaError extends Error {
  #messages;

  /**
   * `{ code, key, field, params, message }` as the engine reports it; `messages`, the engine's
   * message table, lets the error say itself in another language.
   */
  constructor({ code, key, field, params = {}, message }, messages = null) {
    super(message ?? renderMessage(messages ?? MESSAGES, key ?? code, params, 'en'));
    this.name = 'MhaError';
    this.code = code;
    this.key = key ?? code;
    this.field = field;
    this.params = params;
    this.#messages = messages;
  }

  /** An error made in JS from its key: the code is the key's part before the first '.'. */
  static from({ field, key, params }, messages) {
    return new MhaError({ code: key.split('.')[0], key, field, params, message: renderMessage(messages, key, params, 'en') }, messages);
  }

  /** The message in `lang` ('en' or 'zh'). */
  messageIn(lang) {
    return this.#messages ? renderMessage(this.#messages, this.key, this.params, lang) : this.message;
  }
}

/** `object[key]`, read once; a getter that throws is named as the field it is, not rethrown raw. */
export function readKey(object, key, messages, field = String(key)) {
  try {
    return object[key];
  } catch (error) {
    throw MhaError.from({ field, key: 'bad_value.unreadable', params: { field, detail: errorText(error) } }, messages);
  }
}

// What an exception says, without throwing again (a thrown Symbol, an object whose message throws).
function errorText(error) {
  try {
    return String(error instanceof Error ? error.message : error).slice(0, 200);
  } catch {
    return '?';
  }
}

/** Something unusual about a run's result (a query whose keys are all masked, ...). */
export class MhaWarning {
  #messages;

  constructor({ key, params }, messages) {
    this.key = key;
    this.params = params;
    this.message = renderMessage(messages, key, params, 'en');
    this.#messages = messages;
  }

  /** The message in `lang` ('en' or 'zh'). */
  messageIn(lang) {
    return renderMessage(this.#messages, this.key, this.params, lang);
  }

  toString() {
    return this.message;
  }

  toJSON() {
    return this.message;
  }
}

/**
 * The engine's .wasm did not load. `url` is the URL tried (in the message too, with the fix);
 * `key` names the reason: load.bad_url, load.http, load.network, load.not_wasm, load.compile,
 * load.file (and load.not_wasm_file for a file that is not WebAssembly) or load.glue (the
 * trainer's mha_trainer.mjs beside its .wasm did not load).
 */
export class MhaLoadError extends Error {
  constructor(key, params, cause) {
    super(renderMessage(MESSAGES, key, { fix: 'load.fix', file: 'mha_engine.wasm', ...params }, 'en'), cause === undefined ? undefined : { cause });
    this.name = 'MhaLoadError';
    this.code = 'engine_load';
    this.key = key;
    this.field = 'wasmUrl';
    this.params = params;
    this.url = params.url;
  }

  /** The message in `lang` ('en' or 'zh'). */
  messageIn(lang) {
    return renderMessage(MESSAGES, this.key, { fix: 'load.fix', file: 'mha_engine.wasm', ...this.params }, lang);
  }
}
