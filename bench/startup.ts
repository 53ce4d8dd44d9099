// Start time and memory of the `pdi` command and of the server, run from the TypeScript sources
// through tsx (as before the build) and compiled (dist/, `npm run build`), interleaved in one run so
// that the shared machine's load falls on both alike. Medians of --runs; CPU is user + system time.
//
//   npm run build && node --import tsx bench/startup.ts [--runs 7]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from './api-server.js';
import { percentile } from './percentile.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const RUNS = Number(values.runs);
const TICK_S = 0.01; // /proc/<pid>/stat counts CPU time in clock ticks of 1/100 s

const MODES = {
  source: { cli: ['--import', 'tsx', 'cli/pdi.ts'], server: ['--import', 'tsx', 'api/server.ts'] },
  compiled: { cli: ['bin/pdi.js'], server: ['dist/api/server.js'] },
} as const;
type Mode = keyof typeof MODES;

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** Wall and CPU seconds of one `pdi` run, through /usr/bin/time. */
function timeCli(mode: Mode, args: string[], dataDir: string): { wall: number; cpu: number } {
  const run = spawnSync('/usr/bin/time', ['-f', '@@ %e %U %S', process.execPath, ...MODES[mode].cli, ...args], {
    cwd: ROOT,
    env: { ...process.env, PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PDI_MODEL_DIR: '' },
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const times = /@@ (\S+) (\S+) (\S+)/.exec(run.stderr);
  if (run.status !== 0 || !times) throw new Error(`pdi ${args.join(' ')} (${mode}) failed: ${run.stderr}`);
  const [wall, user, sys] = times.slice(1).map(Number);
  return { wall, cpu: user + sys };
}

/** Seconds from spawn to the first 200 of /healthz, the CPU spent by then, and the memory then. */
async function timeServer(mode: Mode): Promise<{ wall: number; cpu: number; rssMiB: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-startup-'));
  const port = await freePort();
  const started = performance.now();
  const server = spawn(process.execPath, MODES[mode].server, {
    cwd: ROOT,
    stdio: 'ignore',
    env: { ...process.env, PDI_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PDI_DEMO: '0', LOG_LEVEL: 'error', PDI_MODEL_DIR: '' },
  });
  try {
    while (
      !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (server.exitCode !== null) throw new Error(`the ${mode} server exited (${server.exitCode})`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const wall = (performance.now() - started) / 1000;
    const stat = fs.readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const cpu = (Number(stat[11]) + Number(stat[12])) * TICK_S; // utime, stime (fields 14, 15)
    const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]);
    return { wall, cpu, rssMiB: rss / 1024 };
  } finally {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const samples = new Map<string, number[]>();
const add = (key: string, v: number) => samples.set(key, [...(samples.get(key) ?? []), v]);

console.log(
  `load average at start: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${os.cpus().length} cores; Node ${process.version}`,
);
const cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-startup-cli-'));
timeCli('compiled', ['status'], cliDir); // creates the data folder's databases, so every measured run finds them
for (let i = 0; i < RUNS; i++) {
  for (const mode of Object.keys(MODES) as Mode[]) {
    for (const [name, args] of [
      ['pdi --help', ['--help']],
      ['pdi status', ['status']],
    ] as const) {
      const { wall, cpu } = timeCli(mode, [...args], cliDir);
      add(`${name}|${mode}|wall`, wall);
      add(`${name}|${mode}|cpu`, cpu);
    }
    const s = await timeServer(mode);
    add(`server|${mode}|wall`, s.wall);
    add(`server|${mode}|cpu`, s.cpu);
    add(`server|${mode}|rss`, s.rssMiB);
  }
}
fs.rmSync(cliDir, { recursive: true, force: true });

console.log(`| what | source (tsx) | compiled (dist) |\n|---|---|---|`);
for (const what of ['pdi --help', 'pdi status', 'server']) {
  for (const [metric, unit] of [
    ['wall', 's'],
    ['cpu', 's CPU'],
    ['rss', 'MiB RSS'],
  ] as const) {
    const src = samples.get(`${what}|source|${metric}`);
    if (!src) continue;
    const cmp = samples.get(`${what}|compiled|${metric}`)!;
    const digits = metric === 'rss' ? 0 : 2;
    console.log(
      `| ${what}, ${metric === 'wall' ? (what === 'server' ? 'to first /healthz 200' : 'wall') : unit} | ${median(src).toFixed(digits)}${metric === 'wall' ? ' s' : ''} | ${median(cmp).toFixed(digits)}${metric === 'wall' ? ' s' : ''} |`,
    );
  }
}
console.log(
  `load average at end: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${RUNS} runs of each, medians`,
);
