// Entity by ΑΦΜ for an ΑΦΜ of more than 25,000 documents and for a small one, against a rare-term
// search, through the HTTP API in one run (target: entity costs at most a rare-term search at any size, the real data's included).
//   node --import tsx bench/entity/big.ts [--docs 100000] [--seconds 10]     (embedded engine)
// The corpus: bench/search/generate.ts's documents, each given parties as a normalizer writes them
// (its contractor as supplier, with an ΑΦΜ derived from the name as bench/entity/add-afms.ts does; on
// 30% of them one buyer, ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ, with its ΑΦΜ) and an award amount, stored through the
// document store (so the entity aggregates are written as ingest writes them) with their fallback
// vectors, then `pdi reindex` into the embedded engine. Cached at ~/.cache/pdi/bench-entity-<n>/.
// wrk, 10 connections, 2 s warm-up, keys rotated. Needs wrk (apt-get install wrk).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Party } from '../../index-mappings/document.js';
import { reindex } from '../../ingest/reindex.js';
import { composedText } from '../../ingest/sources/text.js';
import { embedAll } from '../../ingest/stages/embed.js';
import { contentHash } from '../../ingest/stages/hash.js';
import { DocumentStore, type StoredRecord } from '../../ingest/state/documents.js';
import { openRuntime } from '../../ingest/runtime.js';
import { loadConfig } from '../../lib/config.js';
import { HashingEmbedder } from '../../lib/embedding/index.js';
import { createLogger } from '../../lib/logger.js';
import { mulberry32 } from '../../data/generator/prng.js';
import { createBenchKeys, startBenchApi } from '../api-server.js';
import { Generator, SURNAMES } from '../search/generate.js';
import { wrkPercentile, wrkRequestsPerSecond } from '../wrk.js';

const { values: args } = parseArgs({ options: { docs: { type: 'string', default: '100000' }, seconds: { type: 'string', default: '10' } } });
const N = Number(args.docs);
const SEED = 20240611;
const BUYER = { name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: '090025537' };
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const dir = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), `bench-entity-${N}`);

/** Eight digits from the name (FNV-1a), then the check digit: a valid ΑΦΜ (as bench/entity/add-afms.ts derives it). */
function afmOf(name: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  const body = String(10_000_000 + (h % 90_000_000));
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(body[i]) * 2 ** (8 - i);
  return body + String((sum % 11) % 10);
}

async function build(): Promise<void> {
  if (fs.existsSync(path.join(dir, 'corpus.json'))) return;
  fs.rmSync(dir, { recursive: true, force: true });
  const started = performance.now();
  const gen = new Generator(N, SEED);
  const store = new DocumentStore(DocumentStore.pathIn(dir));
  const embedder = new HashingEmbedder(384);
  for (let from = 0; from < N; from += 5_000) {
    const records: StoredRecord[] = [];
    for (let i = from; i < Math.min(N, from + 5_000); i++) {
      const { indexed_at, content_hash: _h, original, embedding: _e, ...generated } = gen.document(i);
      const rnd = mulberry32(i);
      const contractor = generated.entities.names[0]!;
      const parties: (Party & { name: string; afm: string })[] = [{ role: 'supplier', name: contractor, afm: afmOf(contractor) }];
      if (rnd() < 0.3) parties.unshift({ role: 'buyer', ...BUYER });
      const doc = composedText({
        ...generated,
        doc_category: 'award',
        parties,
        amount: { value: Math.round(rnd() * 10_000_000) / 100, currency: 'EUR' },
        entities: { ...generated.entities, afm: parties.map((p) => p.afm), names: parties.map((p) => p.name) },
      });
      records.push({ doc, content_hash: contentHash(doc), original, indexed_at });
    }
    store.save(records);
    await embedAll(
      embedder,
      store,
      records.map((r) => ({ doc: r.doc, contentHash: r.content_hash })),
    );
  }
  store.close();
  const stored = performance.now();
  const runtime = await openRuntime(loadConfig({ PDI_DATA_DIR: dir, LOG_LEVEL: 'silent', PDI_MODEL_DIR: '' }), createLogger('silent'));
  await reindex(runtime, 'all');
  await runtime.close();
  const seconds = (t: number) => Math.round((t - started) / 100) / 10;
  fs.writeFileSync(
    path.join(dir, 'corpus.json'),
    JSON.stringify({ n: N, seed: SEED, stored_seconds: seconds(stored), built_seconds: seconds(performance.now()) }),
  );
  progress(`corpus stored in ${seconds(stored)} s, indexed in ${seconds(performance.now())} s`);
}

progress(`the corpus of ${N} documents in ${dir}`);
await build();
const store = new DocumentStore(DocumentStore.pathIn(dir));
const docsOf = store.db.prepare("SELECT sum(documents) FROM entity_counts WHERE kind = 'afm' AND key = ?").pluck();
// The commonest contractor's, and one of a few hundred documents (the 300th most documents).
const afms = store.db
  .prepare("SELECT key, sum(documents) AS n FROM entity_counts WHERE kind = 'afm' AND key <> ? GROUP BY key ORDER BY n DESC, key")
  .raw()
  .all(BUYER.afm) as [string, number][];
const small = afms[Math.min(afms.length - 1, 300)]!;
// The rare term of the search benches: a tail surname (bench/search/generate.ts), in a few documents.
const rare = SURNAMES[700]!;
const buyerDocs = docsOf.get(BUYER.afm) as number;
store.close();

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-entity-big-'));
const keysFile = path.join(work, 'keys.txt');
fs.writeFileSync(keysFile, `${createBenchKeys(dir).join('\n')}\n`);
const { port, stop } = await startBenchApi(dir, {});

function viaApi(pathAndQuery: string) {
  const url = `http://127.0.0.1:${port}${pathAndQuery}`;
  const env = { ...process.env, PDI_BENCH_KEYS: keysFile };
  const script = path.join(root, 'bench/rotate-keys.lua');
  execFileSync('wrk', ['-t1', '-c10', '-d2s', '-s', script, url], { env });
  const load = os.loadavg().map((x) => +x.toFixed(2));
  const out = execFileSync('wrk', ['-t1', '-c10', `-d${args.seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8', env });
  return {
    requests_per_second: wrkRequestsPerSecond(out),
    p50_ms: wrkPercentile(out, 50),
    p99_ms: wrkPercentile(out, 99),
    non_2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    load_average: load,
  };
}

const results: Record<string, unknown>[] = [];
try {
  for (const c of [
    { case: `rare-term search \`${rare}\` (a tail surname)`, path: `/v1/search?q=${encodeURIComponent(rare)}&limit=100` },
    { case: `entity by ΑΦΜ ${BUYER.afm} (${buyerDocs} documents)`, path: `/v1/entity/${BUYER.afm}` },
    { case: `entity by ΑΦΜ ${afms[0]![0]} (${afms[0]![1]} documents)`, path: `/v1/entity/${afms[0]![0]}` },
    { case: `entity by ΑΦΜ ${small[0]} (${small[1]} documents)`, path: `/v1/entity/${small[0]}` },
    { case: `entity by name \`${BUYER.name}\``, path: `/v1/entity/${encodeURIComponent(BUYER.name)}?type=name` },
    { case: `entity by ΑΦΜ ${BUYER.afm}, the last page`, path: `/v1/entity/${BUYER.afm}?limit=100&offset=${buyerDocs - 100}` },
  ]) {
    const row = { case: c.case, ...viaApi(c.path) };
    progress(JSON.stringify(row));
    results.push(row);
  }
} finally {
  stop();
  fs.rmSync(work, { recursive: true, force: true });
}
const rareP50 = results[0]!.p50_ms as number;
process.stdout.write(
  `${JSON.stringify(
    {
      engine: 'embedded',
      documents: N,
      seconds: Number(args.seconds),
      connections: 10,
      results,
      p50_over_rare: results.slice(1).map((r) => ({ case: r.case, ratio: +((r.p50_ms as number) / rareP50).toFixed(2) })),
    },
    null,
    2,
  )}\n`,
);
process.exit(0);
