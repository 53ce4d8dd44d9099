// The watcher's pass alone, on one ingested folder kept between runs (run.ts ingests every time):
//   [PDI_MODEL_DIR=DIR] node --import tsx bench/alerts/pass.ts [--seeds 1,2,3] [--profiles 1000] [--entities 1000] [--quiet 0] [--data DIR]
// Ingests the demo seeds into DIR once (bench/alerts/ingest.ts: with the model in PDI_MODEL_DIR, as
// production embeds), then on a fresh account database with the workload (workload.ts, `--quiet` more
// profiles and entities that match nothing): CPU and wall seconds of one Watcher.pass() over the whole
// feed, its share of the ingest's CPU, and matching alone (no row written): matching against writing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AlertStore } from '../../api/alerts/store.js';
import { accountsDbPath, openDatabase, type Db } from '../../api/db/database.js';
import { MonitorStore } from '../../api/monitoring/store.js';
import { DocumentText, MatchIndex, profileMatcher } from '../../api/alerts/match.js';
import { Watcher } from '../../api/alerts/watcher.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { createLogger } from '../../lib/logger.js';
import { createWorkload, workloadOf } from './workload.js';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1,2,3' },
    profiles: { type: 'string', default: '1000' },
    entities: { type: 'string', default: '1000' },
    quiet: { type: 'string', default: '0' },
    data: { type: 'string' },
  },
});
const seeds = values.seeds.split(',').map(Number);
const model = process.env.PDI_MODEL_DIR ? `-${path.basename(process.env.PDI_MODEL_DIR)}` : '';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const cache = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'bench-ingest');
const dataDir = values.data ?? path.join(os.tmpdir(), `pdi-bench-alerts-pass-${seeds.join('-')}${model}`);
const done = path.join(dataDir, 'ingested');
if (!fs.existsSync(done)) {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  // The corpora are made by run.ts on its first run.
  const dirs = seeds.map((s) => path.join(cache, `seed-${s}`));
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/alerts/ingest.ts'), dataDir, ...dirs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  fs.writeFileSync(done, out);
}
/** The ingest's figures, kept with its folder: {stored, seconds, cpu_seconds, embedder}. */
const ingest = JSON.parse(fs.readFileSync(done, 'utf8')) as { stored: number; seconds: number; cpu_seconds: number; embedder: string };

const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
const feed = documents.feedAfter(0, 1_000_000);
const workload = workloadOf(feed);
const accounts = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-pass-'));
const fresh = (): Db => {
  const db = openDatabase(accountsDbPath(accounts));
  db.prepare("INSERT INTO watcher_state (name, seq, checked_at) VALUES ('documents', 0, '2000-01-01T00:00:00Z')").run();
  createWorkload(db, workload, Number(values.profiles), Number(values.entities), Number(values.quiet));
  return db;
};
const timed = async <T>(fn: () => Promise<T> | T) => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { value, seconds: +((performance.now() - t0) / 1000).toFixed(2), cpu_seconds: +((c.user + c.system) / 1e6).toFixed(2) };
};

const db = fresh();
const pass = await timed(() => new Watcher({ db, documents, log: createLogger('silent') }).pass());
const count = (sql: string) => db.prepare(sql).pluck().get() as number;
const rows = { deliveries: count('SELECT count(*) FROM alert_deliveries'), events: count('SELECT count(*) FROM monitor_events') };
const matchOnly = await timed(() => {
  let profiles = 0;
  let entities = 0;
  // As the watcher does: the index built once (nothing changes meanwhile), the document's text read once.
  const index = new MatchIndex(new AlertStore(db).activeProfiles().map(profileMatcher), new MonitorStore(db).activeEntities());
  for (const entry of feed) {
    const text = new DocumentText(entry.doc);
    profiles += index.profilesMatching(text).length;
    entities += index.entitiesMatching(text).length;
  }
  return { profiles, entities };
});
db.close();
documents.close();
fs.rmSync(accounts, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({
    documents: feed.length,
    profiles: Number(values.profiles),
    entities: Number(values.entities),
    quiet: Number(values.quiet),
    ingest,
    pass: {
      ...pass,
      value: undefined,
      feed_entries: pass.value,
      ...rows,
      share_of_ingest_cpu: +(pass.cpu_seconds / ingest.cpu_seconds).toFixed(4),
      cpu_ms_per_document: +((pass.cpu_seconds * 1000) / feed.length).toFixed(3),
    },
    matching_only: { seconds: matchOnly.seconds, cpu_seconds: matchOnly.cpu_seconds, ...matchOnly.value },
  })}\n`,
);
