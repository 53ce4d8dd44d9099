// What snippets cost GET /v1/search: p50 of a page as the engine gives the metadata records alone (the
// view before snippets), against the page with each hit's stored snippet text read and its snippet cut
// (api/routes/documents.ts searchDocuments), for pages of 10 and of 100, on the demo corpus (3,948
// documents), each engine in process.
//   node --import tsx bench/search/snippets.ts     (Elasticsearch too when ELASTICSEARCH_URL is set)
import os from 'node:os';
import path from 'node:path';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { queryMatcher, snippetOf } from '../../lib/search/snippet.js';
import { demoRecords, indexedEngine, withVectors } from '../relevance/corpus.js';

const QUERIES = ['σύμβαση', 'προμήθεια', 'καθαριότητα σχολείων', 'οδοφωτισμός', 'contract', 'Δήμος', 'υπηρεσίες', 'services', 'έργο', 'ΑΠΟΦΑΣΗ'];
const ROUNDS = 15;
const PAGES = [10, 100];
const embedder = new HashingEmbedder();
const docs = await withVectors(await demoRecords(), embedder, path.join(os.tmpdir(), 'pdi-bench-snippets'));

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

for (const engine of ['embedded', 'elasticsearch']) {
  const indexed = await indexedEngine(engine, embedder, docs);
  if (!indexed) continue;
  const { search } = indexed;
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
      `${engine}, pages of ${limit}: metadata p50 ${a.toFixed(2)} ms, with snippets ${b.toFixed(2)} ms (+${((b / a - 1) * 100).toFixed(0)}%), load ${load.join(' ')}\n`,
    );
  }
  await indexed.close();
}
