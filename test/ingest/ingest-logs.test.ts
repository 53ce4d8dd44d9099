// The logs of an ingest run as a log shipper reads them: one JSON object a line, no key twice.
import t from 'tap';
import { tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';

/** The keys that occur twice in one object of a JSON text (JSON.parse keeps the last silently). */
function repeatedKeys(json: string): string[] {
  const repeated: string[] = [];
  const objects: Set<string>[] = [];
  const expectKey: boolean[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const keys = objects.at(-1);
      if (keys && expectKey.at(-1)) {
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (keys.has(key)) repeated.push(key);
        keys.add(key);
        expectKey[expectKey.length - 1] = false;
      }
      i = end;
    } else if (c === '{') {
      objects.push(new Set());
      expectKey.push(true);
    } else if (c === '[') {
      objects.push(null as unknown as Set<string>);
      expectKey.push(false);
    } else if (c === '}' || c === ']') {
      objects.pop();
      expectKey.pop();
    } else if (c === ',' && objects.at(-1)) {
      expectKey[expectKey.length - 1] = true;
    }
  }
  return repeated;
}

t.test('when JSON is read for repeated keys, then a key twice in one object is found, and the same key in two objects is not', async (t) => {
  t.same(repeatedKeys('{"source":"ted","a":{"source":1},"b":[{"source":2}],"source":"ted"}'), ['source']);
  t.same(repeatedKeys('{"a":"x\\",\\"a\\":1","b":[1,{"a":1}]}'), []);
});

t.test('when a source is ingested with logs on, then every log line is one JSON object with no key twice', async (t) => {
  const dataDir = tempDir(t);
  const run = await pdi(dataDir, ['ingest', 'elstat', '--from', 'data/demo/elstat'], { LOG_LEVEL: 'info' });
  t.equal(run.code, 0, run.stderr);
  const lines = run.stderr.trim().split('\n');
  const finished = lines.filter((l) => l.includes('"msg":"ingest run finished"'));
  t.equal(finished.length, 1, 'the run logged its end');
  t.match(JSON.parse(finished[0]), { source: 'elstat', status: 'succeeded' });
  for (const line of lines) t.same(repeatedKeys(line), [], line.slice(0, 120));
});
