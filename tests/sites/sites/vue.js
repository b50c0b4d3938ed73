// A Vite + Vue 3 app as its author writes one: single-file components with the elements in their
// templates, numbers and lists bound as JS values (`:c="12"`), events with @mha-step, and Vue told
// that mha-* tags are custom elements (Vue's own advice for custom elements).
import { PAGES, PAGE_NAMES, SITE_CSS, vueWidget } from '../pages.js';

export const packages = { vue: '3.5.46', vite: '8.3.8', '@vitejs/plugin-vue': '6.0.11' };

const LISTENERS = {
  walk: '@mha-step="step = $event.detail.step" @mha-run="t = $event.detail.run.summary.T"',
  follow: '@mha-select="selected = `${$event.detail.batch},${$event.detail.head}`"',
};

const component = (page) => page[0].toUpperCase() + page.slice(1);

function sfc(page) {
  const listens = page === 'lesson';
  const body = PAGES[page].blocks.map((block) => (block.p ? `    <p>${block.p}</p>` : `    ${vueWidget(block, { extra: LISTENERS[block.id] ?? '' })}`));
  return `${listens ? `<script setup>
import { ref } from 'vue'

const step = ref('')
const t = ref(0)
const selected = ref('')
</script>

` : ''}<template>
  <main>
    <h1>${PAGES[page].title}</h1>
${body.join('\n')}
${listens ? '    <p>Step <output id="step-out">{{ step }}</output>, T = <output id="run-out">{{ t }}</output>, head <output id="select-out">{{ selected }}</output></p>\n' : ''}  </main>
</template>
`;
}

export function files({ entries, stylesheet }) {
  const out = {
    'vite.config.js': `import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  plugins: [
    vue({ template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('mha-') } } }),
  ],
  build: {
    rollupOptions: { input: { ${PAGE_NAMES.map((page) => `${page}: '${page}.html'`).join(', ')} } },
  },
})
`,
    'src/site.css': SITE_CSS,
    'src/main.js': `import { createApp } from 'vue'
import '${entries.widgets}'
${stylesheet ? `import '${stylesheet}'\n` : ''}import './site.css'
${PAGE_NAMES.map((page) => `import ${component(page)} from './${component(page)}.vue'`).join('\n')}

const pages = { ${PAGE_NAMES.map((page) => `${page}: ${component(page)}`).join(', ')} }
createApp(pages[document.body.dataset.page]).mount('#app')
`,
  };
  for (const page of PAGE_NAMES) {
    out[`${page}.html`] = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><title>${PAGES[page].title}</title></head>
  <body data-page="${page}"><div id="app"></div><script type="module" src="/src/main.js"></script></body>
</html>
`;
    out[`src/${component(page)}.vue`] = sfc(page);
  }
  return out;
}

export const build = { steps: [{ label: 'vite build', command: ['npx', 'vite', 'build'], required: true, warnings: true }], out: 'dist' };
export const paths = { lesson: '/lesson.html', trainer: '/trainer.html', playground: '/playground.html' };
export const events = true;
