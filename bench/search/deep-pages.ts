// Deep pages on Elasticsearch: what a page past the 10,000-hit window costs, alone and for a client
// paging on through a large result set as the contract tells it to (offset + limit until total).
//   ELASTICSEARCH_URL=… node --import tsx bench/search/deep-pages.ts [--docs 1000000] [--pages 10] [--code-dir DIR]
// Loads bench/search/generate.ts's corpus into indices prefixed `bench<docs>` once (as api.ts does).
// "Alone": a new provider for each page (nothing to resume from), at 2, 10, 20 and 50% of the total.
// "Paging on": one provider, --pages pages of 100 from 10% of the total, one after another.
// Both for the most common term (search) and the largest source's listing. --code-dir takes the adapter
// from another checkout (a git worktree of an earlier commit), for a before/after in the same minutes.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ElasticsearchProvider as Provider, ElasticsearchProviderOptions } from '../../lib/search/elasticsearch.js';
import { Generator, loadCorpus } from './generate.js';

const { values: args } = parseArgs({ options: {
  docs: { type: 'string', default: '1000000' },
  seed: { type: 'string', default: '20240611' },
  pages: { type: 'string', default: '10' },
  'code-dir': { type: 'string', default: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..') },
} });
const N = Number(args.docs);
const PAGES = Number(args.pages);
const url = process.env.ELASTICSEARCH_URL;
if (!url) throw new Error('ELASTICSEARCH_URL is not set (scripts/elasticsearch.sh start prints it)');
const progress = (msg: string) => process.stderr.write(`[deep-pages ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const { ElasticsearchProvider } = (await import(path.join(args['code-dir']!, 'lib/search/elasticsearch.ts'))) as {
  ElasticsearchProvider: new (opts: ElasticsearchProviderOptions) => Provider;
};
const open = () => new ElasticsearchProvider({ url, prefix: `bench${N}`, dimension: 384, embeddingModel: 'pdi/hashing-384', requestTimeoutMs: 300_000 });

const gen = new Generator(N, Number(args.seed));
const loader = open();
await loader.init();
await loadCorpus(loader, gen, progress);
await loader.close();

type Read = (p: Provider, offset: number) => Promise<{ total: number; hits: unknown[] }>;
const reads: [string, Read][] = [
  [`search "${gen.vocab[0]}"`, (p, offset) => p.search({ text: gen.vocab[0], limit: 100, offset, view: 'metadata' })],
  ['listing diavgeia', (p, offset) => p.list({ source: 'diavgeia', limit: 100, offset })],
];

async function timed(read: () => Promise<{ total: number }>): Promise<{ ms: number; total: number }> {
  const started = performance.now();
  const { total } = await read();
  return { ms: Math.round(performance.now() - started), total };
}

const results = [];
for (const [name, read] of reads) {
  const p = open();
  const { total } = await read(p, 0);
  // Offsets as shares of the total: the middle (50%) is the farthest from both ends.
  const offsets = [0.02, 0.1, 0.2, 0.5].map((share) => Math.round(total * share));
  const alone: Record<number, number> = {};
  for (const offset of offsets) {
    const fresh = open();
    alone[offset] = (await timed(() => read(fresh, offset))).ms;
    await fresh.close();
    progress(`${name}: offset ${offset} of ${total} alone ${alone[offset]} ms`);
  }
  const pagingOn: number[] = [];
  for (let i = 0; i < PAGES; i++) pagingOn.push((await timed(() => read(p, offsets[1] + i * 100))).ms);
  await p.close();
  progress(`${name}: paging on from ${offsets[1]}: ${pagingOn.join(', ')} ms`);
  results.push({ read: name, total, alone_ms_by_offset: alone, paging_on_from: offsets[1], paging_on_ms: pagingOn });
}
process.stdout.write(`${JSON.stringify({ documents: N, code_dir: args['code-dir'], load_average: os.loadavg(), results }, null, 2)}\n`);
