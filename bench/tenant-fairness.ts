// One key flooding the API must not stall another: key B's GET /v1/stats latency alone, then
// while key A keeps FLOOD searches in flight at once (a long phrase, limit=1000), each sent again as
// soon as it is answered (200 or 429). Target: B's p99 under the flood within 2x of its p99 alone.
//   node --import tsx bench/tenant-fairness.ts [--data DIR] [--flood 150] [--samples 200] [--honour-retry-after] [--server DIR]
// --data: a data folder with an index to search (default: a fresh one with the demo corpus, loaded by pdi demo).
// --server: the checkout whose API is measured (default this one; another worktree measures another revision).
// --honour-retry-after: A waits what a 429's Retry-After says before sending again (a well-behaved
// client); without it A retries at once (the worst case).
// A's client runs in a process of its own: on B's event loop, its thousands of requests a second would
// delay B's measured answers on the client side, not in the API.
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { accountsDbPath, openDatabase } from '../api/db/database.js';
import { KeyStore } from '../api/db/keys.js';
import { startBenchApi } from './api-server.js';
import { percentile } from './percentile.js';

interface FloodJob {
  url: string;
  key: string;
  flood: number;
  honourRetryAfter: boolean;
}

/** A's client, in its own process: FLOOD loops of searches until told to stop, then its statuses. */
async function flood({ url, key, flood: n, honourRetryAfter }: FloodJob): Promise<void> {
  let flooding = true;
  process.once('message', () => (flooding = false));
  const statuses: Record<number, number> = {};
  const phrase = encodeURIComponent('απόφαση ανάθεσης σύμβασης προμήθειας υπηρεσιών δήμου');
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (flooding) {
        const res = await fetch(`${url}/v1/search?q=${phrase}&limit=1000`, { headers: { Authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const wait = Number(res.headers.get('retry-after'));
        if (honourRetryAfter && res.status === 429 && wait > 0) await new Promise((r) => setTimeout(r, wait * 1000));
      }
    }),
  );
  await new Promise((r) => process.send!(statuses, r));
}

const FLOOD_JOB = process.env.PDI_BENCH_FLOOD_JOB;
if (FLOOD_JOB) {
  await flood(JSON.parse(FLOOD_JOB) as FloodJob);
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    flood: { type: 'string', default: '150' },
    samples: { type: 'string', default: '200' },
    'honour-retry-after': { type: 'boolean', default: false },
    server: { type: 'string' },
  },
});
const FLOOD = Number(values.flood);
const SAMPLES = Number(values.samples);
const dataDir = values.data ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-fairness-'));
const db = openDatabase(accountsDbPath(dataDir));
const keys = new KeyStore(db);
const flooder = keys.create('Flood Ltd', 'enterprise').key;
const other = keys.create('Other SA', 'enterprise').key;
db.close();

if (!values.data) {
  execFileSync(process.execPath, ['bin/pdi.js', 'demo'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...process.env, PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
}
const api = await startBenchApi(dataDir, {}, values.server ? path.resolve(values.server) : undefined);
const get = (p: string, key: string) =>
  fetch(`${api.url}${p}`, { headers: { Authorization: `Bearer ${key}` } }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });

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
const job: FloodJob = { url: api.url, key: flooder, flood: FLOOD, honourRetryAfter: values['honour-retry-after'] };
const floodClient = fork(new URL(import.meta.url), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, PDI_BENCH_FLOOD_JOB: JSON.stringify(job) } });
await new Promise((r) => setTimeout(r, 2000));
const loaded = await otherLatencies();
const statuses = await new Promise<Record<number, number>>((resolve) => {
  floodClient.once('message', (m) => resolve(m as Record<number, number>));
  floodClient.send('stop');
});
api.stop();

const p = (xs: number[], q: number) => +percentile(xs, q).toFixed(1);
process.stdout.write(
  `${JSON.stringify(
    {
      server: values.server ?? '.',
      flood: FLOOD,
      samples: SAMPLES,
      honour_retry_after: job.honourRetryAfter,
      load_average: os.loadavg().map((l) => +l.toFixed(1)),
      alone: { p50_ms: p(alone, 50), p99_ms: p(alone, 99) },
      flooded: { p50_ms: p(loaded, 50), p99_ms: p(loaded, 99) },
      p99_ratio: +(percentile(loaded, 99) / percentile(alone, 99)).toFixed(2),
      flood_statuses: statuses,
    },
    null,
    2,
  )}\n`,
);
process.exit(0);
