// The trainer's Web Worker: the service of trainer-service.js answering the page's messages.
// session.js starts it as new Worker(new URL('./mha-trainer-worker.js', import.meta.url), { type:
// 'module' }), which bundlers build and emit; the one of web/dist/ sits beside the widget bundle.
// It exports nothing: a bundler may build it as a classic script (Vite's default worker format).
import { startService } from './trainer-service.js';

if (typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope) {
  const handle = startService((message, transfer) => globalThis.postMessage(message, transfer ?? []));
  globalThis.addEventListener('message', (event) => handle(event.data));
}
