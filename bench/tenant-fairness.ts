// One key flooding the API must not stall another (issue 27): key B's GET /v1/stats latency alone, then
// while key A keeps FLOOD searches in flight at once (a long phrase, limit=1000), each sent again as
// soon as it is answered (200 or 429). Target: B's p99 under the flood within 2x of its p99 alone.
//   node --import tsx bench/tenant-fairness.ts [--data DIR] [--flood 150] [--samples 200]
// --data: a data folder with an index to search (default: a fresh one with the demo corpus, loaded by pdi demo).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { accountsDbPath, openDatabase } from '../api/db/database.js';
import { KeyStore } from '../api/db/keys.js';
import { startBenchApi } from './api-server.js';
import { percentile } from './percentile.js';

const { values } = parseArgs({ options: { data: { type: 'string' }, flood: { type: 'string', default: '150' }, samples: { type: 'string', default: '200' } } });
const FLOOD = Number(values.flood);
const SAMPLES = Number(values.samples);
const dataDir = values.data ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-fairness-'));
const db = openDatabase(accountsDbPath(dataDir));
const keys = new KeyStore(db);
const flooder = keys.create('Flood Ltd', 'enterprise').key;
const other = keys.create('Other SA', 'enterprise').key;
db.close();

if (!values.data) {
  execFileSync(process.execPath, ['bin/pdi.js', 'demo'], { cwd: path.resolve(import.meta.dirname, '..'), env: { ...process.env, PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, stdio: 'ignore' });
}
const api = await startBenchApi(dataDir, {});
const get = (p: string, key: string) => fetch(`${api.url}${p}`, { headers: { Authorization: `Bearer ${key}` } }).then(async (r) => { await r.arrayBuffer(); return r.status; });

async function otherLatencies(): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    if ((await get('/v1/stats', other)) !== 200) throw new Error('the other key was refused');
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b);
}

const alone = await otherLatencies();
let flooding = true;
const statuses: Record<number, number> = {};
const phrase = encodeURIComponent('απόφαση ανάθεσης σύμβασης προμήθειας υπηρεσιών δήμου');
const loops = Array.from({ length: FLOOD }, async () => {
  while (flooding) {
    const s = await get(`/v1/search?q=${phrase}&limit=1000`, flooder);
    statuses[s] = (statuses[s] ?? 0) + 1;
    // A client that honours Retry-After would wait 1 s; this one retries at once, the worst case.
  }
});
await new Promise((r) => setTimeout(r, 2000));
const loaded = await otherLatencies();
flooding = false;
await Promise.all(loops);
api.stop();

const p = (xs: number[], q: number) => +percentile(xs, q).toFixed(1);
process.stdout.write(`${JSON.stringify({
  flood: FLOOD, samples: SAMPLES,
  alone: { p50_ms: p(alone, 50), p99_ms: p(alone, 99) },
  flooded: { p50_ms: p(loaded, 50), p99_ms: p(loaded, 99) },
  p99_ratio: +(percentile(loaded, 99) / percentile(alone, 99)).toFixed(2),
  flood_statuses: statuses,
}, null, 2)}\n`);
process.exit(0);
