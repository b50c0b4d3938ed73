// The self-test: questions from the current configuration and conceptual ones (logic/lessons/self-test.js),
// each checked against this run. A first wrong answer is not shown the answer (try again, or ask
// for it); numbers right only because two sizes are equal are not marked right; "another question"
// adds a practice question below the others and keeps every answer given so far.
import { answerText, judge, makeQuestions, practiceQuestion } from '../../logic/lessons/self-test.js';
import { stepTitle } from '../../catalogue/steps.js';
import { el } from '../base/dom.js';
import { sheet } from '../base/styles.js';
import { block } from './frame.js';

export const QUIZ_STYLES = sheet(`
ol.quiz { padding-left: 1.2em; }
ol.quiz li { margin: 0.6em 0; }
.quiz-row { display: flex; flex-wrap: wrap; gap: 0.4em; align-items: center; }
.quiz-row input[type="text"] { padding: 0.3em 0.5em; border: 1px solid var(--line); border-radius: 6px; min-height: 2.2em; width: 11em; max-width: 100%; }
fieldset.choices { border: 0; padding: 0; margin: 0.2em 0; display: flex; flex-wrap: wrap; gap: 0.2em 1em; }
fieldset.choices label { display: inline-flex; gap: 0.4em; align-items: center; min-height: 2.75em; padding-right: 0.3em; cursor: pointer; }
/* A radio a finger can hit: 24 px, inside a label row 44 px tall (the whole label is the target). */
fieldset.choices input[type="radio"] { width: 1.5em; height: 1.5em; margin: 0; }
.verdict-ok { color: var(--ok); font-weight: 600; }
.verdict-no, .verdict-coincidence { color: var(--error); font-weight: 600; }
.verdict-coincidence { color: #8a5a00; }
`);

export class QuizPanel {
  #t;
  #body = el('div', { class: 'quiz-body' });
  #run = null;
  #practice;
  #answers; // question id → { signature, value, tries, verdict, revealed }
  #shown = null;
  #onDistinct;

  /**
   * `practice` (how many practice questions) and `answers` carry over from a panel rebuilt in
   * another language; `onDistinct()` loads the all-sizes-different example.
   */
  constructor({ t, practice = 0, answers = new Map(), onDistinct }) {
    this.#t = t;
    this.#practice = practice;
    this.#answers = answers;
    this.#onDistinct = onDistinct;
    this.section = block('quiz', t('quiz.title'), this.#body);
  }

  get practice() { return this.#practice; }
  get answers() { return this.#answers; }

  show(run) {
    this.#run = run;
    const questions = [...makeQuestions(run), ...Array.from({ length: this.#practice }, (_, i) => practiceQuestion(i + 1))];
    // The same questions (a new seed asks about the same shapes) keep the reader's answers.
    const key = JSON.stringify(questions);
    if (this.#shown === key) return;
    this.#shown = key;
    const list = el('ol', { class: 'quiz' }, questions.map((question, i) => this.#question(question, i)));
    const more = el('button', { type: 'button', 'data-action': 'more' }, this.#t('quiz.more'));
    more.addEventListener('click', () => {
      this.#practice += 1;
      this.show(this.#run);
      this.#body.querySelector(`li[data-question="practice-${this.#practice}"] input`)?.focus();
    });
    this.#body.replaceChildren(el('p', { class: 'note' }, this.#t('quiz.intro')), list, more);
  }

  #question(question, i) {
    const t = this.#t;
    const text = t(question.key, question.params);
    const signature = JSON.stringify(question);
    const saved = this.#answers.get(question.id);
    const state = saved?.signature === signature ? saved : { signature, value: '', tries: 0, verdict: null, revealed: false };
    this.#answers.set(question.id, state);
    const verdict = el('span', { class: 'verdict', 'aria-live': 'polite' });
    const reveal = el('button', { type: 'button', class: 'reveal', 'data-action': 'reveal', hidden: true }, t('quiz.reveal'));
    const distinct = el('button', { type: 'button', class: 'distinct', 'data-action': 'distinct', hidden: true }, t('ctl.distinct'));
    distinct.addEventListener('click', () => this.#onDistinct?.());
    let input;
    let read;
    let body;
    if (question.kind === 'choice') {
      const name = `quiz-${question.id}`;
      const options = question.options.map((value) => el('label', {},
        el('input', { type: 'radio', name, value, checked: state.value === value }), this.#optionText(question, value)));
      body = el('fieldset', { class: 'choices' }, el('legend', { class: 'visually-hidden' }, text), options);
      read = () => body.querySelector('input:checked')?.value ?? '';
      input = body;
    } else {
      input = el('input', { type: 'text', id: `quiz-${i}`, 'aria-label': text, autocomplete: 'off', value: state.value,
        placeholder: t(question.kind === 'shape' ? 'quiz.shapePlaceholder' : 'quiz.numberPlaceholder') });
      read = () => input.value;
      body = input;
    }
    const check = el('button', { type: 'button', 'data-action': 'check' }, t('quiz.check'));
    const paint = () => {
      const { verdict: v, revealed } = state;
      distinct.hidden = v?.verdict !== 'coincidence';
      reveal.hidden = !(v && v.verdict !== 'right' && state.tries >= 1 && !revealed);
      if (!v) { verdict.textContent = ''; verdict.className = 'verdict'; delete verdict.dataset.ok; return; }
      verdict.dataset.ok = String(v.verdict === 'right');
      verdict.dataset.verdict = v.verdict;
      if (v.verdict === 'right') {
        verdict.className = 'verdict verdict-ok';
        verdict.textContent = `✓ ${t('quiz.right')}`;
      } else if (v.verdict === 'coincidence') {
        verdict.className = 'verdict verdict-coincidence';
        const equal = v.equal.map(({ a, b, n }) => `${a} = ${b} = ${n}`).join(', ');
        verdict.textContent = `? ${t(question.kind === 'shape' ? 'quiz.coincidenceShape' : 'quiz.coincidenceCount', { wrong: question.kind === 'shape' ? `[${v.wrongAxes.join(',')}]` : v.wrongAxes.join('·'), equal })}`;
      } else {
        verdict.className = 'verdict verdict-no';
        verdict.textContent = revealed || state.tries >= 2 ? `✗ ${t('quiz.wrong', { answer: this.#answerText(question) })}` : `✗ ${t('quiz.tryAgain')}`;
      }
    };
    const judgeNow = () => {
      state.value = read();
      state.verdict = judge(question, state.value, this.#run.summary);
      if (state.verdict.verdict === 'wrong') state.tries += 1;
      paint();
    };
    check.addEventListener('click', judgeNow);
    if (question.kind !== 'choice') input.addEventListener('keydown', (event) => { if (event.key === 'Enter') judgeNow(); });
    else body.addEventListener('change', () => { state.value = read(); });
    if (question.kind !== 'choice') input.addEventListener('input', () => { state.value = input.value; });
    reveal.addEventListener('click', () => {
      state.revealed = true;
      if (!state.verdict || state.verdict.verdict === 'right') state.verdict = { verdict: 'wrong' };
      paint();
    });
    paint();
    const label = question.kind === 'choice' ? el('p', { class: 'question', id: `quiz-q-${i}` }, text) : el('label', { for: `quiz-${i}` }, text);
    return el('li', { 'data-question': question.id }, label, el('div', { class: 'quiz-row' }, body, check, verdict, reveal, distinct));
  }

  // A choice in words: an axis with what it means, a step with its number and title, or the words.
  #optionText(question, value) {
    const t = this.#t;
    if (question.id === 'softmaxAxis') return `${value} (${t(`axis.${value}`)})`;
    if (question.id === 'divisible') {
      const at = this.#run.steps.findIndex((s) => s.id === value);
      return `${at + 1}. ${stepTitle(t, value, this.#run.summary)}`;
    }
    return t(`${question.key}.${value}`);
  }

  #answerText(question) {
    return question.kind === 'choice' ? this.#optionText(question, question.answer) : answerText(question);
  }
}
