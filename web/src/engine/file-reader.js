// How the engine reads the bytes of a file: URL, which only Node can. No `node:` import here or
// anywhere engine.js reaches, so that no browser bundle ever meets one: the package's `node`
// entry (node.js) puts fs's readFile in `fileReader.read`; engine.js imported by its path in Node
// finds fs through process.getBuiltinModule (Node 20.16 and later). No DOM.

export const fileReader = {
  /** The bytes at a file: URL (a URL object). */
  read(url) {
    const fs = globalThis.process?.getBuiltinModule?.('fs/promises');
    if (!fs) throw new Error('no file system here (a file: URL is read only in Node)');
    return fs.readFile(url);
  },
};
