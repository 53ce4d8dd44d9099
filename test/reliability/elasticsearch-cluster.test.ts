// A three-node Elasticsearch cluster (scripts/elasticsearch.sh start --nodes 3) with a replica of every
// shard (PDI_ES_REPLICAS=1) loses a node to SIGKILL while `pdi ingest` writes and the real server answers
// a stream of searches; the node killed holds the index's primary shard and, the test arranges, is the
// elected master too. The ingest finishes with every document it acknowledged in the index; searches
// keep answering in full (a 503 with a detail only while the cluster elects, never a 500 or a hang);
// once the node is back the cluster is green and both copies hold every document.
// docs/reliability.md "Elasticsearch cluster losing a node".
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { KeyStore } from '../../api/db/keys.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { Database } from '../../lib/sqlite.js';
import { tempDir } from '../helpers/app.js';
import { cliEnv, pdi } from '../helpers/cli.js';
import { es, privateCluster, randomPrefix } from '../helpers/elasticsearch.js';
import { hit, statusCounts, type Hit } from '../helpers/load.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { CLIENT_TIMEOUT_MS } from '../helpers/reliability.js';
import { startServerProcess, stopServerProcess } from '../helpers/server-process.js';

// Eight series: a seed that costs seconds, whose listing must count all eight throughout.
const SEED = path.join(REPO_ROOT, 'data/demo/elstat');
const INGESTED = path.join(REPO_ROOT, 'data/demo/kimdis');
/** The node is killed once the ingest has stored (so the index acknowledged) this many of its 730. */
const KILL_AT = 100;
const CLIENTS = 4;
const THINK_MS = 150;
const KEYS = 40;
/** Searches before the kill and after the cluster is green again. */
const CALM_MS = 3_000;
const SEARCHES = [
  '/v1/elstat/documents?limit=5',
  `/v1/search?q=${encodeURIComponent('σύμβαση')}`,
  '/v1/kimdis/documents?limit=5',
  `/v1/search?q=${encodeURIComponent('ανεργία')}&source=elstat`,
];

interface Sample extends Hit {
  path: string;
  startedAt: number;
}

interface Copy {
  prirep: 'p' | 'r';
  state: string;
  node: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One Elasticsearch request that must succeed. */
async function must(url: string, method: string, pathAndQuery: string, body?: unknown): Promise<any> {
  const res = await es(url, method, pathAndQuery, body);
  if (res.status !== 200) throw new Error(`${method} ${pathAndQuery}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function masterName(url: string): Promise<string | null> {
  try {
    const body = await must(url, 'GET', '/_cat/master?format=json');
    return body[0]?.node ?? null;
  } catch {
    return null;
  }
}

async function copies(url: string, index: string): Promise<Copy[]> {
  return must(url, 'GET', `/_cat/shards/${index}?format=json&h=prirep,state,node`);
}

/** Health green with every node in and nothing relocating: of the cluster, or of one index. */
async function green(url: string, index = ''): Promise<void> {
  await must(url, 'GET', `/_cluster/health${index && `/${index}`}?wait_for_status=green&wait_for_nodes=3&wait_for_no_relocating_shards=true&timeout=120s`);
}

/**
 * Makes the elected master hold the primary shard (moving the replica off it first if it holds that),
 * so that one kill takes the master, the primary and a node the clients talk to.
 */
async function primaryOnMaster(url: string, index: string): Promise<void> {
  const master = await masterName(url);
  const held = await copies(url, index);
  const primary = held.find((c) => c.prirep === 'p')!.node!;
  if (primary === master) return;
  const names = ((await must(url, 'GET', '/_cat/nodes?format=json&h=name')) as { name: string }[]).map((n) => n.name);
  const move = async (from: string, to: string) => {
    await must(url, 'POST', '/_cluster/reroute?metric=none', { commands: [{ move: { index, shard: 0, from_node: from, to_node: to } }] });
    await green(url, index);
  };
  if (held.some((c) => c.prirep === 'r' && c.node === master)) await move(master!, names.find((n) => n !== master && n !== primary)!);
  await move(primary, master!);
}

function storedIds(dataDir: string, source: string): string[] {
  const db = new Database(DocumentStore.pathIn(dataDir), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT source_id FROM documents WHERE source = ? ORDER BY source_id').pluck().all(source) as string[];
  } finally {
    db.close();
  }
}

t.test(
  'when a node of a three-node cluster with replicas is SIGKILLed during an ingest and searches, then no acknowledged document is lost, searches keep answering, and the copies match once it is back',
  async (t) => {
    const cluster = await privateCluster(t, 'cluster', 3);
    const prefix = randomPrefix();
    const dataDir = tempDir(t);
    const env = { ELASTICSEARCH_URL: cluster.url, PDI_ES_REPLICAS: '1', PDI_INDEX_PREFIX: prefix };
    const seeded = await pdi(dataDir, ['ingest', 'elstat', '--from', SEED], env);
    t.equal(seeded.code, 0, `the seed ingest completes: ${seeded.stderr}`);
    const seedTotal = storedIds(dataDir, 'elstat').length;
    const [index] = Object.keys(await must(cluster.urls[0]!, 'GET', `/_alias/${prefix}-docs`));
    await green(cluster.urls[0]!, index!);
    await primaryOnMaster(cluster.urls[0]!, index!);

    const db = openDatabase(accountsDbPath(dataDir));
    const store = new KeyStore(db);
    const keys = Array.from({ length: KEYS }, (_, i) => store.create(`Cluster ${i}`, 'enterprise').key);
    db.close();
    const server = await startServerProcess(t, { PDI_DATA_DIR: dataDir, ...env });

    const samples: Sample[] = [];
    let running = true;
    let n = 0;
    const client = async (c: number) => {
      while (running) {
        const i = n++;
        const path = SEARCHES[(i + c) % SEARCHES.length]!;
        const startedAt = performance.now();
        samples.push({ ...(await hit(server.url, path, keys[i % KEYS], { timeoutMs: CLIENT_TIMEOUT_MS })), path, startedAt });
        await sleep(THINK_MS);
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    await sleep(CALM_MS);

    // The ingest, and the kill once the index has acknowledged KILL_AT of its documents.
    const ingest = spawn(process.execPath, ['bin/pdi.js', 'ingest', 'kimdis', '--from', INGESTED], {
      cwd: REPO_ROOT,
      env: cliEnv({ PDI_DATA_DIR: dataDir, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let ingestOut = '';
    let ingestErr = '';
    ingest.stdout!.on('data', (chunk: Buffer) => (ingestOut += chunk.toString()));
    ingest.stderr!.on('data', (chunk: Buffer) => (ingestErr += chunk.toString()));
    const ingestExit = new Promise<number | null>((resolve) => ingest.once('exit', (code) => resolve(code)));
    let ingestDone = false;
    void ingestExit.then(() => (ingestDone = true));
    while (!ingestDone && storedIds(dataDir, 'kimdis').length < KILL_AT) await sleep(20);
    t.notOk(ingestDone, 'the ingest was still running when the node was killed');
    const master = await masterName(cluster.urls[0]!);
    const target = (await copies(cluster.urls[0]!, index!)).find((c) => c.prirep === 'p')!.node!;
    const nodes = (await must(cluster.urls[0]!, 'GET', '/_cat/nodes?format=json&h=name,pid,http_address')) as {
      name: string;
      pid: string;
      http_address: string;
    }[];
    const victim = nodes.find((v) => v.name === target)!;
    const ackedAtKill = storedIds(dataDir, 'kimdis').length;
    const load = os.loadavg()[0]!;
    process.kill(Number(victim.pid), 'SIGKILL');
    const killAt = performance.now();
    const survivor = cluster.urls.find((u) => !u.endsWith(`:${victim.http_address.split(':').pop()}`))!;

    // Elected: a surviving node names another master (at once when the master was not the one killed).
    let electedAt = killAt;
    if (master === target) {
      for (;;) {
        const now = await masterName(survivor);
        if (now !== null && now !== target) break;
        await sleep(50);
      }
      electedAt = performance.now();
    }
    // The node starts again at once: a JVM takes tens of seconds to start, which the ingest runs through.
    const restartAt = performance.now();
    let backAt = 0;
    const back = cluster.start().then(() => (backAt = performance.now()));
    const ingestCode = await ingestExit;
    const ingestEndAt = performance.now();
    t.equal(ingestCode, 0, `the ingest finishes: ${ingestErr.slice(-2_000)}`);
    await back;
    await green(survivor);
    const greenAt = performance.now();
    await sleep(CALM_MS);
    running = false;
    await Promise.all(clients);

    // No acknowledged document lost, none twice; the copies agree, through the alias and each on its own.
    const stored = storedIds(dataDir, 'kimdis');
    const search = new ElasticsearchProvider({ url: cluster.url, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384' });
    t.teardown(() => search.close());
    await search.init();
    const indexed: string[] = [];
    let total = 0;
    for (let offset = 0; ; offset += 500) {
      const page = await search.list({ source: 'kimdis', limit: 500, offset });
      total = page.total;
      indexed.push(...page.hits.map((h) => h.doc.source_id));
      if (page.hits.length < 500) break;
    }
    t.ok(stored.length > ackedAtKill, `the ingest stored documents after the kill (${ackedAtKill} before, ${stored.length} in all)`);
    t.same(indexed.sort(), stored, 'the index holds every document the ingest stored (acknowledged)');
    t.equal(total, stored.length, 'each once');
    await must(survivor, 'POST', `/${index}/_refresh`);
    const held = await copies(survivor, index!);
    t.same(
      held.map((c) => c.state),
      ['STARTED', 'STARTED'],
      'both copies started',
    );
    for (const copy of held) {
      for (const [source, want] of [
        ['kimdis', stored.length],
        ['elstat', seedTotal],
      ] as const) {
        const counted = await must(survivor, 'POST', `/${prefix}-docs/_count?preference=_only_nodes:${copy.node}`, { query: { term: { source } } });
        t.equal(counted.count, want, `the ${copy.prirep === 'p' ? 'primary' : 'replica'} on ${copy.node} holds every ${source} document`);
      }
    }

    // Searches: answered throughout, in full; a 503 (with a detail) only from the kill to the election.
    const detail = (s: Sample) => {
      try {
        return typeof JSON.parse(s.body).detail === 'string';
      } catch {
        return false;
      }
    };
    const unavailable = samples.filter((s) => s.status === 503);
    t.same(
      samples
        .filter((s) => s.status !== 200 && !(s.status === 503 && detail(s) && s.startedAt >= killAt && s.startedAt <= electedAt))
        .map((s) => `${s.status} ${s.path} ${s.body.slice(0, 120)}`),
      [],
      'every answer 200, or 503 with a detail while the cluster elected; no 500, no hang',
    );
    const listings = samples.filter((s) => s.status === 200 && s.path.startsWith('/v1/elstat/documents'));
    t.same(
      listings.filter((s) => JSON.parse(s.body).total !== seedTotal).map((s) => JSON.parse(s.body).total),
      [],
      `every listing of the seeded source counts all ${seedTotal} (no partial results)`,
    );
    const degraded = samples.filter((s) => s.startedAt >= killAt && s.at <= greenAt);
    t.ok(degraded.filter((s) => s.status === 200).length > 0, 'searches were answered between the kill and green');
    const api = await hit(server.url, '/v1/kimdis/documents?limit=1', keys[0]);
    t.equal(JSON.parse(api.body).total, stored.length, 'the API counts every stored document');
    t.equal(server.child.exitCode, null, 'the server was never restarted');

    const rel = (at: number) => `${((at - killAt) / 1000).toFixed(1)} s`;
    t.comment(
      `load average ${load.toFixed(1)} at the kill; killed ${target} (pid ${victim.pid}; primary shard${master === target ? ', elected master' : `; master ${master}`}) with ${ackedAtKill} of the ingest's documents acknowledged`,
    );
    t.comment(
      `new master ${master === target ? `after ${rel(electedAt)}` : 'not needed'}; the ingest ended ${rel(ingestEndAt)} after the kill (its summary: ${`${ingestOut}\n${ingestErr}`
        .split('\n')
        .filter((l) => l.startsWith('kimdis:'))
        .pop()}); the node was back ${rel(backAt)} after the kill (its start took ${((backAt - restartAt) / 1000).toFixed(1)} s); green ${((greenAt - backAt) / 1000).toFixed(1)} s after the node was back (${rel(greenAt)} after the kill)`,
    );
    t.comment(
      `requests: ${samples.length}, ${degraded.length} between the kill and green: ${JSON.stringify(statusCounts(degraded))}; 503s: ${unavailable.length}${unavailable.length ? ` from ${rel(unavailable[0]!.startedAt)} to ${rel(unavailable.at(-1)!.at)}` : ''}; slowest answer ${Math.round(Math.max(...samples.map((s) => s.ms)))} ms, slowest from the kill to green ${Math.round(Math.max(...degraded.map((s) => s.ms)))} ms; the server logged ${server.lines.filter((l) => l.msg === 'engine unavailable').length} engine calls unavailable`,
    );
    await stopServerProcess(server);
  },
);
