// Alerts' cost beside ingest, and a delivery burst against a slow receiver.
//   node --import tsx bench/alerts/run.ts [--copies 3] [--profiles 1000] [--entities 1000] [--burst 1000] [--no-concurrent]
// 1. Ingest: demo corpora with seeds 1..copies (3: 11,659 documents) through the whole pipeline
//    (embedded engine, hashing embedder) in a child process, as `pdi ingest` beside the server, timed.
//    a. Sum: one watcher pass over everything it stored, against active profiles and monitored
//       entities (workload.ts), timed: matching plus recording deliveries and events.
//    b. Concurrent: the same ingest into a fresh folder while a watcher in this process (the API
//       server's) polls the feed every second; the ingest's time beside it, and how long after the
//       ingest the watcher had matched everything.
//    Wall and CPU seconds: on a shared machine the CPU figures are the steadier ratio.
// 2. Burst: `burst` pending webhook deliveries to a loopback receiver that answers each after 1 s,
//    while GET /v1/models (no quota) is called in a loop; its latency during the burst, and the burst's duration.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { WebhookSecrets } from '../../api/alerts/secret.js';
import { accountsDbPath, openDatabase, type Db } from '../../api/db/database.js';
import { startServer } from '../../api/server.js';
import { WATCH_EVERY_MS } from '../../api/alerts/service.js';
import { Watcher } from '../../api/alerts/watcher.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { percentile } from '../percentile.js';
import { createWorkload, ORGS, workloadOf, type Workload } from './workload.js';

const { values } = parseArgs({
  options: {
    copies: { type: 'string', default: '3' },
    profiles: { type: 'string', default: '1000' },
    entities: { type: 'string', default: '1000' },
    burst: { type: 'string', default: '1000' },
    'no-concurrent': { type: 'boolean', default: false },
  },
});
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const cache = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'bench-ingest');
const log = createLogger('silent');
const run = promisify(execFile);

function corpora(copies: number): string[] {
  return Array.from({ length: copies }, (_, i) => {
    const dir = path.join(cache, `seed-${i + 1}`);
    if (!fs.existsSync(path.join(dir, 'diavgeia'))) {
      execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'data/generate.ts'), '--out', dir, '--seed', String(i + 1)], { stdio: 'inherit' });
    }
    return dir;
  });
}

interface Ingested {
  stored: number;
  seconds: number;
  cpu_seconds: number;
}

const ingest = async (dataDir: string): Promise<Ingested> =>
  JSON.parse(
    (
      await run(process.execPath, ['--import', 'tsx', path.join(root, 'bench/alerts/ingest.ts'), dataDir, ...corpora(Number(values.copies))], {
        maxBuffer: 1 << 20,
      })
    ).stdout,
  ) as Ingested;

/** The account database of `dataDir` with the workload, and the watermark at the feed's start. */
function accounts(dataDir: string, workload: Workload): { db: Db; entities: number } {
  const db = openDatabase(accountsDbPath(dataDir));
  db.prepare("INSERT INTO watcher_state (name, seq, checked_at) VALUES ('documents', 0, ?)").run(new Date().toISOString());
  return { db, entities: createWorkload(db, workload, Number(values.profiles), Number(values.entities)) };
}

const count = (db: Db, table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1e6;
};
const share = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`;

/** Ingest alone, then one watcher pass over what it stored. */
async function sum(workloadOut: { workload?: Workload }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-alerts-'));
  const ingested = await ingest(dataDir);
  const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
  const workload = workloadOf(documents.feedAfter(0, 1_000_000));
  workloadOut.workload = workload;
  const { db, entities } = accounts(dataDir, workload);
  const watcher = new Watcher({ db, documents, log });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const read = await watcher.pass();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(cpu0);
  const result = {
    documents: ingested.stored,
    feed_entries: read,
    organizations: ORGS,
    profiles: Number(values.profiles),
    entities,
    ingest_seconds: +ingested.seconds.toFixed(2),
    ingest_cpu_seconds: +ingested.cpu_seconds.toFixed(2),
    watcher_seconds: +seconds.toFixed(2),
    watcher_cpu_seconds: +cpu.toFixed(2),
    watcher_share_of_ingest: share(seconds, ingested.seconds),
    watcher_cpu_share_of_ingest: share(cpu, ingested.cpu_seconds),
    per_document_us: Math.round((seconds * 1e6) / read),
    deliveries: count(db, 'alert_deliveries'),
    event_deliveries: db.prepare("SELECT count(*) FROM alert_deliveries WHERE monitor_event_id != ''").pluck().get() as number,
    events: count(db, 'monitor_events'),
  };
  documents.close();
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return result;
}

/** The ingest in its own process while a watcher here polls the feed as the API server's does. */
async function concurrent(workload: Workload, alone: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-alerts-'));
  const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
  const { db } = accounts(dataDir, workload);
  const watcher = new Watcher({ db, documents, log });
  let ingested: Ingested | null = null;
  const t0 = performance.now();
  let ingestEnded = 0;
  const child = ingest(dataDir).then((r) => {
    ingested = r;
    ingestEnded = performance.now();
  });
  // Polls as startAlerts does; the pass after the ingest ended reads the rest.
  for (let done = false; !done; ) {
    done = ingested !== null;
    await watcher.pass();
    if (!done) await Promise.race([sleep(WATCH_EVERY_MS), child]);
  }
  const caughtUp = (performance.now() - t0) / 1000;
  const ingestSeconds = (ingestEnded - t0) / 1000;
  const result = {
    ingest_seconds_beside_watcher: +ingestSeconds.toFixed(2),
    ingest_alone_seconds: +alone.toFixed(2),
    all_matched_after_seconds: +caughtUp.toFixed(2),
    watcher_lag_after_ingest_seconds: +(caughtUp - ingestSeconds).toFixed(2),
    added_to_ingest: share(caughtUp - alone, alone),
    deliveries: count(db, 'alert_deliveries'),
    events: count(db, 'monitor_events'),
  };
  documents.close();
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return result;
}

async function burst() {
  const count = Number(values.burst);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-burst-'));
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        res.writeHead(200);
        res.end();
      }, 1_000),
    );
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
  const profile = server.app.context.alerts.createProfile(
    orgId,
    {
      name: 'burst',
      channels: ['webhook'],
      targets: { webhook_url: hook },
      filters: { keywords: [], sources: [], sectors: [], regions: [], min_value: null, max_value: null },
    },
    WebhookSecrets.newSalt(),
    new Date(),
  );
  const now = new Date().toISOString();
  const latencies: number[] = [];
  const started = performance.now();
  db.transaction(() => {
    const doc = db.prepare('INSERT INTO alert_documents (source_id, document) VALUES (?, ?)');
    const insert =
      db.prepare(`INSERT INTO alert_deliveries (id, org_id, alert_profile_id, document_source_id, channel, delivery_status, next_attempt_at, created_at)
      VALUES (?, ?, ?, ?, 'webhook', 'pending', ?, ?)`);
    for (let i = 0; i < count; i++) {
      doc.run(
        `bench:${i}`,
        JSON.stringify({ source_id: `bench:${i}`, title: 't', source: 'kimdis', published_at: now, source_url: 'https://x', amount: null }),
      );
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
    webhooks: count,
    failed,
    receiver_answer_ms: 1_000,
    seconds: +seconds.toFixed(1),
    per_second: +(count / seconds).toFixed(1),
    api_requests_during: latencies.length,
    api_p50_ms: +percentile(latencies, 50).toFixed(2),
    api_p99_ms: +percentile(latencies, 99).toFixed(2),
    api_max_ms: +latencies[latencies.length - 1]!.toFixed(2),
  };
}

const load = () => os.loadavg().map((l) => +l.toFixed(2));
const out: { workload?: Workload } = {};
const loadBefore = load();
const summed = await sum(out);
process.stderr.write(`${JSON.stringify(summed)}\n`);
const beside = values['no-concurrent'] ? null : await concurrent(out.workload!, summed.ingest_seconds);
if (beside) process.stderr.write(`${JSON.stringify(beside)}\n`);
const result = {
  cores: os.cpus().length,
  node: process.version,
  load_average_before: loadBefore,
  load_average_after_matching: load(),
  sum: summed,
  concurrent: beside,
  burst: Number(values.burst) > 0 ? await burst() : null,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
