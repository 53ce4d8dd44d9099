// The watcher's pass alone, on one ingested folder kept between runs (run.ts ingests every time):
//   node --import tsx bench/alerts/pass.ts [--entities 1000] [--data DIR]
// Ingests the demo seeds 1-3 into DIR once (bench/alerts/ingest.ts), then on a fresh account database
// with the workload (workload.ts): CPU and wall seconds of one Watcher.pass() over the whole feed, and
// of matching alone (the inverted index, no row written): the split between matching and writing.
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

const { values } = parseArgs({ options: {
  entities: { type: 'string', default: '1000' },
  data: { type: 'string', default: path.join(os.tmpdir(), 'pdi-bench-alerts-pass') },
} });
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const cache = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'bench-ingest');
const dataDir = values.data;
const done = path.join(dataDir, 'ingested');
if (!fs.existsSync(done)) {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  // The corpora are made by run.ts on its first run.
  const dirs = [1, 2, 3].map((s) => path.join(cache, `seed-${s}`));
  execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/alerts/ingest.ts'), dataDir, ...dirs], { stdio: 'inherit' });
  fs.writeFileSync(done, '');
}

const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
const feed = documents.feedAfter(0, 1_000_000);
const workload = workloadOf(feed);
const accounts = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-pass-'));
const fresh = (): Db => {
  const db = openDatabase(accountsDbPath(accounts));
  db.prepare("INSERT INTO watcher_state (name, seq, checked_at) VALUES ('documents', 0, '2000-01-01T00:00:00Z')").run();
  createWorkload(db, workload, 1000, Number(values.entities));
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
  // As the watcher does: the index built per batch of 500, the document's text read once.
  for (let i = 0; i < feed.length; i += 500) {
    const index = new MatchIndex(new AlertStore(db).activeProfiles().map(profileMatcher), new MonitorStore(db).activeEntities());
    for (const entry of feed.slice(i, i + 500)) {
      const text = new DocumentText(entry.doc);
      profiles += index.profilesMatching(text).length;
      entities += index.entitiesMatching(text).length;
    }
  }
  return { profiles, entities };
});
db.close();
documents.close();
fs.rmSync(accounts, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({
  documents: feed.length, entities: Number(values.entities), pass: { ...pass, value: undefined, feed_entries: pass.value, ...rows },
  matching_only: { seconds: matchOnly.seconds, cpu_seconds: matchOnly.cpu_seconds, ...matchOnly.value },
})}\n`);
