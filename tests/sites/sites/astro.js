// An Astro site (static build) as its author writes one: a layout with the site's stylesheet, each
// page the README's HTML inside it, and the widgets imported by a <script> (which Astro bundles
// into a module script). Light or dark as the reader's system prefers.
import { VITE_DEV_CONFIG } from '../entries.js';
import { PAGES, SITE_CSS, htmlBody } from '../pages.js';

export const packages = { astro: '5.18.2' };

const page = (name, { entries }) => `---
import Post from '../layouts/Post.astro';
---
<Post title="${PAGES[name].title}">
${htmlBody(name)}
</Post>

<script>
  import '${entries.widgets}';
</script>
`;

export function files(context) {
  return {
    'astro.config.mjs': `import { defineConfig } from 'astro/config';\n\nexport default defineConfig({${VITE_DEV_CONFIG ? ` vite: ${VITE_DEV_CONFIG} ` : ''}});\n`,
    'public/site.css': SITE_CSS,
    'src/layouts/Post.astro': `---
${context.stylesheet ? `import '${context.stylesheet}';\n` : ''}const { title } = Astro.props;
---
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>{title}</title>
    <link rel="stylesheet" href="/site.css" />
  </head>
  <body>
    <main>
      <nav><a href="/">Home</a><a href="/lesson/">Lesson</a><a href="/trainer/">Trainer</a><a href="/playground/">Playground</a></nav>
      <slot />
    </main>
  </body>
</html>
`,
    'src/pages/index.astro': `---
import Post from '../layouts/Post.astro';
---
<Post title="Attention tutorial"><h1>Attention tutorial</h1><p><a href="/lesson/">Start the lesson</a></p></Post>
`,
    'src/pages/lesson.astro': page('lesson', context),
    'src/pages/trainer.astro': page('trainer', context),
    'src/pages/playground.astro': page('playground', context),
  };
}

export const env = { ASTRO_TELEMETRY_DISABLED: '1' };
export const build = { command: ['npx', 'astro', 'build'], out: 'dist' };
export const dev = { command: (port) => ['npx', 'astro', 'dev', '--host', '127.0.0.1', '--port', String(port)], ready: /Local\s+http|ready in/i };
export const paths = { home: '/', lesson: '/lesson/', trainer: '/trainer/', playground: '/playground/' };
