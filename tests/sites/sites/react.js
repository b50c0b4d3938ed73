// A Vite + React 19 + TypeScript (strict) app as its author writes one, in two idioms: the plain
// elements in JSX typed by 'mha-lens/react' (`onmha-step` props), and the React components
// 'mha-lens/react' exports (MhaWalkthrough, … with onMhaStep props). Each page renders with
// createRoot; the components' lesson also with hydrateRoot over markup that react-dom/server
// rendered (the "-ssr" page), as a prerendered React site does. The author's code must pass
// `tsc --noEmit` with strict on.
import { REACT_COMPONENTS, reactEventProp, reactProp } from '../entries.js';
import { PAGES, PAGE_NAMES, SITE_CSS, jsxWidget } from '../pages.js';

export const packages = {
  react: '19.3.1',
  'react-dom': '19.3.1',
  vite: '8.3.8',
  '@vitejs/plugin-react': '5.2.0',
  typescript: '5.9.3',
  '@types/react': '19.3.3',
  '@types/react-dom': '19.3.0',
};

const component = (page) => page[0].toUpperCase() + page.slice(1);

// The events a page listens to, shown in the page (the checks read them back).
const LISTENERS = {
  walk: { 'mha-step': 'setStep(event.detail.step)', 'mha-run': 'setT(event.detail.run.summary.T)' },
  follow: { 'mha-select': 'setSelected(`${event.detail.batch},${event.detail.head}`)' },
};

function pageSource(page, idiom, { entries }) {
  const used = [...new Set(PAGES[page].blocks.filter((b) => b.tag).map((b) => b.tag))];
  const imports = idiom === 'components'
    ? `import { ${used.map((tag) => REACT_COMPONENTS[tag]).join(', ')} } from '${entries.react}';`
    : `import '${entries.react}';`;
  const body = PAGES[page].blocks.map((block) => {
    if (block.p) return `      <p>${block.p}</p>`;
    const listeners = Object.entries(LISTENERS[block.id] ?? {});
    if (idiom === 'components') {
      const extra = listeners.map(([event, code]) => `${reactEventProp(event)}={(event) => ${code}}`).join(' ');
      return `      ${jsxWidget(block, REACT_COMPONENTS[block.tag], { prop: reactProp, lists: true, extra })}`;
    }
    const extra = listeners.map(([event, code]) => `on${event}={(event) => ${code}}`).join(' ');
    return `      ${jsxWidget(block, block.tag, { extra })}`;
  });
  const listens = page === 'lesson';
  return `${listens ? "import { useState } from 'react';\n" : ''}${imports}

export function ${component(page)}() {
${listens ? "  const [step, setStep] = useState('');\n  const [t, setT] = useState(0);\n  const [selected, setSelected] = useState('');\n" : ''}  return (
    <main>
      <h1>${PAGES[page].title}</h1>
${body.join('\n')}
${listens ? '      <p>Step <output id="step-out">{step}</output>, T = <output id="run-out">{t}</output>, head <output id="select-out">{selected}</output></p>\n' : ''}    </main>
  );
}
`;
}

function app(idiom, context) {
  const files = {};
  const dir = idiom;
  const pageImports = PAGE_NAMES.map((page) => `import { ${component(page)} } from './${component(page)}';`).join('\n');
  const pageTable = `const pages = { ${PAGE_NAMES.map((page) => `${page}: ${component(page)}`).join(', ')} };`;
  files[`${dir}/vite.config.ts`] = `import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  build: {
    rollupOptions: { input: { ${PAGE_NAMES.map((page) => `${page}: '${page}.html'`).join(', ')} } },
  },
});
`;
  files[`${dir}/tsconfig.json`] = `${JSON.stringify({
    compilerOptions: {
      target: 'ES2022', lib: ['ES2022', 'DOM', 'DOM.Iterable'], module: 'ESNext', moduleResolution: 'bundler', jsx: 'react-jsx',
      strict: true, noEmit: true, skipLibCheck: true, isolatedModules: true, allowImportingTsExtensions: false, types: [],
    },
    include: ['src'],
  }, null, 2)}\n`;
  files[`${dir}/src/site.css`] = SITE_CSS;
  files[`${dir}/src/main.tsx`] = `import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
${context.stylesheet ? `import '${context.stylesheet}';\n` : ''}import './site.css';
${pageImports}

${pageTable}
const Page = pages[(document.body.dataset.page ?? 'lesson') as keyof typeof pages];
const container = document.getElementById('root')!;
const app = <StrictMode><Page /></StrictMode>;
if (container.hasChildNodes()) hydrateRoot(container, app);
else createRoot(container).render(app);
`;
  files[`${dir}/src/server.tsx`] = `import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
${pageImports}

${pageTable}
export const render = (page: keyof typeof pages) => {
  const Page = pages[page];
  return renderToString(<StrictMode><Page /></StrictMode>);
};
`;
  // The author's prerender step: the lesson's HTML from the server build, hydrated in the browser.
  files[`${dir}/prerender.mjs`] = `import { readFile, writeFile } from 'node:fs/promises';
import { render } from './dist-server/server.js';

const html = await readFile('dist/lesson.html', 'utf8');
await writeFile('dist/lesson-ssr.html', html.replace('<div id="root"></div>', \`<div id="root">\${render('lesson')}</div>\`));
`;
  for (const page of PAGE_NAMES) {
    files[`${dir}/${page}.html`] = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><title>${PAGES[page].title}</title></head>
  <body data-page="${page}"><div id="root"></div><script type="module" src="/src/main.tsx"></script></body>
</html>
`;
    files[`${dir}/src/${component(page)}.tsx`] = pageSource(page, idiom, context);
  }
  return files;
}

const steps = (idiom) => [
  { label: 'tsc --noEmit --strict on the author\'s code', command: ['npx', 'tsc', '--noEmit', '--strict', '-p', 'tsconfig.json'], cwd: idiom },
  { label: 'vite build', command: ['npx', 'vite', 'build'], cwd: idiom, required: true, warnings: true },
  { label: 'vite build --ssr (react-dom/server)', command: ['npx', 'vite', 'build', '--ssr', 'src/server.tsx', '--outDir', 'dist-server'], cwd: idiom, ssr: true },
  { label: 'prerender the lesson for hydrateRoot', command: ['node', 'prerender.mjs'], cwd: idiom, ssr: true },
];

const paths = () => ({ lesson: '/lesson.html', 'lesson (hydrateRoot)': '/lesson-ssr.html', trainer: '/trainer.html', playground: '/playground.html' });

/**
 * The plain elements in JSX, rendered with createRoot. Not hydrated: React 19's hydration applies
 * neither the event props nor the property props of a custom element (react#35446), which the
 * docs say, sending a server-rendered React site to the components instead.
 */
export const elements = {
  packages,
  files: (context) => app('elements', context),
  build: { steps: steps('elements').filter((step) => !step.ssr), out: 'elements/dist' },
  paths: Object.fromEntries(Object.entries(paths()).filter(([label]) => !label.includes('hydrateRoot'))),
  events: true,
};

/** The React components. */
export const components = {
  packages,
  installAs: 'react',
  files: (context) => app('components', context),
  build: { steps: steps('components'), out: 'components/dist' },
  paths: paths(),
  events: true,
};
