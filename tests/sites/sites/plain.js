// Sites with hand-written HTML pages and one script that imports the widgets, as the README's
// "Using a bundler" section has an author build them: webpack 5 (production, its default classic
// script output, nothing configured for the .wasm), esbuild (an ES module bundle, with the files
// the README says to copy beside it), and Vite's dev server on Vite 5, 6 and 8 (nothing
// configured). The pages are light or dark as the reader's system prefers.
import { ENTRIES, ESBUILD_COPIES, VITE_DEV_CONFIG } from '../entries.js';
import { PAGES, PAGE_NAMES, SITE_CSS, htmlBody } from '../pages.js';

const html = (page, script) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${PAGES[page].title}</title>
    <link rel="stylesheet" href="site.css" />
    ${script}
  </head>
  <body>
    <main>
${htmlBody(page)}
    </main>
  </body>
</html>
`;

const main = ({ entries, stylesheet }) => `import '${entries.widgets}';\n${stylesheet ? `import '${stylesheet}';\n` : ''}`;
const pages = (folder, script) => Object.fromEntries(PAGE_NAMES.map((page) => [`${folder}${page}.html`, html(page, script)]));
const paths = { lesson: '/lesson.html', trainer: '/trainer.html', playground: '/playground.html' };

export const webpack = {
  packages: { webpack: '5.113.0', 'webpack-cli': '6.0.1' },
  files: (context) => ({
    'webpack.config.js': `import { fileURLToPath } from 'node:url';

export default {
  mode: 'production',
  entry: './src/main.js',
  output: { path: fileURLToPath(new URL('./public', import.meta.url)), filename: 'main.js' },
};
`,
    // A stylesheet import needs a loader in webpack; an author without one links the file instead.
    'src/main.js': `import '${context.entries.widgets}';\n`,
    'public/site.css': SITE_CSS,
    ...pages('public/', `${context.stylesheetFile ? `<link rel="stylesheet" href="${context.stylesheetFile}" />\n    ` : ''}<script defer src="main.js"></script>`),
  }),
  build: { steps: [{ label: 'webpack', command: ['npx', 'webpack'], required: true, warnings: true }], out: 'public' },
  copyStylesheet: true,
  paths,
};

export const esbuild = {
  packages: { esbuild: '0.25.12' },
  files: (context) => ({
    'src/main.js': `import '${context.entries.widgets}';\n`,
    'public/site.css': SITE_CSS,
    ...pages('public/', `${context.stylesheetFile ? `<link rel="stylesheet" href="${context.stylesheetFile}" />\n    ` : ''}<script type="module" src="main.js"></script>`),
    // The attribute/property contract runs on this page (contract.js): the widgets and a precomputed file.
    'public/properties.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>properties</title><script type="module" src="main.js"></script></head><body><main id="main"></main></body></html>\n`,
  }),
  build: {
    steps: [
      { label: 'esbuild --bundle --format=esm', command: ['npx', 'esbuild', 'src/main.js', '--bundle', '--format=esm', '--outdir=public'], required: true, warnings: true },
      { label: `copy ${ESBUILD_COPIES.join(', ')} beside the bundle`, copy: ESBUILD_COPIES.map((file) => [`node_modules/mha-lens/web/dist/${file}`, `public/${file}`]), required: true },
      { label: 'copy the example attention file', copy: [['node_modules/mha-lens/web/examples/attention.json', 'public/attention.json']] },
    ],
    out: 'public',
  },
  copyStylesheet: true,
  paths,
  contract: '/properties.html',
};

// Vite's dev server, nothing configured: the README's "Vite: nothing to configure".
const viteDev = (version) => ({
  packages: { vite: version },
  files: (context) => ({
    ...(VITE_DEV_CONFIG ? { 'vite.config.js': `import { defineConfig } from 'vite';\n\nexport default defineConfig(${VITE_DEV_CONFIG});\n` } : {}),
    'main.js': main(context),
    'site.css': SITE_CSS,
    ...pages('', '<script type="module" src="/main.js"></script>'),
  }),
  dev: { command: (port) => ['npx', 'vite', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], ready: /Local:\s+http/ },
  paths,
});

export const vite5 = viteDev('5.4.21');
export const vite6 = viteDev('6.4.6');
export const vite8 = viteDev('8.3.8');
export { ENTRIES };
