// A first `npm start` on a fresh data folder and an empty model cache (PDI_CACHE_DIR a new folder, so
// ~/.cache/pdi is left alone): seconds from the start to each logged stage of the model fetch and switch,
// and to the first ask answered with the model. Needs Python 3 with venv and PyPI.
//
//   node --import tsx bench/first-start.ts [--keep]      # --keep leaves the two folders and prints them
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/paths.js';

const keep = process.argv.includes('--keep');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-first-start-data-'));
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-first-start-cache-'));
const env: NodeJS.ProcessEnv = { ...process.env, PDI_DATA_DIR: dataDir, PDI_CACHE_DIR: cacheDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
for (const name of ['PDI_MODEL_DIR', 'PDI_EMBED_URL', 'PDI_MODEL_FETCH', 'ELASTICSEARCH_URL', 'PDI_DEMO']) delete env[name];

const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `load average at start: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
const npm = spawn('npm', ['start'], { cwd: PROJECT_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
npm.once('exit', (code, signal) => process.stdout.write(`${seconds().padStart(7)} s  npm start exited (${signal ?? code})\n`));
let url: string | null = null;
let partial = '';
let switched = false;
const marks = /listening|fetch|model|demo corpus loaded|python3/;
npm.stdout!.on('data', (chunk: Buffer) => {
  const lines = (partial + chunk.toString()).split('\n');
  partial = lines.pop()!;
  for (const text of lines) {
    let line: { msg?: string; url?: string; level?: number };
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    if (line.msg === 'listening') url = line.url!;
    if (line.msg?.startsWith('serving with the embedding model')) switched = true;
    if (marks.test(line.msg ?? '') || (line.level ?? 0) >= 40) process.stdout.write(`${seconds().padStart(7)} s  ${line.msg}\n`);
  }
});

/** A kept-alive connection the server closes as the request goes out is a reset: asked again once. */
async function retried(input: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch {
    return fetch(input, init);
  }
}

try {
  while (!url) await new Promise((r) => setTimeout(r, 200));
  const key = JSON.parse(
    execFileSync(process.execPath, ['bin/pdi.js', 'keys', 'create', '--org', 'Bench', '--tier', 'enterprise', '--json'], { cwd: PROJECT_ROOT, env }).toString(),
  ).key;
  const ask = () =>
    retried(`${url}/v1/ask`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ question: 'οδοφωτισμός δήμου' }),
    });
  // The demo is answered with the fallback meanwhile.
  process.stdout.write(`${seconds().padStart(7)} s  ask answered ${(await ask()).status} with the fallback\n`);
  for (;;) {
    const models = (await (await retried(`${url}/v1/models`)).json()) as { embedding: { model: string; fallback: boolean } };
    if (switched && !models.embedding.fallback) {
      const res = await ask();
      const body = (await res.json()) as { sources: { title: string }[] };
      process.stdout.write(
        `${seconds().padStart(7)} s  ask answered ${res.status} with ${models.embedding.model}: ${body.sources[0]?.title.slice(0, 80) ?? '(no source)'}\n`,
      );
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  process.stdout.write(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
} finally {
  process.kill(-npm.pid!, 'SIGTERM');
  await new Promise((r) => npm.once('exit', r));
  if (keep) process.stdout.write(`kept ${dataDir} ${cacheDir}\n`);
  else for (const dir of [dataDir, cacheDir]) fs.rmSync(dir, { recursive: true, force: true });
}
