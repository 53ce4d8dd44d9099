// The api-overhead comparison counted in instructions instead of seconds, for machines whose timing
// is too noisy to show a 10% difference (on one of ours a single run's app/bare ratio ranged 0.60-1.01).
//   node --import tsx bench/api-overhead/instructions.ts [--warmup 5000] [--requests 5000] [--keep] [--against DIR]
// Needs valgrind (apt-get install valgrind). Each server of server.ts (bare, writer, app) runs under
// callgrind with instrumentation off while it starts and answers the warm-up requests (so start-up,
// module loading and JIT warm-up are not counted; 1,000 warm-up requests were too few: the code still
// ran in V8's interpreter, ~7x the instructions), then on for the measured requests only
// (callgrind_control -i on / --dump), sent keep-alive 10 at a time, the app's rotating over its keys.
// callgrind counts the instructions of every thread, whatever else the machine is doing; it does not
// see the kernel (socket reads and writes), which costs all three servers alike, so bare/app here is
// a lower bound of the throughput ratio of a CPU-bound server.
// --against DIR: the same three servers of another checkout (with its node_modules) measured in the same
// run, after this one's: two versions of a dependency (restify 11.1 against 12) compared on one machine state.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values } = parseArgs({
  options: {
    warmup: { type: 'string', default: '5000' },
    requests: { type: 'string', default: '5000' },
    keep: { type: 'boolean', default: false },
    against: { type: 'string' },
  },
});
const warmup = Number(values.warmup);
const measured = Number(values.requests);
const here = path.dirname(fileURLToPath(import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-instr-'));
const run = promisify(execFile);
type Mode = 'bare' | 'writer' | 'app';

/** The checkouts measured: this one, then --against's. */
const trees = [path.resolve(here, '../..'), ...(values.against ? [path.resolve(values.against)] : [])];

async function instructionsPerRequest(tree: string, t: number, mode: Mode): Promise<number> {
  const name = `${t}-${mode}`;
  const out = path.join(tmp, `${name}.callgrind`);
  const keysFile = path.join(tmp, `${name}-keys.txt`);
  // Enterprise keys allow 1,000 requests a day each.
  const keyCount = Math.ceil((warmup + measured) / 900) + 1;
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--import',
      'tsx',
      path.join(tree, 'bench/api-overhead/server.ts'),
      mode,
      keysFile,
      String(keyCount),
    ],
    {
      cwd: tree,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /READY (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited ${code}`)));
  });
  const keys = mode === 'app' ? fs.readFileSync(keysFile, 'utf8').trim().split('\n') : ['pdi_live_' + 'x'.repeat(32)];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  let sent = 0;
  const once = (key: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/v1/bench', agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${mode}: status ${res.statusCode}`))));
      });
      req.on('error', reject);
    });
  // A keep-alive connection the server closed as idle (5 s: callgrind's slowdown between bursts) resets
  // when reused: sent again once, on a new one.
  const one = async () => {
    const key = keys[sent++ % keys.length]!;
    await once(key).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET') throw err;
      return once(key);
    });
  };
  const burst = (count: number) => {
    const until = sent + count;
    return Promise.all(
      Array.from({ length: 10 }, async () => {
        while (sent < until) await one();
      }),
    );
  };
  // callgrind reads a control command only while the program runs: keep a request going until it is done.
  const control = async (args: string[]) => {
    let done = false;
    const command = run('callgrind_control', [...args, String(child.pid)]).finally(() => (done = true));
    const before = sent;
    while (!done) await one();
    await command;
    return sent - before;
  };
  await burst(warmup);
  const during = await control(['--instr=on']);
  await burst(measured);
  const dumpedAfter = await control(['--dump']);
  agent.destroy();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
  const dump = fs
    .readdirSync(tmp)
    .filter((f) => f.startsWith(`${name}.callgrind.`))
    .sort()[0];
  const totals = /^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(path.join(tmp, dump), 'utf8'));
  if (!totals) throw new Error(`no totals in ${dump}`);
  // Requests sent while a command was pending were counted in part; take them as counted in full.
  const requests = measured + during + dumpedAfter;
  process.stderr.write(`${path.basename(tree)} ${mode}: ${totals[1]} instructions for ${measured} requests (+${during + dumpedAfter} while switching)\n`);
  return Number(totals[1]) / requests;
}

const ratio = (x: number, y: number) => +(x / y).toFixed(3);
const results = [];
for (const [t, tree] of trees.entries()) {
  const perRequest = {} as Record<Mode, number>;
  for (const mode of ['bare', 'writer', 'app'] as Mode[]) perRequest[mode] = Math.round(await instructionsPerRequest(tree, t, mode));
  const restify = (JSON.parse(fs.readFileSync(path.join(tree, 'node_modules/restify/package.json'), 'utf8')) as { version: string }).version;
  results.push({
    tree,
    restify,
    node: process.version,
    instructions_per_request: perRequest,
    bare_over_app: ratio(perRequest.bare, perRequest.app),
    writer_over_app: ratio(perRequest.writer, perRequest.app),
  });
}
process.stdout.write(`${JSON.stringify({ warmup, requests: measured, results }, null, 2)}\n`);
// --keep: the dumps stay for callgrind_annotate (where the instructions went).
if (values.keep) process.stderr.write(`callgrind dumps kept in ${tmp}\n`);
else fs.rmSync(tmp, { recursive: true, force: true });
