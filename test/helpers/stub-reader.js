// A stand-in reader thread for the read-pool tests: answers every search with its thread id, and ends
// its thread on the search text "die" (with whatever calls are queued behind it still unanswered).
import { parentPort, threadId } from 'node:worker_threads';

const counters = { fromList: 0, rankedByFts: 0, listsBuilt: 0 };
parentPort.on('message', ({ id, arg }) => {
  if (arg.text === 'die') process.exit(3);
  parentPort.postMessage({ id, counters, result: { total: 1, hits: [], threadId } });
});
