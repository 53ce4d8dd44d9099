// Documents per second through the whole ingest pipeline (parse → normalize → hash → blobs → embed →
// index → store → checkpoint), per engine and embedder, on demo corpora generated with distinct seeds.
//   node --import tsx bench/ingest/run.ts [--copies 3] [--engines embedded,elasticsearch] [--embedders hashing,model,service]
// Elasticsearch runs only when ELASTICSEARCH_URL is set; the model only when PDI_MODEL_DIR (or the
// folder scripts/fetch-model.sh fills) holds one. `service` embeds through PDI_EMBED_URL-style calls to
// the loopback peer of the tests, run as a process of its own with the same model: `cpu_ms_per_doc` is
// then what the ingest process itself spends. Reported time excludes start-up (engine, model load).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDemo } from '../../ingest/demo.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { IngestState } from '../../ingest/state/store.js';
import { SqliteBlobStore } from '../../lib/blob-store.js';
import { defaultModelDir, HashingEmbedder, ModelEmbedder, ServiceEmbedder } from '../../lib/embedding/index.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { createLogger } from '../../lib/logger.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import type { SearchProvider } from '../../lib/search/provider.js';

const { values } = parseArgs({
  options: {
    copies: { type: 'string', default: '3' },
    engines: { type: 'string', default: 'embedded,elasticsearch' },
    embedders: { type: 'string', default: 'hashing,model' },
  },
});
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const cache = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'bench-ingest');

/** Demo corpora with seeds 1..copies, generated once and cached. */
function corpora(copies: number): string[] {
  return Array.from({ length: copies }, (_, i) => {
    const dir = path.join(cache, `seed-${i + 1}`);
    if (!fs.existsSync(path.join(dir, 'diavgeia'))) {
      execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'data/generate.ts'), '--out', dir, '--seed', String(i + 1)], { stdio: 'inherit' });
    }
    return dir;
  });
}

async function embedderOf(name: string): Promise<Embedder | null> {
  if (name === 'hashing') return new HashingEmbedder();
  const dir = process.env.PDI_MODEL_DIR ?? defaultModelDir();
  if (!fs.existsSync(dir)) return null;
  if (name === 'service')
    return ServiceEmbedder.connect({
      url: await servicePeer(dir),
      key: null,
      model: 'bench/e5',
      batchSize: 32,
      concurrency: 4,
      timeoutMs: 120_000,
      retries: 2,
      queryPrefix: '',
      passagePrefix: '',
    });
  return ModelEmbedder.load(dir);
}

const peers: ReturnType<typeof spawn>[] = [];

/** The tests' loopback embeddings peer in a process of its own, computing with the model in `dir`. */
async function servicePeer(dir: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/helpers/embedding-service.ts'), '--model-dir', dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  peers.push(child);
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the embeddings peer exited (${code})`)));
  });
}

function engineOf(name: string, dataDir: string, embedder: Embedder): SearchProvider | null {
  if (name === 'embedded') return new EmbeddedProvider({ file: path.join(dataDir, 'index.db'), dimension: embedder.dimension, embeddingModel: embedder.id });
  if (!process.env.ELASTICSEARCH_URL) return null;
  return new ElasticsearchProvider({
    url: process.env.ELASTICSEARCH_URL,
    prefix: `bench${process.pid}`,
    dimension: embedder.dimension,
    embeddingModel: embedder.id,
  });
}

const dirs = corpora(Number(values.copies));
const results = [];
for (const embedderName of values.embedders!.split(',')) {
  for (const engineName of values.engines!.split(',')) {
    const embedder = await embedderOf(embedderName);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-ingest-'));
    const search = embedder && engineOf(engineName, dataDir, embedder);
    if (!embedder || !search) {
      process.stderr.write(`skipped ${engineName} + ${embedderName}: ${embedder ? 'ELASTICSEARCH_URL unset' : 'no model folder'}\n`);
      continue;
    }
    await search.init();
    const deps = {
      search,
      embedder,
      blobs: new SqliteBlobStore(SqliteBlobStore.pathIn(dataDir)),
      state: new IngestState(IngestState.pathIn(dataDir)),
      documents: new DocumentStore(DocumentStore.pathIn(dataDir)),
      log: createLogger('silent'),
    };
    const started = performance.now();
    const cpu = process.cpuUsage();
    let documents = 0;
    for (const dir of dirs) {
      for (const run of (await loadDemo(deps, { dir })).runs) documents += run.new + run.updated;
    }
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const result = {
      engine: engineName,
      embedder: embedderName === 'service' ? `${embedder.id} (service)` : embedder.id,
      documents,
      seconds: +seconds.toFixed(2),
      docs_per_second: Math.round(documents / seconds),
      // This process only (all its threads): the service's own CPU is in its process.
      cpu_ms_per_doc: +((used.user + used.system) / 1000 / documents).toFixed(2),
      loadavg: os.loadavg().map((l) => +l.toFixed(2)),
    };
    results.push(result);
    process.stderr.write(`${JSON.stringify(result)}\n`);
    if (search.engine === 'elasticsearch') {
      await fetch(`${process.env.ELASTICSEARCH_URL}/bench${process.pid}-docs-*`, { method: 'DELETE' });
    }
    await search.close();
    deps.state.close();
    deps.documents.close();
    deps.blobs.close();
    if (!process.env.PDI_BENCH_KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
process.stdout.write(`${JSON.stringify({ cores: os.cpus().length, node: process.version, results }, null, 2)}\n`);
// The peers' pipes would keep this process alive.
for (const peer of peers) peer.kill();
