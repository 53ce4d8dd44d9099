// A stand-in reader thread for API tests of the embedded engine: answers every read at once with an
// empty result, except a search or ask's full-text read whose text starts with "hold" (or an entity whose identifier does), which it holds (as a very slow query
// holds a real reader) until a test posts "release" on the BroadcastChannel below; it posts
// {held: text} there when it starts holding one. Claims each call as a real reader does.
import { BroadcastChannel, parentPort, workerData } from 'node:worker_threads';

const counters = { fromList: 0, rankedByFts: 0, listsBuilt: 0, fromRanking: 0 };
const EMPTY = {
  search: { total: 0, hits: [] },
  list: { total: 0, hits: [] },
  get: null,
  knn: [],
  moreLikeThis: [],
  stats: { total_documents: 0, sources: {} },
  entity: { total: 0, matches: [] },
  named: [],
};
const channel = new BroadcastChannel('pdi-test-holding-reader');
channel.unref();
const held = [];
channel.onmessage = ({ data }) => {
  if (data === 'release') for (const answer of held.splice(0)) answer();
};
parentPort.on('message', ({ id, op, arg }) => {
  if (Atomics.compareExchange(workerData.claim, 0, id, 0) !== id) return parentPort.postMessage({ id, skipped: true });
  const answer = () => parentPort.postMessage({ id, counters, result: EMPTY[op] });
  const text = op === 'search' || op === 'moreLikeThis' ? String(arg.text) : op === 'entity' ? String(arg.query.identifier) : '';
  if (text.startsWith('hold')) {
    held.push(answer);
    channel.postMessage({ held: text });
  } else {
    answer();
  }
});
