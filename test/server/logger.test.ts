import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { readableLine, sentenceLine } from '../../lib/logger.js';
import { cliEnv } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

const exec = promisify(execFile);

/** A process that logs one line through createLogger, its stdout a pipe or (under `script`) a terminal. */
async function logOnce(onTerminal: boolean): Promise<string> {
  const code = `const { createLogger } = await import(${JSON.stringify(path.join(REPO_ROOT, 'lib/logger.ts'))});
    createLogger('info').child({ component: 'api' }).info({ url: 'http://127.0.0.1:8000', dataDir: '/tmp/a b' }, 'listening');`;
  const node = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', code];
  const env = cliEnv({ LOG_LEVEL: 'info' });
  if (!onTerminal) return (await exec(node[0], node.slice(1), { cwd: REPO_ROOT, env })).stdout;
  const quoted = node.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return (await exec('script', ['-qec', quoted, '/dev/null'], { cwd: REPO_ROOT, env })).stdout.replace(/\r/g, '');
}

t.test('when stdout is not a terminal, then a log record is one JSON line', async (t) => {
  const lines = (await logOnce(false)).trim().split('\n');
  t.equal(lines.length, 1);
  t.match(JSON.parse(lines[0]), { level: 30, component: 'api', msg: 'listening', url: 'http://127.0.0.1:8000', dataDir: '/tmp/a b' });
});

t.test(
  'when stdout is a terminal, then a log record is one readable line',
  { skip: fs.existsSync('/usr/bin/script') ? false : 'needs script(1) for a terminal' },
  async (t) => {
    const out = (await logOnce(true)).trim();
    t.match(out, /^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}api: listening url=http:\/\/127\.0\.0\.1:8000 dataDir="\/tmp\/a b"$/);
  },
);

t.test('when a record is made readable, then its fields follow the message and an error its stack', async (t) => {
  t.equal(
    readableLine('{"level":40,"time":"2026-11-26T09:30:01.123Z","source":"ted","page":2,"msg":"TED reports timedOut"}'),
    '09:30:01.123 WARN  TED reports timedOut source=ted page=2\n',
  );
  const err = readableLine(
    JSON.stringify({
      level: 50,
      time: '2026-11-26T09:30:01.123Z',
      component: 'api',
      err: { message: 'boom', stack: 'Error: boom\n    at f (a.ts:1:1)' },
      msg: 'request failed',
    }),
  );
  t.equal(err, '09:30:01.123 ERROR api: request failed err=boom\n    at f (a.ts:1:1)\n');
  t.equal(readableLine('not json'), 'not json', 'a line that is not JSON passes through');
});

t.test('when a command logs a warning or an error, then it reads as a sentence with its details', async (t) => {
  t.equal(
    sentenceLine('pdi', '{"level":40,"time":"x","source":"ted","skipped":3,"msg":"records skipped: could not be normalized"}'),
    'pdi: warning: records skipped: could not be normalized (source ted; skipped 3)\n',
  );
  t.equal(sentenceLine('pdi', '{"level":50,"err":{"message":"disk full"},"msg":"ingest run failed"}'), 'pdi: error: ingest run failed (disk full)\n');
});
