// The playground's frame: one titled section per panel, and the styles the panels share (the
// sections, cards, and the small tables of numbers).
import { el } from '../base/dom.js';
import { sheet } from '../base/styles.js';

export const FRAME_STYLES = sheet(`
section.block { margin: 1.2em 0; padding: 0.8em 1em; background: var(--panel); border-radius: 10px; scroll-margin-top: var(--mha-scroll-margin, 0.5em); }
/* The panels below the heatmaps are not styled, laid out or painted while off screen (they stay
   in the accessibility tree and in find-in-page): a changed control then costs what is on screen,
   not the whole page. auto remembers each section's last size for the scrollbar. Not on the
   sections with the controls and the elements: Chromium then left their content without boxes
   after typing in a control while scrolled far down (tests/browser/page.test.js). */
section.lessons, section.mistakes, section.quiz, section.export { content-visibility: auto; contain-intrinsic-size: auto 30em; }
section.block > h2 { margin: 0 0 0.5em; font-size: 1.2em; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 19em), 1fr)); gap: 0.8em; }
.card { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 0.6em 0.8em; min-width: 0; overflow-x: auto; }
.card h3 { margin: 0 0 0.4em; font-size: 1.02em; }
.card p { margin: 0.3em 0; }
table.matrix td { font-size: 0.82em; padding: 0.05em 0.3em; }
`);

/** <section class="block {name}"> titled by an <h2 id="h-{name}">. */
export function block(name, title, ...children) {
  return el('section', { class: name ? `block ${name}` : 'block', 'aria-labelledby': `h-${name}` }, el('h2', { id: `h-${name}` }, title), ...children);
}
