// The server's JSON log lines: each key once per line, whichever component wrote it.
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { startTestApp } from '../helpers/app.js';

/** The top-level keys of a JSON object line in order, duplicates kept (JSON.parse keeps only the last). */
function keysOf(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      let j = i + 1;
      while (line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) keys.push(JSON.parse(line.slice(i, j + 1)) as string);
      expectKey = false;
      i = j;
    } else if (c === '{' || c === '[') {
      depth++;
      expectKey = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 1) expectKey = true;
  }
  return keys;
}

t.test('when the dashboard logs a refused sign-in, then its line names its component once', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'info', base: undefined }, sink);
  const app = await startTestApp(t, { logger, env: { PDI_ADMIN_TOKEN: 'f3c1a9e07b5d42e88a6c0b1d9e2f4a7c' } });
  const res = await app.request('/dashboard/sign-in', {
    method: 'POST',
    rawBody: 'token=wrong',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(res.status, 401);
  const refused = lines.filter((l) => l.includes('sign-in refused'));
  t.equal(refused.length, 1, 'the refusal is logged');
  for (const line of refused) {
    const keys = keysOf(line);
    t.same(
      keys.filter((k, i) => keys.indexOf(k) !== i),
      [],
      line,
    );
    t.equal(JSON.parse(line).component, 'dashboard');
  }
});
