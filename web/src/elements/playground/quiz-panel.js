// The self-test: questions from the current configuration (logic/self-test.js), each checked
// against this run; "another D question" asks about other C and H.
import { answerText, checkAnswer, makeQuestions } from '../../logic/self-test.js';
import { el } from '../dom.js';
import { sheet } from '../styles.js';
import { block } from './frame.js';

export const QUIZ_STYLES = sheet(`
ol.quiz { padding-left: 1.2em; }
ol.quiz li { margin: 0.5em 0; }
.quiz-row { display: flex; flex-wrap: wrap; gap: 0.4em; align-items: center; }
.quiz-row input { padding: 0.3em 0.5em; border: 1px solid var(--line); border-radius: 6px; min-height: 2.2em; width: 11em; max-width: 100%; }
.verdict-ok { color: var(--ok); font-weight: 600; }
.verdict-no { color: var(--error); font-weight: 600; }
`);

export class QuizPanel {
  #t;
  #body = el('div', { class: 'quiz-body' });
  #run = null;
  #variant = 0;
  #shown = null;

  /** `variant`: which "another D question" to start from (a panel rebuilt in another language keeps it). */
  constructor({ t, variant = 0 }) {
    this.#t = t;
    this.#variant = variant;
    this.section = block('quiz', t('quiz.title'), this.#body);
  }

  get variant() { return this.#variant; }

  show(run) {
    this.#run = run;
    const t = this.#t;
    const questions = makeQuestions(run, this.#variant);
    // The same questions (a new seed asks about the same shapes) keep the reader's answers.
    const key = `${this.#variant} ${JSON.stringify(questions)}`;
    if (this.#shown === key) return;
    this.#shown = key;
    const list = el('ol', { class: 'quiz' }, questions.map((question, i) => {
      const text = t(question.key, question.params);
      const input = el('input', { type: 'text', id: `quiz-${i}`, 'aria-label': text, autocomplete: 'off', placeholder: t(question.kind === 'shape' ? 'quiz.shapePlaceholder' : 'quiz.numberPlaceholder') });
      const verdict = el('span', { class: 'verdict', 'aria-live': 'polite' });
      const check = el('button', { type: 'button' }, t('quiz.check'));
      const judge = () => {
        const ok = checkAnswer(question, input.value);
        verdict.className = ok ? 'verdict verdict-ok' : 'verdict verdict-no';
        verdict.dataset.ok = String(ok);
        verdict.textContent = ok ? `✓ ${t('quiz.right')}` : `✗ ${t('quiz.wrong', { answer: answerText(question) })}`;
      };
      check.addEventListener('click', judge);
      input.addEventListener('keydown', (event) => { if (event.key === 'Enter') judge(); });
      return el('li', { 'data-question': question.id }, el('label', { for: `quiz-${i}` }, text), el('div', { class: 'quiz-row' }, input, check, verdict));
    }));
    const more = el('button', { type: 'button', 'data-action': 'more' }, t('quiz.more'));
    more.addEventListener('click', () => {
      this.#variant += 1;
      this.show(this.#run);
    });
    this.#body.replaceChildren(el('p', { class: 'note' }, t('quiz.intro')), list, more);
  }
}
