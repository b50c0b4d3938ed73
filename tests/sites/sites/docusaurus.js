// A Docusaurus classic site (React 19) as its author writes one: MDX pages under src/pages that
// import the widgets and hold the elements as the README's HTML, a home page that links to them
// (Docusaurus navigates there on the client), and the classic theme's dark-mode toggle.
import { PAGES, htmlWidget } from '../pages.js';

export const moduleType = null;

export const packages = {
  '@docusaurus/core': '3.10.2',
  '@docusaurus/preset-classic': '3.10.2',
  '@mdx-js/react': '3.1.1',
  react: '19.3.1',
  'react-dom': '19.3.1',
  clsx: '2.1.1',
  'prism-react-renderer': '2.4.1',
};

const mdx = (page, { entries, stylesheet }) => [
  [`import '${entries.widgets}';`, ...(stylesheet ? [`import '${stylesheet}';`] : [])].join('\n'),
  `# ${PAGES[page].title}`,
  ...PAGES[page].blocks.map((block) => (block.p ? block.p : htmlWidget(block))),
].join('\n\n');

export function files(context) {
  return {
    'docusaurus.config.js': `export default {
  title: 'Attention tutorial',
  url: 'http://127.0.0.1',
  baseUrl: '/',
  onBrokenLinks: 'throw',
  presets: [['classic', { docs: false, blog: false }]],
  themeConfig: {
    navbar: {
      title: 'Attention tutorial',
      items: [
        { to: '/lesson', label: 'Lesson', position: 'left' },
        { to: '/trainer', label: 'Trainer', position: 'left' },
        { to: '/playground', label: 'Playground', position: 'left' },
      ],
    },
  },
};
`,
    'src/pages/index.md': '# Attention tutorial\n\n[Start the lesson](/lesson)\n\n[Train a model](/trainer)\n',
    'src/pages/lesson.mdx': `${mdx('lesson', context)}\n`,
    'src/pages/trainer.mdx': `${mdx('trainer', context)}\n`,
    'src/pages/playground.mdx': `${mdx('playground', context)}\n`,
  };
}

export const build = { command: ['npx', 'docusaurus', 'build'], out: 'build' };
export const dev = { command: (port) => ['npx', 'docusaurus', 'start', '--host', '127.0.0.1', '--port', String(port), '--no-open'], ready: /compiled successfully|compiled with \d+ warning/i, timeout: 240_000 };
export const paths = { home: '/', lesson: '/lesson', trainer: '/trainer', playground: '/playground' };
export const navigate = { from: '/', link: 'article a:has-text("Start the lesson"), main a:has-text("Start the lesson")' };
export async function darkToggle(page) {
  // The classic theme's toggle cycles through its modes; dark is one click or two away.
  for (let i = 0; i < 3; i++) {
    if (await page.evaluate(() => document.documentElement.dataset.theme === 'dark')) return;
    await page.locator('button[class*="toggleButton"]').first().click();
    await page.waitForTimeout(200);
  }
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, { timeout: 2000 });
}
