// Deep pages: what a page deep in a large result set costs, alone and for a client paging on through
// it as the contract tells it to (offset + limit until total), on either engine.
//   ELASTICSEARCH_URL=… node --import tsx bench/search/deep-pages.ts [--docs 1000000] [--pages 10] [--code-dir DIR]
//   node --import tsx bench/search/deep-pages.ts --engine embedded [--dir DIR] [--docs 1000000] [--pages 10] [--code-dir DIR]
// Elasticsearch: loads bench/search/generate.ts's corpus into indices prefixed `bench<docs>` once (as
// api.ts does). Embedded: reads the index bench/search/embedded.ts built (embedded-<docs>-<seed>.sqlite
// in DIR, default $PDI_BENCH_DIR or <tmp>/pdi-bench), on the calling thread.
// "Alone": a new provider for each page (nothing to resume from), at 2, 10, 20 and 50% of the total.
// "Paging on": one provider, --pages pages of 100 from 10% of the total, one after another.
// Both for the most common term (search) and the largest source's listing. --code-dir takes the engine
// from another checkout (a git worktree of an earlier commit), for a before/after in the same minutes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { EmbeddedOptions } from '../../lib/search/embedded/provider.js';
import type { ElasticsearchProviderOptions } from '../../lib/search/elasticsearch.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { loadCorpus } from './corpus.js';
import { Generator } from './generate.js';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'elasticsearch' },
    dir: { type: 'string', default: process.env.PDI_BENCH_DIR ?? path.join(os.tmpdir(), 'pdi-bench') },
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    pages: { type: 'string', default: '10' },
    'code-dir': { type: 'string', default: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..') },
  },
});
const N = Number(args.docs);
const PAGES = Number(args.pages);
const progress = (msg: string) => process.stderr.write(`[deep-pages ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
type Provider = SearchProvider;
const gen = new Generator(N, Number(args.seed));

async function opener(): Promise<() => Provider> {
  if (args.engine === 'embedded') {
    const file = path.join(args.dir!, `embedded-${N}-${args.seed}.sqlite`);
    if (!fs.existsSync(`${file}.done.json`)) throw new Error(`${file} is not built: run bench/search/embedded.ts --docs ${N} first`);
    const { EmbeddedProvider } = (await import(path.join(args['code-dir']!, 'lib/search/embedded.ts'))) as {
      EmbeddedProvider: new (opts: EmbeddedOptions) => Provider;
    };
    return () => new EmbeddedProvider({ file, dimension: 384, embeddingModel: 'pdi/hashing-384' });
  }
  const url = process.env.ELASTICSEARCH_URL;
  if (!url) throw new Error('ELASTICSEARCH_URL is not set (scripts/elasticsearch.sh start prints it)');
  const { ElasticsearchProvider } = (await import(path.join(args['code-dir']!, 'lib/search/elasticsearch.ts'))) as {
    ElasticsearchProvider: new (opts: ElasticsearchProviderOptions) => Provider;
  };
  const open = () => new ElasticsearchProvider({ url, prefix: `bench${N}`, dimension: 384, embeddingModel: 'pdi/hashing-384', requestTimeoutMs: 300_000 });
  const loader = open();
  await loader.init();
  await loadCorpus(loader, gen, progress);
  await loader.close();
  return open;
}
const open = await opener();

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
process.stdout.write(
  `${JSON.stringify({ engine: args.engine, documents: N, code_dir: args['code-dir'], load_average: os.loadavg(), rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20), results }, null, 2)}\n`,
);
