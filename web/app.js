// The plain walkthrough table: the engine runs client-side and every row is read from its snapshots.
import { createEngine } from './src/engine.js';
import { shapeChain, shapeText } from './src/format.js';

const engine = await createEngine();
const form = document.getElementById('config');
const body = document.querySelector('#steps tbody');
const errorLine = document.getElementById('error');

function render() {
  const config = Object.fromEntries([...new FormData(form)].map(([key, value]) => [key, Number(value)]));
  let run;
  try {
    run = engine.run(config);
  } catch (error) {
    errorLine.textContent = error.message;  // the last valid table stays on screen
    return;
  }
  errorLine.textContent = '';
  document.getElementById('chain').textContent = shapeChain(run.steps);
  body.replaceChildren(...run.steps.map((step, i) => {
    const row = document.createElement('tr');
    for (const text of [i + 1, `${step.id} · ${step.title}`, step.shapeFormula, shapeText(step.shape), step.axes.join(', '), step.changesValues ? 'yes' : 'no', step.numel]) {
      const cell = document.createElement('td');
      cell.textContent = String(text);
      row.append(cell);
    }
    return row;
  }));
}

form.addEventListener('input', render);
render();
