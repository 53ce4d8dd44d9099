// `pdi reindex` timings in one run, over the benchmark corpus (bench/search/corpus.ts): the rebuild of
// every source, of the smallest source (elstat, 2%) and of the largest (diavgeia, 45%), then every
// source again; and, on Elasticsearch, the serving index's shard sizes (documents and bytes per shard).
//   ELASTICSEARCH_URL=… node --import tsx bench/search/reindex.ts [--docs 1000000] [--seed 20240611]
//   node --import tsx bench/search/reindex.ts --engine embedded [--docs …]
// --model real: index the real model's vectors (bench/vectors/add-vectors.ts put them in the corpus's
// cache) instead of the fallback's, so that the same index also serves bench/vectors/api.ts.
// Elasticsearch: into indices prefixed `bench<docs>` (the ones api.ts reads); embedded: a fresh file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@elastic/elasticsearch';
import { readAlias } from '../../index-mappings/index-names.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import type { RebuildScope, SearchProvider } from '../../lib/search/provider.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { HashingEmbedder } from '../../lib/embedding/index.js';
import { loadModel } from '../vectors/sample.js';
import { ensureCorpus, reindexFrom } from './corpus.js';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'elasticsearch' },
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    model: { type: 'string', default: 'fallback' },
    scopes: { type: 'string', default: 'all,elstat,diavgeia,all' },
  },
});
const N = Number(args.docs);
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

const dir = await ensureCorpus(N, Number(args.seed), progress);
const embedder: Embedder = args.model === 'real' ? await loadModel() : new HashingEmbedder(384);
const url = process.env.ELASTICSEARCH_URL;
const prefix = `bench${N}`;
let provider: SearchProvider;
let file: string | null = null;
if (args.engine === 'embedded') {
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-reindex-')), 'index.db');
  provider = new EmbeddedProvider({ file, dimension: 384, embeddingModel: embedder.id });
} else {
  if (!url) throw new Error('ELASTICSEARCH_URL is not set (scripts/elasticsearch.sh start prints it)');
  provider = new ElasticsearchProvider({ url, prefix, dimension: 384, embeddingModel: embedder.id, requestTimeoutMs: 120_000 });
}
await provider.init();

const runs = [];
for (const scope of args.scopes.split(',') as RebuildScope[]) {
  const before = load();
  const started = performance.now();
  const r = await reindexFrom(dir, provider, scope, embedder);
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  const row = { scope, documents: r.documents, seconds, docs_per_second: Math.round(r.documents / seconds), load_before: before, load_after: load() };
  progress(JSON.stringify(row));
  runs.push(row);
}

let shards: unknown = null;
if (url && args.engine !== 'embedded') {
  const client = new Client({ node: url });
  const rows = await client.cat.shards({ index: readAlias(prefix), format: 'json', bytes: 'b', h: 'index,shard,prirep,docs,store' });
  const segments = await client.cat.segments({ index: readAlias(prefix), format: 'json', h: 'shard,segment' });
  shards = rows.map((s) => ({ ...s, segments: segments.filter((g) => g.shard === s.shard).length }));
  await client.close();
}
await provider.close();
if (file) fs.rmSync(path.dirname(file), { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ engine: args.engine, model: embedder.id, documents: N, runs, shards, load_average: os.loadavg() }, null, 2)}\n`);
