// Quota exactness under load, against the real server process: 200 requests at once per key for 20
// keys at once, every answer counted; then SIGKILLs during such load, and what the counter keeps.
// docs/reliability.md "Quota exactness under load" records the figures.
import t from 'tap';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { KeyStore, type Tier } from '../../api/db/keys.js';
import { DAILY_QUOTA } from '../../api/tiers.js';
import { utcDay } from '../../lib/clock.js';
import { tempDir } from '../helpers/app.js';
import { hit, statusCounts, type Hit } from '../helpers/load.js';
import { bounded } from '../helpers/reliability.js';
import { startServerProcess, stopServerProcess } from '../helpers/server-process.js';

const PER_KEY = 200;
/** The documented bound (api/db/usage.ts, docs/operations.md): a crash forgets at most the last second. */
const LOST_WINDOW_MS = 1_000;
// The in-flight caps (8 per key by default) would refuse most of 200 at once with their own 429:
// raised so that every 429 here is the quota's.
const ENV = { PDI_MAX_IN_FLIGHT_PER_KEY: String(PER_KEY), PDI_MAX_IN_FLIGHT_PER_ORG: String(PER_KEY) };

function makeKeys(dataDir: string, tiers: Tier[]): { id: string; key: string; tier: Tier }[] {
  const db = openDatabase(accountsDbPath(dataDir));
  const store = new KeyStore(db);
  // One organization per key: the per-organization in-flight cap stays out of the way.
  const keys = tiers.map((tier, i) => {
    const k = store.create(`Load ${i}`, tier);
    return { id: k.id, key: k.key, tier };
  });
  db.close();
  return keys;
}

function storedUsage(dataDir: string): Map<string, number> {
  const db = openDatabase(accountsDbPath(dataDir));
  const rows = db.prepare('SELECT key_id, count FROM daily_usage WHERE day = ?').all(utcDay(new Date())) as { key_id: string; count: number }[];
  db.close();
  return new Map(rows.map((r) => [r.key_id, r.count]));
}

t.test(
  'when 20 keys send 200 requests at once each, then each gets exactly min(quota, 200) answers 200, the rest 429, and the stored usage equals the 200s',
  async (t) => {
    const dataDir = tempDir(t);
    const keys = makeKeys(dataDir, [...Array(10).fill('pro'), ...Array(10).fill('enterprise')]);
    const server = await startServerProcess(t, { PDI_DATA_DIR: dataDir, ...ENV });
    const started = performance.now();
    const results = await Promise.all(keys.map((k) => Promise.all(Array.from({ length: PER_KEY }, () => hit(server.url, '/v1/sources', k.key)))));
    t.comment(`${keys.length * PER_KEY} requests at once answered in ${Math.round(performance.now() - started)} ms`);
    // A graceful stop writes the counts; the database is then read as it stays.
    await stopServerProcess(server);
    const stored = storedUsage(dataDir);
    const expected = keys.map((k) => Math.min(DAILY_QUOTA[k.tier], PER_KEY));
    t.same(
      results.map(statusCounts),
      expected.map((n) => ({ 200: n, ...(PER_KEY > n ? { 429: PER_KEY - n } : {}) })),
      'per key: min(quota, 200) answered 200, the rest 429, nothing else',
    );
    t.same(
      keys.map((k) => stored.get(k.id)),
      expected,
      'per key: the stored usage equals its 200s',
    );
    t.comment(`tiers ${keys.map((k) => k.tier).join(',')}; 200s per key ${expected.join(',')}`);
  },
);

/**
 * Each key sends PER_KEY requests at a time, again as each answer comes, until its quota is spent or
 * the server is gone. Resolves with every answer.
 */
function flood(url: string, key: string, stopAt: number, onOk: () => void = () => {}): Promise<Hit[]> {
  const hits: Hit[] = [];
  let spent = false;
  const worker = async () => {
    while (!spent) {
      const h = await hit(url, '/v1/sources', key);
      hits.push(h);
      if (h.status === 200) onOk();
      else spent = true;
      if (hits.length >= stopAt) spent = true;
    }
  };
  return Promise.all(Array.from({ length: PER_KEY }, worker)).then(() => hits);
}

// Delays after the first answer 200. Long runs (PDI_RELIABILITY_LONG=1) kill at more moments.
const KILL_DELAYS_MS = bounded([1_000, 2_500], [250, 1_000, 1_500, 2_000, 3_000, 4_000]);

for (const delay of KILL_DELAYS_MS) {
  t.test(
    `when the server is killed ${delay} ms after the first answer of a load of 20 keys, then the stored counts miss at most the answers of the documented window, and the keys get exactly the rest of their quota after the restart`,
    async (t) => {
      const dataDir = tempDir(t);
      const quota = DAILY_QUOTA.enterprise;
      const keys = makeKeys(dataDir, Array(20).fill('enterprise'));
      const env = { PDI_DATA_DIR: dataDir, ...ENV };
      const first = await startServerProcess(t, env);
      let answered!: () => void;
      const firstOk = new Promise<void>((resolve) => (answered = resolve));
      const floods = keys.map((k) => flood(first.url, k.key, quota + PER_KEY, answered));
      await firstOk;
      await new Promise((r) => setTimeout(r, delay));
      const killedAt = performance.now();
      await first.kill();
      const results = await Promise.all(floods);
      const stored = storedUsage(dataDir);

      const kept = keys.map((k) => stored.get(k.id) ?? 0);
      const served = results.map((hits) =>
        hits
          .filter((h) => h.status === 200)
          .map((h) => h.at)
          .sort((x, y) => x - y),
      );
      // Every answer that came more than the flush interval before the kill was counted, and written.
      const settled = served.map((ok) => ok.filter((at) => at <= killedAt - LOST_WINDOW_MS).length);
      t.same(
        kept.map((n, i) => n >= settled[i]!),
        keys.map(() => true),
        `per key: the stored count is at least the 200s answered ${LOST_WINDOW_MS} ms or more before the kill`,
      );
      t.same(
        kept.map((n) => n <= quota),
        keys.map(() => true),
        'per key: never more than its quota',
      );
      const missing = served.map((ok, i) => Math.max(0, ok.length - kept[i]!));
      const windows = served.map((ok, i) => (missing[i]! > 0 ? killedAt - ok[ok.length - missing[i]!]! : 0));
      t.comment(
        `kill at ${delay} ms: ${served.flat().length} answered 200 before it, ${kept.reduce((a, b) => a + b, 0)} counts stored, ${missing.reduce((a, b) => a + b, 0)} answered 200s not in them; the oldest of those came ${Math.round(Math.max(...windows))} ms before the kill`,
      );

      // After the restart each key goes on from its stored count.
      const second = await startServerProcess(t, env);
      const remaining = await Promise.all(
        keys.map((k) =>
          fetch(`${second.url}/v1/sources`, { headers: { Authorization: `Bearer ${k.key}` } }).then((r) => Number(r.headers.get('x-ratelimit-remaining'))),
        ),
      );
      // A key whose whole quota was stored is refused, and its header says 0 (never below).
      t.same(
        remaining,
        kept.map((n) => Math.max(0, quota - n - 1)),
        'per key: the quota left after the restart is what its stored count leaves',
      );
      await stopServerProcess(second);
    },
  );
}
