// The errors and warnings of the engine as JS callers see them: data (a code, a message key, the
// field at fault, the parameters) that renders its own sentence in English or Chinese from the
// engine's message table. No DOM.
import { renderMessage } from '../text/render.js';

/** An invalid config or input. `code` is stable, `field` names the config field at fault. */
export class MhaError extends Error {
  #messages;

  /**
   * `{ code, key, field, params, message }` as the engine reports it; `messages`, the engine's
   * message table, lets the error say itself in another language.
   */
  constructor({ code, key, field, params = {}, message }, messages = null) {
    super(message);
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
 * Why the .wasm did not load, in both languages: the engine's own messages come from its table
 * (cpp/src/messages.cpp), which is inside the .wasm that failed, so these live here. `{@fix}` is
 * the entry the `fix` parameter names.
 */
export const LOAD_MESSAGES = {
  'load.bad_url': {
    en: 'The .wasm URL "{url}" is not an http(s), file or blob URL.',
    zh: '.wasm 地址 "{url}" 不是 http(s)、file 或 blob 地址。',
  },
  'load.http': {
    en: 'mha_engine.wasm is not at {url} (HTTP {status}). {@fix}',
    zh: '{url} 处没有 mha_engine.wasm（HTTP {status}）。{@fix}',
  },
  'load.network': {
    en: 'mha_engine.wasm could not be fetched from {url} ({detail}). {@fix}',
    zh: '无法从 {url} 获取 mha_engine.wasm（{detail}）。{@fix}',
  },
  'load.not_wasm': {
    en: 'What {url} sent is not a .wasm file but {type} (a server that answers every unknown path with a page does this). {@fix}',
    zh: '{url} 返回的不是 .wasm 文件，而是 {type}（对未知路径一律返回页面的服务器会这样）。{@fix}',
  },
  'load.not_wasm_file': {
    en: 'The file at {url} is not a .wasm file (it does not begin as WebAssembly does). {@fix}',
    zh: '{url} 处的文件不是 .wasm 文件（开头不是 WebAssembly 的格式）。{@fix}',
  },
  'load.compile': {
    en: 'The WebAssembly at {url} did not compile ({detail}). It must be the mha_engine.wasm of this version of mha-lens, and a Content-Security-Policy must allow \'wasm-unsafe-eval\' in script-src.',
    zh: '{url} 处的 WebAssembly 无法编译（{detail}）。它必须是本版本 mha-lens 的 mha_engine.wasm，并且内容安全策略（CSP）的 script-src 必须允许 \'wasm-unsafe-eval\'。',
  },
  'load.file': {
    en: 'mha_engine.wasm could not be read from {url} ({detail}). Pass its place as createEngine({ wasmUrl }) or its bytes as wasmBinary.',
    zh: '无法从 {url} 读取 mha_engine.wasm（{detail}）。请用 createEngine({ wasmUrl }) 给出它的位置，或用 wasmBinary 给出它的字节。',
  },
  'load.version': {
    en: 'The .wasm at {url} is of another version of mha-lens than its JS (its steps differ). Copy mha_engine.wasm (or mha_trainer.wasm) and the JS from the same build, or clear a cache that kept an old one.',
    zh: '{url} 处的 .wasm 与其 JS 不是同一版本的 mha-lens（步骤不一致）。请从同一次构建中复制 mha_engine.wasm（或 mha_trainer.wasm）和 JS，或清除保存了旧文件的缓存。',
  },
  'load.glue': {
    en: 'The trainer\'s JS, mha_trainer.mjs, did not load from {url} ({detail}). It sits beside mha_trainer.wasm: copy both from the package (mha-lens/web/dist/), or say where the .wasm is with <meta name="mha-lens:trainer-wasm-url" content="…">.',
    zh: '训练器的 JS 文件 mha_trainer.mjs 无法从 {url} 加载（{detail}）。它和 mha_trainer.wasm 放在一起：请从包里（mha-lens/web/dist/）把两者都复制过去，或者用 <meta name="mha-lens:trainer-wasm-url" content="…"> 指明 .wasm 的位置。',
  },
  'load.fix': {
    en: 'Copy it there from the package (mha-lens/web/dist/mha_engine.wasm), or say where it is: a wasm-url attribute, <meta name="mha-lens:wasm-url" content="…"> or createEngine({ wasmUrl }).',
    zh: '请把包里的 mha-lens/web/dist/mha_engine.wasm 复制到那里，或者指明它的位置：wasm-url 属性、<meta name="mha-lens:wasm-url" content="…"> 或 createEngine({ wasmUrl })。',
  },
};

/**
 * The engine's .wasm did not load. `url` is the URL tried (in the message too, with the fix);
 * `key` names the reason: load.bad_url, load.http, load.network, load.not_wasm, load.compile,
 * load.file (and load.not_wasm_file for a file that is not WebAssembly) or load.glue (the
 * trainer's mha_trainer.mjs beside its .wasm did not load).
 */
export class MhaLoadError extends Error {
  constructor(key, params, cause) {
    super(renderMessage(LOAD_MESSAGES, key, { fix: 'load.fix', ...params }, 'en'), cause === undefined ? undefined : { cause });
    this.name = 'MhaLoadError';
    this.code = 'engine_load';
    this.key = key;
    this.field = 'wasmUrl';
    this.params = params;
    this.url = params.url;
  }

  /** The message in `lang` ('en' or 'zh'). */
  messageIn(lang) {
    return renderMessage(LOAD_MESSAGES, this.key, { fix: 'load.fix', ...this.params }, lang);
  }
}
