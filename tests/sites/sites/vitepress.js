// A VitePress site as its author writes one: the default theme with its dark toggle, the widgets
// imported once by the theme, each page a Markdown file with the elements in it as HTML. Vue is
// told that mha-* tags are custom elements (VitePress's own advice for custom elements).
import { VITE_DEV_CONFIG } from '../entries.js';
import { PAGES, htmlWidget } from '../pages.js';

export const packages = { vitepress: '1.6.4' };

const markdown = (page) => [
  `# ${PAGES[page].title}`,
  ...PAGES[page].blocks.map((block) => (block.p ? block.p : htmlWidget(block))),
].join('\n\n');

export function files({ entries, stylesheet }) {
  return {
    '.vitepress/config.mts': `import { defineConfig } from 'vitepress'

export default defineConfig({
  title: 'Attention tutorial',
  appearance: true,
${VITE_DEV_CONFIG ? `  vite: ${VITE_DEV_CONFIG},\n` : ''}  vue: {
    template: {
      compilerOptions: { isCustomElement: (tag) => tag.startsWith('mha-') },
    },
  },
  themeConfig: {
    nav: [
      { text: 'Lesson', link: '/lesson' },
      { text: 'Trainer', link: '/trainer' },
      { text: 'Playground', link: '/playground' },
    ],
  },
})
`,
    '.vitepress/theme/index.ts': `import DefaultTheme from 'vitepress/theme'
import '${entries.widgets}'
${stylesheet ? `import '${stylesheet}'\n` : ''}
export default DefaultTheme
`,
    'index.md': '# Attention tutorial\n\n[Start the lesson](/lesson)\n\n[Train a model](/trainer)\n',
    'lesson.md': `${markdown('lesson')}\n`,
    'trainer.md': `${markdown('trainer')}\n`,
    'playground.md': `${markdown('playground')}\n`,
  };
}

export const build = { command: ['npx', 'vitepress', 'build'], out: '.vitepress/dist' };
export const dev = { command: (port) => ['npx', 'vitepress', 'dev', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], ready: /Local:\s+http/ };
export const paths = { home: '/', lesson: '/lesson.html', trainer: '/trainer.html', playground: '/playground.html' };
/** Client-side navigation: from the home page, the link to the lesson. */
export const navigate = { from: '/', link: 'a:has-text("Start the lesson")' };
/** The site's own dark toggle. */
export async function darkToggle(page) {
  await page.locator('.VPNavBar button.VPSwitchAppearance').first().click();
  await page.waitForFunction(() => document.documentElement.classList.contains('dark'));
}
