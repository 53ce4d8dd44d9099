// What serving HTTPS in the API process costs, against plain HTTP, in the server's own CPU time a request
// (from /proc, which a shared machine moves less than requests/s).
//   node --import tsx bench/tls.ts [--rounds 3] [--seconds 5]
// Needs wrk and openssl. Two real servers (api/server.ts, embedded engine, no demo corpus), one plain and
// one with a self-signed P-256 certificate made here, each its own process; wrk sends GET /v1/models
// (the public route: no key, so the quota is not what is measured) from 10 connections, kept alive or
// closed after each request (`Connection: close`: a TCP and, over HTTPS, a TLS handshake each).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { wrkPercentile, wrkRequestsPerSecond } from './wrk.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-tls-'));
const TICK_US = 1_000_000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'key.pem',
    '-out',
    'cert.pem',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
  ],
  { cwd: tmp, stdio: 'ignore' },
);

interface Server {
  child: ChildProcess;
  url: string;
}

async function start(name: string, tls: boolean): Promise<Server> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PDI_DATA_DIR: path.join(tmp, name),
    PDI_DEMO: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...(tls ? { PDI_TLS_CERT: path.join(tmp, 'cert.pem'), PDI_TLS_KEY: path.join(tmp, 'key.pem') } : {}),
  };
  delete env.ELASTICSEARCH_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"url":"([^"]+)"/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`${name} server exited (${code})`)));
  });
  child.stdout!.resume();
  return { child, url };
}

/** User + system CPU time of a process so far, in µs. */
function cpuUs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

function segment(server: Server, close: boolean) {
  const args = ['-t1', '-c10', `-d${seconds}s`, '--latency', ...(close ? ['-H', 'Connection: close'] : []), `${server.url}/v1/models`];
  const before = cpuUs(server.child.pid!);
  const out = execFileSync('wrk', args, { encoding: 'utf8' });
  const cpu = cpuUs(server.child.pid!) - before;
  const requests = Number(/(\d+) requests in/.exec(out)![1]);
  return { rps: wrkRequestsPerSecond(out), p99_ms: wrkPercentile(out, 99), cpu_us_per_request: +(cpu / requests).toFixed(1) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const servers = { http: await start('http', false), https: await start('https', true) };
try {
  const modes = [
    ['http', false],
    ['https', false],
    ['http', true],
    ['https', true],
  ] as const;
  for (const [name, close] of modes) segment(servers[name], close); // warm-up
  const results: Record<string, ReturnType<typeof segment>[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, close] of r % 2 ? [...modes].reverse() : modes) {
      const label = `${name} ${close ? 'new connection each' : 'keep-alive'}`;
      const s = segment(servers[name], close);
      (results[label] ??= []).push(s);
      process.stderr.write(`round ${r + 1}: ${label}: ${s.rps} req/s, ${s.cpu_us_per_request} µs CPU a request\n`);
    }
  }
  const summary = Object.fromEntries(
    Object.entries(results).map(([label, ss]) => [
      label,
      {
        median_rps: median(ss.map((s) => s.rps)),
        median_cpu_us_per_request: median(ss.map((s) => s.cpu_us_per_request)),
        median_p99_ms: median(ss.map((s) => s.p99_ms ?? NaN)),
      },
    ]),
  );
  process.stdout.write(`${JSON.stringify({ rounds, seconds, load_average: os.loadavg().map((l) => +l.toFixed(2)), summary }, null, 2)}\n`);
} finally {
  for (const s of Object.values(servers)) s.child.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
