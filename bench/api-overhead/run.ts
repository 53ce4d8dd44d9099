// Throughput of the auth + quota path against a bare restify route, measured in the same run.
//   node --import tsx bench/api-overhead/run.ts [--rounds 5] [--seconds 10] [--connections 50]
// Needs wrk (apt-get install wrk). Each round starts each server as a fresh process, warms it for 2 s,
// then measures; the order alternates per round. Reports medians and the paired per-round ratios.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });
const here = path.dirname(fileURLToPath(import.meta.url));
const keysFile = path.join(os.tmpdir(), `pdi-bench-keys-${process.pid}.txt`);
// Both servers get the same requests through the same wrk script (the key rotation runs in wrk's Lua, which
// costs the load generator CPU on this 2-core machine): the bare server simply ignores the header.
const bareKeysFile = path.join(os.tmpdir(), `pdi-bench-bare-keys-${process.pid}.txt`);
fs.writeFileSync(bareKeysFile, Array.from({ length: 2000 }, (_, i) => `pdi_live_${String(i).padStart(32, 'x')}`).join('\n') + '\n');

interface Result { rps: number; p50: number; p99: number; non2xx: number }

function start(mode: 'bare' | 'app'): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--disable-warning=DEP0111', '--import', 'tsx', path.join(here, 'server.ts'), mode, keysFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /READY (\d+)/.exec(d.toString());
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited ${code}`)));
  });
}

function wrk(port: number, seconds: number, mode: 'bare' | 'app'): Result {
  const args = ['-t1', `-c${values.connections}`, `-d${seconds}s`, '--latency', '-s', path.join(here, '../rotate-keys.lua'), `http://127.0.0.1:${port}/v1/bench`];
  const out = execFileSync('wrk', args, { encoding: 'utf8', env: { ...process.env, PDI_BENCH_KEYS: mode === 'app' ? keysFile : bareKeysFile } });
  const ms = (s: string) => (s.endsWith('us') ? parseFloat(s) / 1000 : s.endsWith('ms') ? parseFloat(s) : parseFloat(s) * 1000);
  return {
    rps: parseFloat(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    p50: ms(/^\s+50%\s+(\S+)/m.exec(out)![1]),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(out)![1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

async function measure(mode: 'bare' | 'app'): Promise<Result> {
  const { child, port } = await start(mode);
  try {
    wrk(port, 2, mode);
    return wrk(port, Number(values.seconds), mode);
  } finally {
    child.kill('SIGKILL');
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rounds: { bare: Result; app: Result }[] = [];
for (let r = 0; r < Number(values.rounds); r++) {
  const order: ('bare' | 'app')[] = r % 2 === 0 ? ['bare', 'app'] : ['app', 'bare'];
  const round = {} as { bare: Result; app: Result };
  for (const mode of order) round[mode] = await measure(mode);
  rounds.push(round);
  process.stderr.write(`round ${r + 1}: bare ${round.bare.rps.toFixed(0)} req/s, app ${round.app.rps.toFixed(0)} req/s, ratio ${(round.app.rps / round.bare.rps).toFixed(3)}${round.app.non2xx ? `, app non-2xx ${round.app.non2xx}` : ''}\n`);
}
fs.rmSync(keysFile, { force: true });
fs.rmSync(bareKeysFile, { force: true });
const summary = {
  rounds: rounds.length,
  seconds: Number(values.seconds),
  connections: Number(values.connections),
  bare: { median_rps: median(rounds.map((r) => r.bare.rps)), median_p50_ms: median(rounds.map((r) => r.bare.p50)), median_p99_ms: median(rounds.map((r) => r.bare.p99)) },
  app: { median_rps: median(rounds.map((r) => r.app.rps)), median_p50_ms: median(rounds.map((r) => r.app.p50)), median_p99_ms: median(rounds.map((r) => r.app.p99)), non2xx: rounds.reduce((s, r) => s + r.app.non2xx, 0) },
  ratio_of_medians: median(rounds.map((r) => r.app.rps)) / median(rounds.map((r) => r.bare.rps)),
  paired_ratios: rounds.map((r) => +(r.app.rps / r.bare.rps).toFixed(3)),
  median_paired_ratio: median(rounds.map((r) => r.app.rps / r.bare.rps)),
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
