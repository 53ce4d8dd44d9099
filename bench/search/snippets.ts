// What snippets cost GET /v1/search: p50 of a page as the engine gives the metadata records alone (the
// view before snippets), against the page with each hit's stored snippet text read and its snippet cut
// (api/routes/documents.ts searchDocuments), for pages of 10 and of 100, on the demo corpus (3,948
// documents), each engine in process; or on a data folder's engine (--data: the grown corpus at 100k, or
// its Elasticsearch index with ELASTICSEARCH_URL and PDI_INDEX_PREFIX), where a page costs what it costs
// at that size (the real model loaded, as the folder was indexed with it).
//   node --import tsx bench/search/snippets.ts     (Elasticsearch too when ELASTICSEARCH_URL is set)
//   node --import tsx bench/search/snippets.ts --data ~/.cache/pdi/grown-100000-20240611
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { modelEngine } from '../model-engine.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { queryMatcher, snippetOf } from '../../lib/search/snippet.js';
import { demoRecords, indexedEngine, withVectors } from '../relevance/corpus.js';

const QUERIES = ['σύμβαση', 'προμήθεια', 'καθαριότητα σχολείων', 'οδοφωτισμός', 'contract', 'Δήμος', 'υπηρεσίες', 'services', 'έργο', 'ΑΠΟΦΑΣΗ'];
const ROUNDS = 15;
const PAGES = [10, 100];
const { values: args } = parseArgs({ options: { data: { type: 'string' } } });
const embedder = new HashingEmbedder();

/** p50 of each of `runs`, measured alternately (one query each in turn), so a change of load weighs on all alike. */
async function p50s(runs: ((q: string) => Promise<unknown>)[]): Promise<number[]> {
  const times: number[][] = runs.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const q of QUERIES) {
      for (const [i, run] of runs.entries()) {
        const started = performance.now();
        await run(q);
        times[i].push(performance.now() - started);
      }
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[t.length >> 1]);
}

/** The engines to measure: the data folder's (the one its environment names), else the demo's on each engine. */
async function* engines(): AsyncGenerator<{ name: string; search: SearchProvider; close: () => Promise<void> }> {
  if (args.data) {
    // The folder's index holds the model's vectors: opened with the model, as the server would open it.
    const { engine: search } = await modelEngine(args.data);
    yield { name: `${search.engine}, ${args.data}`, search, close: () => search.close() };
    return;
  }
  const docs = await withVectors(await demoRecords(), embedder, path.join(os.tmpdir(), 'pdi-bench-snippets'));
  for (const engine of ['embedded', 'elasticsearch']) {
    const indexed = await indexedEngine(engine, embedder, docs);
    if (indexed) yield { name: engine, search: indexed.search, close: () => indexed.close() };
  }
}

for await (const { name, search, close } of engines()) {
  for (const limit of PAGES) {
    const metadata = (q: string) => search.search({ text: q, limit, offset: 0, view: 'metadata' });
    const withSnippets = async (q: string) => {
      const r = await search.search({ text: q, limit, offset: 0, view: 'snippet' });
      const match = queryMatcher(q);
      return r.hits.map((h) => snippetOf(h.doc.title, h.snippetText, match));
    };
    await p50s([metadata, withSnippets]);
    const [a, b] = await p50s([metadata, withSnippets]);
    const load = os.loadavg().map((l) => l.toFixed(1));
    process.stdout.write(
      `${name}, pages of ${limit}: metadata p50 ${a.toFixed(2)} ms, with snippets ${b.toFixed(2)} ms (+${((b / a - 1) * 100).toFixed(0)}%), load ${load.join(' ')}\n`,
    );
  }
  await close();
}
