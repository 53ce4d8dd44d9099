// What an upstream sends is data: its text never drives the operator's terminal, and a page past its
// source's bound is refused before it is held in memory.
import t from 'tap';
import { tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';
import { startUpstream } from '../helpers/loopback-upstream.js';

// Clears the screen, then a hyperlink (OSC 8) whose text hides where it leads.
const HOSTILE = '\u001b[2J\u001b]8;;https://evil.example/\u0007click here\u001b]8;;\u0007';
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

t.test('when an upstream text holds terminal escape sequences, then pdi ingest and pdi status print them escaped', async (t) => {
  const upstream = await startUpstream(() => ({ headers: { 'content-type': 'application/json' }, body: HOSTILE }));
  t.teardown(upstream.close);
  const dir = tempDir(t);
  const run = await pdi(dir, ['ingest', 'kimdis', '--base-url', upstream.url]);
  t.equal(run.code, 1, 'the run failed: the page is no JSON');
  t.match(run.stdout, /FAILED: .*\\u001b\[2J/, 'the upstream text is shown, escaped');
  t.notMatch(run.stdout + run.stderr, RAW_CONTROL, 'no raw control character reaches the terminal');

  const status = await pdi(dir, ['status']);
  t.match(status.stdout, /kimdis .*last ingest failed .*\\u001b\[2J/, 'the stored run error, escaped');
  t.notMatch(status.stdout + status.stderr, RAW_CONTROL);
  const json = await pdi(dir, ['status', '--json']);
  t.notMatch(json.stdout, RAW_CONTROL);
  t.match(JSON.parse(json.stdout).sources.kimdis.last_run.error, '\u001b[2J', 'the JSON still holds the text itself');
});

t.test('when a page is larger than its source allows, then the run fails saying so, before holding it', async (t) => {
  // KIMDIS pages are ~20 KB; its bound is 16 MiB (ingest/sources/kimdis). Sent in chunks, no length.
  const chunk = ' '.repeat(2 ** 20);
  const upstream = await startUpstream((_req, _i, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const more = () => {
      while (sent < 40 && res.write(chunk)) sent++;
      if (sent < 40) res.once('drain', more);
      else res.end('{}');
    };
    res.on('close', () => (sent = 40));
    more();
    return null;
  });
  t.teardown(upstream.close);
  const run = await pdi(tempDir(t), ['ingest', 'kimdis', '--base-url', upstream.url]);
  t.equal(run.code, 1);
  t.match(run.stdout, /FAILED: POST \S+ sent a body over 16 MiB, more than this client accepts \(a page this large is an upstream fault\)/);
});
