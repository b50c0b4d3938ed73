// The snapshot file the docs page exports: a run's config, tokens, summary, warnings and every
// step with its values. logic/page/config-import.js reads the config back from it. No DOM.

/** The JSON file of a run: its config, tokens, summary, warnings and every step (±∞ as the text "-Infinity", "Infinity"). */
export function snapshotJson({ config, tokens, run }) {
  return JSON.stringify({
    tool: 'mha-lens',
    config,
    tokens,
    summary: run.summary,
    warnings: run.warnings,
    steps: run.steps.map((step) => ({ ...step, data: Array.from(step.data, (v) => (Number.isFinite(v) ? v : String(v))) })),
  });
}
