// The messages between <mha-trainer> (the page: session.js, elements/trainer/) and the trainer
// service (mha-trainer-worker.js, in a Web Worker or on the page's thread): the one place both
// sides read what each message holds. Every message is plain data (structured clone); arrays the
// sender owns go in the transfer list. No DOM.
//
// To the service (the page's requests):
//   init       { wasmModule, wasmUrl }                     load the engine with the trainer
//   open       { options, checkpoint: { url } | null,      a model: new, or from a checkpoint file
//                training, probeText, redrawEvery, compare }
//   configure  { training: { lr, dropout } }               train on with these
//   probe      { tokens }                                  the sequence the maps are drawn over
//   example    {}                                          the task's next example sequence
//   compare    { on }                                      also draw the model at step 0
//   train      { until }                                   train up to this step
//   pause      {}
//   step       {}                                          one training step
//   reset      {}                                          the same model at step 0
//   block      { id, layer, tokens? }                      one layer as a walkthrough run
// From the service (what the page draws); those that change the training state carry `running`
// and `step`, so that the page shows the service's state and keeps none of its own:
//   ready      { messages, layout }                        the engine's message table
//   opened     { task, options, step, parameterCount, fromCheckpoint, probe, probeError }
//   configured { options }
//   probe      { tokens }
//   progress   { step, running, loss, accuracy, losses }   losses: a Float32Array, transferred
//   view       { step, shape: { H, T, C, causal }, layers: [{ layer, weights }], dropped,
//                predicted, scores, initial: { layers, scores } | null, dropout }
//   paused     { step, running: false }
//   done       { step, running: false, evaluation }
//   block      { id, step, run }                           run: Run.toTransfer()
//   error      { id?, error }                              error: errorData()
import { MhaError, MhaLoadError } from '../engine/errors.js';

/** An error as plain data the page renders in its language (an MhaError, an MhaLoadError or any other). */
export function errorData(error) {
  if (error instanceof MhaError || error instanceof MhaLoadError) {
    return { kind: error instanceof MhaLoadError ? 'load' : 'engine', code: error.code, key: error.key, field: error.field, params: error.params, message: error.message };
  }
  return { kind: 'internal', message: String(error?.message ?? error) };
}

/** The error errorData() made, again an error that says itself (with the engine's `messages`). */
export function errorFrom(data, messages) {
  if (data instanceof Error) return data;
  if (data?.kind === 'engine') return new MhaError(data, messages);
  if (data?.kind === 'load') return new MhaLoadError(data.key, data.params);
  return new Error(data?.message ?? String(data));
}
