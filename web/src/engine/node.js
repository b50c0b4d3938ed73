// The JS API for Node (package.json `exports["."].node`): the same module as engine.js, with the
// file system to read the .wasm from. Browsers and bundlers get engine.js itself, which holds no
// `node:` import.
import { readFile } from 'node:fs/promises';
import { fileReader } from './file-reader.js';

fileReader.read = readFile;

export * from './engine.js';
