// Alerts' cost beside ingest, and a delivery burst against a slow receiver.
//   node --import tsx bench/alerts/run.ts [--copies 3] [--profiles 1000] [--entities 1000] [--burst 1000]
// 1. Ingest: demo corpora with seeds 1..copies through the whole pipeline (embedded engine, hashing
//    embedder), timed; then one watcher pass over everything they stored, against active profiles
//    (keywords, sources, value bounds) and monitored entities (AFMs and names of the corpus, and others),
//    timed: matching plus recording deliveries and events. Reported as a share of the ingest's time.
// 2. Burst: `burst` pending webhook deliveries to a loopback receiver that answers each after 1 s,
//    while GET /v1/models (no quota) is called in a loop; its latency during the burst, and the burst's duration.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WebhookSecrets } from '../../api/alerts/secret.js';
import { AlertStore } from '../../api/db/alerts.js';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { MonitorStore } from '../../api/db/monitoring.js';
import { startServer } from '../../api/server.js';
import { Watcher } from '../../api/jobs/watcher.js';
import { loadDemo } from '../../ingest/demo.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { IngestState } from '../../ingest/state/store.js';
import { SqliteBlobStore } from '../../lib/blob-store.js';
import { loadConfig } from '../../lib/config.js';
import { HashingEmbedder } from '../../lib/embedding/index.js';
import { createLogger } from '../../lib/logger.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { percentile } from '../percentile.js';

const { values } = parseArgs({ options: {
  copies: { type: 'string', default: '3' },
  profiles: { type: 'string', default: '1000' },
  entities: { type: 'string', default: '1000' },
  burst: { type: 'string', default: '1000' },
} });
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const cache = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'bench-ingest');
const log = createLogger('silent');

function corpora(copies: number): string[] {
  return Array.from({ length: copies }, (_, i) => {
    const dir = path.join(cache, `seed-${i + 1}`);
    if (!fs.existsSync(path.join(dir, 'diavgeia'))) {
      execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'data/generate.ts'), '--out', dir, '--seed', String(i + 1)], { stdio: 'inherit' });
    }
    return dir;
  });
}

/** A deterministic pseudo-random sequence (the same profiles every run). */
function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

async function matching() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-alerts-'));
  const embedder = new HashingEmbedder();
  const search = new EmbeddedProvider({ file: path.join(dataDir, 'index.db'), dimension: embedder.dimension, embeddingModel: embedder.id });
  await search.init();
  const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
  const deps = { search, embedder, blobs: new SqliteBlobStore(SqliteBlobStore.pathIn(dataDir)), state: new IngestState(IngestState.pathIn(dataDir)), documents, log };
  const db = openDatabase(accountsDbPath(dataDir));
  // The watermark at the empty feed's start, as a server running before the ingest has it.
  new Watcher({ db, documents, log }).watermark();
  let stored = 0;
  const started = performance.now();
  for (const dir of corpora(Number(values.copies))) {
    for (const run of (await loadDemo(deps, { dir })).runs) stored += run.new + run.updated;
  }
  const ingestSeconds = (performance.now() - started) / 1000;

  // Profiles and entities drawn from the corpus itself, so some match and most do not.
  // Keywords are title words found in 0.1-1% of the documents: a profile hears of a few, not most.
  const docsWith = new Map<string, number>();
  const afms = new Set<string>();
  const names = new Set<string>();
  const sample = documents.feedAfter(0, 100_000);
  for (const entry of sample) {
    for (const w of new Set(entry.doc.title.toLowerCase().split(/[^\p{L}]+/u).filter((x) => x.length > 5))) docsWith.set(w, (docsWith.get(w) ?? 0) + 1);
    entry.doc.entities.afm.forEach((a) => afms.add(a));
    entry.doc.entities.names.forEach((n) => names.add(n));
  }
  const words = [...docsWith].filter(([, n]) => n >= sample.length / 1000 && n <= sample.length / 100).map(([w]) => w);
  const random = rng(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  // 100 organizations with 10 profiles and 10 entities each: a monitor event goes to every channel of
  // its organization's profiles, so one organization holding all 1,000 would multiply each event by 1,000.
  const ORGS = 100;
  const org = (i: number) => `org_bench${i % ORGS}`;
  for (let i = 0; i < ORGS; i++) db.prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, ?, '2000-01-01T00:00:00Z')").run(org(i), `bench${i}`);
  const alerts = new AlertStore(db);
  const at = new Date('2000-01-01T00:00:00Z');
  for (let i = 0; i < Number(values.profiles); i++) {
    const sources = random() < 0.3 ? [pick(['diavgeia', 'kimdis', 'ted'])] : [];
    alerts.createProfile(org(i), {
      name: `p${i}`, channels: ['email'], notify_email: 'a@example.com', webhook_url: null,
      filters: { keywords: [pick(words), `λέξη${i}`], sources, sectors: [], regions: [], min_value: random() < 0.2 ? 10_000 : null, max_value: null },
    }, 'salt', at);
  }
  const monitor = new MonitorStore(db);
  const afmList = [...afms];
  const nameList = [...names];
  for (let i = 0; i < Number(values.entities); i++) {
    const r = random();
    try {
      if (r < 0.4 && afmList.length) monitor.createEntity(org(i), 'afm', pick(afmList), null, at);
      else if (r < 0.8 && nameList.length) monitor.createEntity(org(i), 'name', pick(nameList), null, at);
      else monitor.createEntity(org(i), 'name', `Εταιρεία Δοκιμής ${i}`, null, at);
    } catch {
      // The same entity drawn twice (409): one fewer.
    }
  }
  const entities = db.prepare('SELECT count(*) FROM monitored_entities').pluck().get() as number;
  const watcher = new Watcher({ db, documents, log });
  const t0 = performance.now();
  const read = await watcher.pass();
  const watchSeconds = (performance.now() - t0) / 1000;
  const deliveries = db.prepare('SELECT count(*) FROM alert_deliveries').pluck().get() as number;
  const events = db.prepare('SELECT count(*) FROM monitor_events').pluck().get() as number;
  await search.close();
  deps.state.close();
  deps.blobs.close();
  documents.close();
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    documents: stored, feed_entries: read, organizations: ORGS, profiles: Number(values.profiles), entities,
    ingest_seconds: +ingestSeconds.toFixed(2), watcher_seconds: +watchSeconds.toFixed(2),
    watcher_share_of_ingest: `${((watchSeconds / ingestSeconds) * 100).toFixed(1)}%`,
    per_document_us: Math.round((watchSeconds * 1e6) / read), deliveries, events,
  };
}

async function burst() {
  const count = Number(values.burst);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-burst-'));
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => { res.writeHead(200); res.end(); }, 1_000));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  // The real server (its sender polls for due deliveries); the deliveries are written beside it, as
  // its watcher would have recorded them.
  const config = loadConfig({ PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PDI_WEBHOOK_ALLOW_PRIVATE: '1', PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1' });
  const server = await startServer(config, log);
  server.app.context.keys.create('bench', 'enterprise');
  const db = openDatabase(accountsDbPath(dataDir));
  const orgId = db.prepare("SELECT id FROM organizations WHERE name = 'bench'").pluck().get() as string;
  const profile = server.app.context.alerts.createProfile(orgId, {
    name: 'burst', channels: ['webhook'], webhook_url: hook, notify_email: null,
    filters: { keywords: [], sources: [], sectors: [], regions: [], min_value: null, max_value: null },
  }, WebhookSecrets.newSalt(), new Date());
  const now = new Date().toISOString();
  const latencies: number[] = [];
  const started = performance.now();
  db.transaction(() => {
    const doc = db.prepare('INSERT INTO alert_documents (source_id, document) VALUES (?, ?)');
    const insert = db.prepare(`INSERT INTO alert_deliveries (id, org_id, alert_profile_id, document_source_id, channel, delivery_status, next_attempt_at, created_at)
      VALUES (?, ?, ?, ?, 'webhook', 'pending', ?, ?)`);
    for (let i = 0; i < count; i++) {
      doc.run(`bench:${i}`, JSON.stringify({ source_id: `bench:${i}`, title: 't', source: 'kimdis', published_at: now, source_url: 'https://x', amount: null }));
      insert.run(`d${i}`, orgId, profile.id, `bench:${i}`, now, now);
    }
  })();
  const done = () => db.prepare("SELECT count(*) FROM alert_deliveries WHERE delivery_status != 'pending'").pluck().get() as number;
  while (done() < count) {
    const t0 = performance.now();
    const res = await fetch(`${server.url}/v1/models`);
    await res.text();
    latencies.push(performance.now() - t0);
  }
  const failed = db.prepare("SELECT count(*) FROM alert_deliveries WHERE delivery_status = 'failed'").pluck().get() as number;
  const seconds = (performance.now() - started) / 1000;
  await server.stop();
  receiver.close();
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  return {
    webhooks: count, failed, receiver_answer_ms: 1_000, seconds: +seconds.toFixed(1), per_second: +(count / seconds).toFixed(1),
    api_requests_during: latencies.length, api_p50_ms: +percentile(latencies, 50).toFixed(2), api_p99_ms: +percentile(latencies, 99).toFixed(2),
    api_max_ms: +latencies[latencies.length - 1]!.toFixed(2),
  };
}

const matched = await matching();
process.stderr.write(`${JSON.stringify(matched)}\n`);
const result = { cores: os.cpus().length, node: process.version, matching: matched, burst: await burst() };
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
