// Memory under sustained load: the real server process answers mixed traffic (searches, listings,
// ask) from 10 clients on each engine while its RSS is sampled from /proc. Pass: after the warm-up
// (the first half) the RSS does not keep growing — the slope of a least-squares line through the
// second half's samples stays under SLOPE_BOUND. The samples go to docs/reliability.md "Memory".
// PDI_SOAK_ENGINE=embedded|elasticsearch runs one engine only (two runs side by side).
import path from 'node:path';
import t from 'tap';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { KeyStore } from '../../api/db/keys.js';
import { tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';
import { deleteIndices, randomPrefix } from '../helpers/elasticsearch.js';
import { hit, rssMiB, statusCounts, type Hit } from '../helpers/load.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { bounded, CLIENT_TIMEOUT_MS } from '../helpers/reliability.js';
import { startServerProcess, stopServerProcess } from '../helpers/server-process.js';

const CLIENTS = 10;
const SOAK_MS = bounded(45_000, 600_000);
const SAMPLE_MS = bounded(1_500, 5_000);
/** MiB per minute: growth below this over the second half is no leak (a GC sawtooth is ±10 MiB). */
const SLOPE_BOUND = 2;
/** 1,000 a day each: enough keys that no client runs out of quota during the soak. */
const KEYS = bounded(60, 400);

const QUERIES = ['σύμβαση', 'προμήθεια', 'καθαριότητα', 'δήμος αθηναίων', 'υπηρεσίες', 'έργο', 'συντήρηση', 'alpha', 'software', 'ΠΡΟΜΗΘΕΙΑ'];
const QUESTIONS = ['Ποιες συμβάσεις καθαριότητας ανατέθηκαν;', 'Ποιος ανέλαβε τη συντήρηση;', 'Which contracts were signed for software?'];

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

const ES_URL = process.env.ELASTICSEARCH_URL?.trim();
const ENGINES: { name: string; env: () => Record<string, string> }[] = [{ name: 'embedded', env: () => ({}) }];
if (ES_URL) ENGINES.push({ name: 'elasticsearch', env: () => ({ ELASTICSEARCH_URL: ES_URL, PDI_INDEX_PREFIX: randomPrefix() }) });
else console.error('WARNING: ELASTICSEARCH_URL is not set; the memory soak runs on the embedded engine only');

for (const engine of ENGINES.filter((e) => !process.env.PDI_SOAK_ENGINE || e.name === process.env.PDI_SOAK_ENGINE)) {
  t.test(`when 10 clients send searches, listings and asks for ${SOAK_MS / 1000} s (${engine.name}), then the server's RSS stops growing after the warm-up`, async (t) => {
    const dataDir = tempDir(t);
    const env = engine.env();
    if (env.PDI_INDEX_PREFIX) t.teardown(() => deleteIndices(ES_URL!, env.PDI_INDEX_PREFIX!));
    for (const source of ['kimdis', 'diavgeia', 'ted']) {
      const run = await pdi(dataDir, ['ingest', source, '--from', path.join(REPO_ROOT, 'data/demo', source)], env);
      t.equal(run.code, 0, `${source} ingested: ${run.stderr}`);
    }
    const db = openDatabase(accountsDbPath(dataDir));
    const store = new KeyStore(db);
    const keys = Array.from({ length: KEYS }, (_, i) => store.create(`Soak ${i}`, 'enterprise').key);
    db.close();
    const server = await startServerProcess(t, { PDI_DATA_DIR: dataDir, ...env });

    const hits: Hit[] = [];
    let n = 0;
    let running = true;
    const request = (i: number) => {
      const key = keys[i % KEYS]!;
      switch (i % 4) {
        case 0:
        case 1:
          return hit(server.url, `/v1/search?q=${encodeURIComponent(QUERIES[i % QUERIES.length]!)}&limit=20&offset=${(i * 7) % 60}`, key, { timeoutMs: CLIENT_TIMEOUT_MS });
        case 2:
          return hit(server.url, `/v1/${['kimdis', 'diavgeia', 'ted'][i % 3]}/documents?limit=50&offset=${(i * 13) % 200}`, key, { timeoutMs: CLIENT_TIMEOUT_MS });
        default:
          return hit(server.url, '/v1/ask', key, { method: 'POST', body: { question: QUESTIONS[i % QUESTIONS.length] }, timeoutMs: CLIENT_TIMEOUT_MS });
      }
    };
    const clients = Array.from({ length: CLIENTS }, async () => {
      while (running) hits.push(await request(n++));
    });
    const started = performance.now();
    const samples: { s: number; mib: number }[] = [];
    while (performance.now() - started < SOAK_MS) {
      samples.push({ s: (performance.now() - started) / 1000, mib: await rssMiB(server.pid) });
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
    running = false;
    await Promise.all(clients);
    await stopServerProcess(server);

    const counts = statusCounts(hits);
    t.same(Object.keys(counts), ['200'], `every answer 200: ${JSON.stringify(counts)}`);
    const second = samples.slice(Math.floor(samples.length / 2));
    const perMinute = slope(second.map((x) => x.s), second.map((x) => x.mib)) * 60;
    const mibs = samples.map((x) => x.mib);
    // A known failure, kept visible: RSS grew 60-100 MiB/min through 10 minutes on both engines
    // (docs/reliability.md "Memory under sustained load"); the cause is not found yet.
    t.ok(perMinute < SLOPE_BOUND, `RSS slope over the second half: ${perMinute.toFixed(2)} MiB/min (bound ${SLOPE_BOUND})`, { todo: 'RSS keeps growing under load on both engines: open, see docs/reliability.md' });
    t.comment(`${engine.name}: ${hits.length} requests in ${Math.round(SOAK_MS / 1000)} s (${Math.round(hits.length / (SOAK_MS / 1000))}/s); RSS MiB min ${Math.min(...mibs).toFixed(0)}, max ${Math.max(...mibs).toFixed(0)}, last ${mibs.at(-1)!.toFixed(0)}; slope over the second half ${perMinute.toFixed(2)} MiB/min`);
    t.comment(`${engine.name} samples (s:MiB): ${samples.map((x) => `${x.s.toFixed(0)}:${x.mib.toFixed(0)}`).join(' ')}`);
  });
}
