// Throughput of the auth + quota path against a bare restify route, measured in the same run.
//   node --import tsx bench/api-overhead/run.ts [--rounds 10] [--seconds 4] [--connections 50]
// Needs wrk (apt-get install wrk). Three servers run for the whole run, each in its own process: `bare`
// (restify, one route answered with res.send), `writer` (the same route answered through the app's
// writer, api/middleware/reply.ts) and `app` (createApp with that route behind the real gate). After a warm-up, each round gives every server one wrk
// segment, in an order that rotates per round, so a drift in the machine's speed falls on all alike.
// On a 2-core machine the servers run on CPU 1 and wrk on CPU 0 (taskset), which steadies the figures.
//
// Reported: per-round ratios app/bare and their median; the ratio of the best segments; and each
// server's own CPU time per request (from /proc), which the shared machine moves less than req/s.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '10' }, seconds: { type: 'string', default: '4' }, connections: { type: 'string', default: '50' } },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const here = path.dirname(fileURLToPath(import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-overhead-'));

type Mode = 'bare' | 'writer' | 'app';
const MODES: Mode[] = ['bare', 'writer', 'app'];
interface Server {
  mode: Mode;
  child: ChildProcess;
  port: number;
}
interface Segment {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  cpuUsPerRequest: number;
}

// An Enterprise key allows 1,000 requests a day. Each app segment rotates over its own slice of keys,
// large enough for the segment (300 keys: 300,000 requests), so no key runs out and the key set in
// use stays the size a segment needs.
const KEYS_PER_SEGMENT = 300;
const appKeys = path.join(tmp, 'app-keys.txt');
const otherKeys = path.join(tmp, 'other-keys.txt');
// The other servers get the same requests through the same wrk script and ignore the header.
fs.writeFileSync(otherKeys, Array.from({ length: KEYS_PER_SEGMENT }, (_, i) => `pdi_live_${String(i).padStart(32, 'x')}`).join('\n') + '\n');

const pinned = os.cpus().length === 2 && commandExists('taskset');
function commandExists(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const onCpu = (cpu: number, argv: string[]) => (pinned ? ['taskset', '-c', String(cpu), ...argv] : argv);

function start(mode: Mode): Promise<Server> {
  const [cmd, ...args] = onCpu(1, [process.execPath, '--import', 'tsx', path.join(here, 'server.ts'), mode, appKeys, String((rounds + 1) * KEYS_PER_SEGMENT)]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /READY (\d+)/.exec(d.toString());
      if (m) resolve({ mode, child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited ${code}`)));
  });
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
/** utime + stime of a process, in microseconds (under taskset the child is the server itself). */
function cpuUs(pid: number): number {
  const fields = fs
    .readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

let appSegments = 0;
function segment(server: Server, segmentSeconds: number): Segment {
  let keysFile = otherKeys;
  if (server.mode === 'app') {
    const all = fs.readFileSync(appKeys, 'utf8').trim().split('\n');
    keysFile = path.join(tmp, 'segment-keys.txt');
    fs.writeFileSync(keysFile, all.slice(appSegments * KEYS_PER_SEGMENT, ++appSegments * KEYS_PER_SEGMENT).join('\n') + '\n');
  }
  const [cmd, ...args] = onCpu(0, [
    'wrk',
    '-t1',
    `-c${values.connections}`,
    `-d${segmentSeconds}s`,
    '--latency',
    '-s',
    path.join(here, '../rotate-keys.lua'),
    `http://127.0.0.1:${server.port}/v1/bench`,
  ]);
  const cpuBefore = cpuUs(server.child.pid!);
  const out = execFileSync(cmd, args, { encoding: 'utf8', env: { ...process.env, PDI_BENCH_KEYS: keysFile } });
  const cpu = cpuUs(server.child.pid!) - cpuBefore;
  const ms = (s: string) => (s.endsWith('us') ? parseFloat(s) / 1000 : s.endsWith('ms') ? parseFloat(s) : parseFloat(s) * 1000);
  const requests = Number(/(\d+) requests in/.exec(out)![1]);
  return {
    rps: parseFloat(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)![1]),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(out)![1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    cpuUsPerRequest: cpu / requests,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round3 = (x: number) => +x.toFixed(3);

const servers = {} as Record<Mode, Server>;
try {
  for (const mode of MODES) servers[mode] = await start(mode);
  for (const mode of MODES) segment(servers[mode], 3);
  const results: Record<Mode, Segment>[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = MODES.map((_, i) => MODES[(i + r) % MODES.length]);
    const result = {} as Record<Mode, Segment>;
    for (const mode of order) result[mode] = segment(servers[mode], seconds);
    results.push(result);
    const line = MODES.map((m) => `${m} ${result[m].rps.toFixed(0)} req/s (${result[m].cpuUsPerRequest.toFixed(1)} µs CPU/req)`).join(', ');
    process.stderr.write(
      `round ${r + 1}: ${line}, app/bare ${(result.app.rps / result.bare.rps).toFixed(3)}${result.app.non2xx ? `, app non-2xx ${result.app.non2xx}` : ''}\n`,
    );
  }
  const of = (mode: Mode) => ({
    median_rps: Math.round(median(results.map((r) => r[mode].rps))),
    best_rps: Math.round(Math.max(...results.map((r) => r[mode].rps))),
    median_p50_ms: median(results.map((r) => r[mode].p50)),
    median_p99_ms: median(results.map((r) => r[mode].p99)),
    median_cpu_us_per_request: round3(median(results.map((r) => r[mode].cpuUsPerRequest))),
  });
  const ratios = (a: Mode, b: Mode) => results.map((r) => r[a].rps / r[b].rps);
  const summary = {
    rounds,
    seconds,
    connections: Number(values.connections),
    pinned,
    bare: of('bare'),
    writer: of('writer'),
    app: { ...of('app'), non2xx: results.reduce((s, r) => s + r.app.non2xx, 0) },
    app_vs_bare: {
      per_round: ratios('app', 'bare').map(round3),
      median: round3(median(ratios('app', 'bare'))),
      best_vs_best: round3(of('app').best_rps / of('bare').best_rps),
      // What a CPU-bound server keeps: bare's CPU per request over the app's.
      cpu: round3(median(results.map((r) => r.bare.cpuUsPerRequest / r.app.cpuUsPerRequest))),
    },
    // The gate alone: the same writer with and without admission, the quota headers and the tier.
    app_vs_writer: {
      median: round3(median(ratios('app', 'writer'))),
      cpu: round3(median(results.map((r) => r.writer.cpuUsPerRequest / r.app.cpuUsPerRequest))),
    },
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
} finally {
  for (const s of Object.values(servers)) s.child.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
}
