// One organization's heavy work must not slow another's requests. Organization B's latencies
// alone, then while organization A works:
//   --scenario reports: A generates three reports for the name ΔΗΜΟΣ at once (--reports N of --report
//     ID --report-type afm|ada|name); B measures GET /healthz and GET /v1/search until all are written.
//   --scenario mcp: A's one key keeps 8 POSTs of 100 resolve_entity calls (ΔΗΜΟΣ) in flight, each sent
//     again when answered; B measures GET /v1/entity of a small entity (an ΑΦΜ of the corpus).
// Target: B's p99 while A works within 2x of its p99 alone.
//   node --import tsx bench/tenant-work.ts --scenario reports|mcp [--data DIR] [--samples 200] [--server DIR] [--reports 3 --report ΔΗΜΟΣ --report-type name]
// --data: a data folder with the demo corpus (default: a fresh one, loaded by pdi demo: a few minutes).
// A's MCP client runs in a process of its own, so that its work does not delay B's answers client-side.
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { accountsDbPath, openDatabase } from '../api/db/database.js';
import { KeyStore } from '../api/db/keys.js';
import { startBenchApi } from './api-server.js';
import { percentile } from './percentile.js';

const NAME = 'ΔΗΜΟΣ';

interface McpJob {
  url: string;
  key: string;
  posts: number;
  calls: number;
}

/** A's MCP client, in its own process: `posts` loops of one batch each until told to stop, then what came back. */
async function mcpFlood({ url, key, posts, calls }: McpJob): Promise<void> {
  let flooding = true;
  process.once('message', () => (flooding = false));
  const outcomes: Record<string, number> = {};
  const batch = JSON.stringify(
    Array.from({ length: calls }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'resolve_entity', arguments: { identifier: NAME, type: 'name' } },
    })),
  );
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  await Promise.all(
    Array.from({ length: posts }, async () => {
      while (flooding) {
        const res = await fetch(`${url}/mcp`, { method: 'POST', headers, body: batch });
        const body = (await res.json()) as { error?: { data?: { status?: number } }; result?: { isError?: boolean } }[] | object;
        if (!Array.isArray(body)) {
          outcomes[`http ${res.status}`] = (outcomes[`http ${res.status}`] ?? 0) + 1;
          continue;
        }
        for (const m of body) {
          const kind = m.error ? `error ${m.error.data?.status ?? ''}` : m.result?.isError ? 'tool error' : 'result';
          outcomes[kind] = (outcomes[kind] ?? 0) + 1;
        }
      }
    }),
  );
  await new Promise((r) => process.send!(outcomes, r));
}

const MCP_JOB = process.env.PDI_BENCH_MCP_JOB;
if (MCP_JOB) {
  await mcpFlood(JSON.parse(MCP_JOB) as McpJob);
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    scenario: { type: 'string' },
    data: { type: 'string' },
    samples: { type: 'string', default: '200' },
    server: { type: 'string' },
    // The reports scenario's entity and how many reports of it A asks for at once.
    report: { type: 'string', default: NAME },
    'report-type': { type: 'string', default: 'name' },
    reports: { type: 'string', default: '3' },
  },
});
const SCENARIO = values.scenario;
if (SCENARIO !== 'reports' && SCENARIO !== 'mcp') throw new Error('--scenario reports or --scenario mcp');
const SAMPLES = Number(values.samples);
const dataDir = values.data ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-tenant-work-'));
const db = openDatabase(accountsDbPath(dataDir));
const store = new KeyStore(db);
const busy = store.create('Busy Ltd', 'enterprise').key;
// B's requests rotate over keys of its organization: a run of the reports scenario takes more than one key's daily quota.
const others = Array.from({ length: 10 }, () => store.create('Other SA', 'enterprise').key);
db.close();
if (!values.data) {
  execFileSync(process.execPath, ['bin/pdi.js', 'demo'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { ...process.env, PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
}
const api = await startBenchApi(dataDir, {}, values.server ? path.resolve(values.server) : undefined);
let turn = 0;
const call = async (p: string, key: string | null, init: RequestInit = {}) => {
  const res = await fetch(`${api.url}${p}`, { ...init, headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), 'Content-Type': 'application/json' } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${p} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
};

/** B's answers that were not 200, by path and status: counted, not fatal (a 503 of /healthz is a finding). */
const refused: Record<string, number> = {};

/** One timed request of B's; its key in turn. */
async function timed(p: string, key: boolean): Promise<number> {
  const t0 = performance.now();
  let status: number | string;
  try {
    const res = await fetch(`${api.url}${p}`, { headers: key ? { Authorization: `Bearer ${others[turn++ % others.length]!}` } : {} });
    await res.arrayBuffer();
    status = res.status;
  } catch (err) {
    // A kept-alive connection the server closed while it was blocked past its keep-alive timeout.
    status = ((err as Error).cause as { code?: string } | undefined)?.code ?? 'network error';
  }
  const ms = performance.now() - t0;
  if (status !== 200) {
    const what = `${p.split('?')[0]} ${status}`;
    refused[what] = (refused[what] ?? 0) + 1;
  }
  return ms;
}

/** B's latencies of each path, taken in turn: SAMPLES of each, or for as long as `until` is pending. */
async function sample(paths: { path: string; key: boolean }[], until?: Promise<unknown>): Promise<number[][]> {
  const ms = paths.map(() => [] as number[]);
  let done = until === undefined;
  void until?.then(() => (done = true));
  for (let i = 0; until ? !done : i < SAMPLES; i++) {
    for (const [j, p] of paths.entries()) ms[j]!.push(await timed(p.path, p.key));
  }
  return ms.map((xs) => xs.sort((a, b) => a - b));
}

const p = (xs: number[], q: number) => +percentile(xs, q).toFixed(1);
const figures = (alone: number[], loaded: number[]) => ({
  alone: { n: alone.length, p50_ms: p(alone, 50), p99_ms: p(alone, 99) },
  loaded: { n: loaded.length, p50_ms: p(loaded, 50), p99_ms: p(loaded, 99), max_ms: p(loaded, 100) },
  p99_ratio: +(percentile(loaded, 99) / percentile(alone, 99)).toFixed(2),
});
const started = performance.now();
let result: Record<string, unknown>;

if (SCENARIO === 'reports') {
  const paths = [
    { path: '/healthz', key: false },
    { path: `/v1/search?q=${encodeURIComponent('σύμβαση προμήθειας')}`, key: true },
  ];
  const [healthAlone, searchAlone] = await sample(paths);
  const t0 = performance.now();
  const body = JSON.stringify({ entity_identifier: values.report, identifier_type: values['report-type'] });
  const ids = await Promise.all(
    Array.from({ length: Number(values.reports) }, async () => (await call('/v1/reports', busy, { method: 'POST', body })).id as string),
  );
  const written = (async () => {
    for (;;) {
      // A poll on a connection the blocked server reset is sent again at the next turn; a refusal ends the run.
      const rows = await Promise.all(
        ids.map((id) =>
          call(`/v1/reports/${id}`, busy).catch((err: Error) => {
            if (err instanceof TypeError) return { status: 'pending' };
            throw err;
          }),
        ),
      );
      if (rows.every((r) => r.status !== 'pending')) return { ms: Math.round(performance.now() - t0), rows };
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const [healthLoaded, searchLoaded] = await sample(paths, written);
  const { ms, rows } = await written;
  result = {
    reports: {
      count: ids.length,
      statuses: rows.map((r) => r.status),
      documents: rows.map((r) => (r.report_json ? JSON.parse(r.report_json).documents.covered : null)),
      all_written_ms: ms,
    },
    healthz: figures(healthAlone!, healthLoaded!),
    search: figures(searchAlone!, searchLoaded!),
  };
} else {
  // A small entity: a counterparty of ΔΗΜΟΣ with an ΑΦΜ (a supplier of some municipality).
  const dimos = await call(`/v1/entity/${encodeURIComponent(NAME)}?type=name&limit=1`, others[0]!);
  const afm = (dimos.counterparties as { afm: string | null }[]).find((c) => c.afm)!.afm!;
  const paths = [{ path: `/v1/entity/${afm}?type=afm`, key: true }];
  const [alone] = await sample(paths);
  const job: McpJob = { url: api.url, key: busy, posts: 8, calls: 100 };
  const client = fork(new URL(import.meta.url), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, PDI_BENCH_MCP_JOB: JSON.stringify(job) } });
  await new Promise((r) => setTimeout(r, 2000));
  const [loaded] = await sample(paths);
  const outcomes = await new Promise<Record<string, number>>((resolve) => {
    client.once('message', (m) => resolve(m as Record<string, number>));
    client.send('stop');
  });
  result = { mcp: { posts: job.posts, calls_per_post: job.calls, outcomes }, entity: { afm, ...figures(alone!, loaded!) } };
}
api.stop();
process.stdout.write(
  `${JSON.stringify(
    {
      scenario: SCENARIO,
      server: values.server ?? '.',
      samples: SAMPLES,
      cpus: os.availableParallelism(),
      node: process.version,
      load_average: os.loadavg().map((l) => +l.toFixed(1)),
      run_s: Math.round((performance.now() - started) / 1000),
      not_200: refused,
      ...result,
    },
    null,
    2,
  )}\n`,
);
process.exit(0);
