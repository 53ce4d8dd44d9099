// What snippets cost GET /v1/search: p50 of a 100-hit page as the engine gives the metadata records alone
// (the view before snippets), against the page with content and summary read and the snippets cut
// (api/routes/documents.ts searchDocuments), on the demo corpus (3,948 documents), each engine in process.
//   node --import tsx bench/search/snippets.ts     (Elasticsearch too when ELASTICSEARCH_URL is set)
import os from 'node:os';
import path from 'node:path';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { queryMatcher, snippetOf } from '../../lib/search/snippet.js';
import { demoRecords, indexedEngine, withVectors } from '../relevance/corpus.js';

const QUERIES = ['σύμβαση', 'προμήθεια', 'καθαριότητα σχολείων', 'οδοφωτισμός', 'contract', 'Δήμος', 'υπηρεσίες', 'services', 'έργο', 'ΑΠΟΦΑΣΗ'];
const ROUNDS = 15;
const embedder = new HashingEmbedder();
const docs = await withVectors(await demoRecords(), embedder, path.join(os.tmpdir(), 'pdi-bench-snippets'));

async function p50(run: (q: string) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const q of QUERIES) {
      const started = performance.now();
      await run(q);
      times.push(performance.now() - started);
    }
  }
  return times.sort((a, b) => a - b)[times.length >> 1];
}

for (const engine of ['embedded', 'elasticsearch']) {
  const indexed = await indexedEngine(engine, embedder, docs);
  if (!indexed) continue;
  const { search } = indexed;
  const metadata = (q: string) => search.search({ text: q, limit: 100, offset: 0, view: 'metadata' });
  const withSnippets = async (q: string) => {
    const r = await search.search({ text: q, limit: 100, offset: 0, view: 'text' });
    const match = queryMatcher(q);
    return r.hits.map((h) => snippetOf(h.doc, match));
  };
  await p50(metadata);
  await p50(withSnippets);
  const [a, b] = [await p50(metadata), await p50(withSnippets)];
  process.stdout.write(
    `${engine}: metadata p50 ${a.toFixed(2)} ms, with snippets ${b.toFixed(2)} ms (x${(b / a).toFixed(2)}), load ${os.loadavg()[0].toFixed(1)}\n`,
  );
  await indexed.close();
}
