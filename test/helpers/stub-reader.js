// A stand-in reader thread for the read-pool tests: claims each call as a real reader does, answers
// every search with its thread id and text, ends its thread on the text "die", and, given shared
// memory, counts the calls it starts (`started`) and holds a call until the test opens its `gate`
// (Atomics), as a slow query holds a real reader.
import { parentPort, threadId, workerData } from 'node:worker_threads';

const counters = { fromList: 0, rankedByFts: 0, listsBuilt: 0, fromRanking: 0 };
parentPort.on('message', ({ id, arg }) => {
  // Claims the call as the real reader does (read-worker.ts), or answers that it was taken back.
  if (Atomics.compareExchange(workerData.claim, 0, id, 0) !== id) return parentPort.postMessage({ id, skipped: true });
  if (arg.text === 'die') process.exit(3);
  if (arg.started) Atomics.add(arg.started, 0, 1);
  if (arg.gate) Atomics.wait(arg.gate, 0, 0);
  parentPort.postMessage({ id, counters, result: { total: 1, hits: [], threadId, text: arg.text } });
});
