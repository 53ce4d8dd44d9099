// The ingest pipeline end to end: a real source module (KIMDIS) against a loopback server replaying its
// page format, the real CLI process, the embedded engine, the document store and checkpoints.
import { execFileSync, spawn } from 'node:child_process';
import { constants } from 'node:buffer';
import { Database } from '../../lib/sqlite.js';
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test as Tap } from 'tap';
import { ServerLock } from '../../lib/server-lock.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { contentHash } from '../../ingest/stages/hash.js';
import { IngestState } from '../../ingest/state/store.js';
import { request, startTestApp, tempDir } from '../helpers/app.js';
import { FIXTURES, REPO_ROOT, skipWithoutFixtures } from '../helpers/paths.js';
import { cliEnv, holdSource, pdi as runCli } from '../helpers/cli.js';
import { startUpstream, type Responder } from '../helpers/loopback-upstream.js';

skipWithoutFixtures();

const template = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'kimdis/contract_page_anonymized_shape.json'), 'utf8'));
const item = template.content[0];
const PAGES = 4;
const PER_PAGE = 5;
const since = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);

/** Page N of the KIMDIS /contract resource, in its real envelope, with unique reference numbers. */
function page(n: number, perPage = PER_PAGE) {
  const content = Array.from({ length: perPage }, (_, i) => ({
    ...item,
    referenceNumber: `26SYMV0192${String(n).padStart(3, '0')}${String(i).padStart(2, '0')}`,
    title: `${item.title} — σελίδα ${n} αρ. ${i}`,
  }));
  return {
    ...template,
    content,
    number: n,
    first: n === 0,
    last: n === PAGES - 1,
    numberOfElements: perPage,
    totalElements: PAGES * perPage,
    totalPages: PAGES,
  };
}

const pageOf = (req: { query: URLSearchParams }) => Number(req.query.get('page'));
const ZERO = { fetched: 0, new: 0, updated: 0, unchanged: 0, failed: 0 };

async function replayServer(t: Tap, respond: Responder) {
  const upstream = await startUpstream(respond);
  t.teardown(upstream.close);
  return upstream;
}

const pdi = (dataDir: string, ...args: string[]) => runCli(dataDir, args);

function storedIds(dataDir: string): string[] {
  const store = new DocumentStore(DocumentStore.pathIn(dataDir));
  try {
    return store.db.prepare('SELECT source_id FROM documents ORDER BY source_id').pluck().all() as string[];
  } finally {
    store.close();
  }
}

t.test('when an ingest process is killed midway, then the next run resumes from its checkpoint with nothing lost or duplicated', async (t) => {
  const dataDir = tempDir(t);
  let hang = true;
  let sawPage2!: () => void;
  const reachedPage2 = new Promise<void>((r) => (sawPage2 = r));
  const upstream = await replayServer(t, (req) => {
    const n = pageOf(req);
    if (n === 2 && hang) {
      sawPage2(); // page 1 is flushed and checkpointed before page 2 is asked for
      return null; // never answers: the process is killed while waiting
    }
    return { body: page(n) };
  });

  const child = spawn(process.execPath, ['bin/pdi.js', 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url], {
    cwd: REPO_ROOT,
    env: cliEnv({ PDI_DATA_DIR: dataDir }),
    stdio: 'ignore',
  });
  await reachedPage2;
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));

  // One page's write may still have been in flight at the kill: the checkpoint points at page 1 or 2,
  // and what is stored is covered by it, or at most that one page ahead (written, not yet checkpointed).
  const state = new IngestState(IngestState.pathIn(dataDir));
  const cp = state.checkpoint('kimdis') as { resource: string; page: number };
  state.close();
  const storedBefore = storedIds(dataDir).length;
  t.equal(cp.resource, 'contract');
  const status = JSON.parse((await pdi(dataDir, 'status', '--json')).stdout);
  t.match(
    status.sources.kimdis,
    { running_pid: null, last_run: { status: 'failed', error: 'interrupted: its process ended before the run finished' } },
    'status tells of the killed run before the next run closes it',
  );
  t.ok(cp.page === 1 || cp.page === 2, `checkpoint at page ${cp.page}`);
  t.ok(storedBefore === cp.page * PER_PAGE || storedBefore === (cp.page + 1) * PER_PAGE, `${storedBefore} stored for checkpoint page ${cp.page}`);

  hang = false;
  const before = upstream.requests.length;
  const resumed = await pdi(dataDir, 'ingest', 'kimdis', '--base-url', upstream.url);
  t.equal(resumed.code, 0, resumed.stderr);
  const refetched = (PAGES - cp.page) * PER_PAGE;
  const fresh = PAGES * PER_PAGE - storedBefore;
  t.match(
    resumed.stdout,
    new RegExp(
      `kimdis: pages ${PAGES - cp.page}  fetched ${refetched}  new ${fresh}  updated 0  unchanged ${refetched - fresh}  failed 0  \\([\\d.]+ s, [\\d.]+ documents/s\\) done\n`,
    ),
    'one line for the run, with its rate',
  );
  t.same(
    upstream.requests.slice(before).map(pageOf),
    Array.from({ length: PAGES - cp.page }, (_, i) => cp.page + i),
    'resumed at the checkpoint, not from the start',
  );

  const ids = storedIds(dataDir);
  t.equal(ids.length, PAGES * PER_PAGE);
  t.equal(new Set(ids).size, ids.length, 'no duplicates');
  const log = new IngestState(IngestState.pathIn(dataDir));
  const runs = log.db.prepare("SELECT status, error FROM runs WHERE source = 'kimdis' ORDER BY id").all();
  log.close();
  t.same(
    runs,
    [
      { status: 'failed', error: 'interrupted: its process ended before the run finished' },
      { status: 'succeeded', error: null },
    ],
    'the killed run is closed as interrupted when the next run takes the lock, not left running',
  );

  // The index agrees with the store, and a new API process sees the documents.
  const app = await startTestApp(t, { dataDir });
  const listed = await request(app.url, '/v1/kimdis/documents?limit=1000', { key: app.key('pro') });
  t.equal(listed.body.total, PAGES * PER_PAGE);
  t.same(listed.body.documents.map((d: { source_id: string }) => d.source_id).sort(), ids);
});

t.test(
  'when an ingest is interrupted by Ctrl-C or SIGTERM, then the request under way ends, the run is closed as interrupted and the source released, and the exit code says which signal',
  async (t) => {
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const dataDir = tempDir(t);
      let sawPage2!: () => void;
      const reachedPage2 = new Promise<void>((r) => (sawPage2 = r));
      const upstream = await replayServer(t, (req) => {
        if (pageOf(req) < 2) return { body: page(pageOf(req)) };
        sawPage2();
        return null; // never answers: only the stop ends the wait
      });
      const child = spawn(process.execPath, ['bin/pdi.js', 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url], {
        cwd: REPO_ROOT,
        env: cliEnv({ PDI_DATA_DIR: dataDir }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      await reachedPage2;
      child.kill(signal);
      const [exitCode] = await new Promise<[number | null]>((r) => child.once('exit', (c) => r([c])));
      t.equal(exitCode, code, signal);
      t.match(stderr, `pdi: ${signal}: stopping the run under way`);
      t.match(stdout, new RegExp(`^kimdis: pages 2  fetched 10 .* FAILED: stopped before the end: interrupted \\(${signal}\\)$`, 'm'));
      const status = JSON.parse((await pdi(dataDir, 'status', '--json')).stdout);
      t.match(
        status.sources.kimdis,
        {
          running_pid: null,
          checkpoint: { page: 2 },
          last_run: { status: 'failed', error: `stopped before the end: interrupted (${signal})`, fetched: 10 },
        },
        'closed and released by the process itself; the next run resumes at page 2',
      );
      t.equal(storedIds(dataDir).length, 2 * PER_PAGE, 'the pages before are kept');
    }
  },
);

t.test('when the same pages are ingested again, then nothing is added and all are unchanged', async (t) => {
  const dataDir = tempDir(t);
  const upstream = await replayServer(t, (req) => ({ body: page(pageOf(req)) }));
  const first = await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url);
  t.match(first.stdout, /new 20 {2}updated 0 {2}unchanged 0/);
  const again = await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url);
  t.equal(again.code, 0);
  t.match(again.stdout, /fetched 20 {2}new 0 {2}updated 0 {2}unchanged 20 {2}failed 0/);
  t.equal(storedIds(dataDir).length, 20);
});

t.test('when a page body is truncated, then the run fails without checkpointing it, and a later run fetches it', async (t) => {
  const dataDir = tempDir(t);
  let truncate = true;
  const upstream = await replayServer(t, (req, _index, res) => {
    const n = pageOf(req);
    if (n === 1 && truncate) {
      // Declares the full length, sends half, and closes: a cut connection.
      const body = Buffer.from(JSON.stringify(page(n)));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.write(body.subarray(0, body.length >> 1));
      res.destroy();
      return null;
    }
    return { body: page(n) };
  });
  const failed = await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url);
  t.equal(failed.code, 1);
  t.match(failed.stdout, /FAILED/);
  const state = new IngestState(IngestState.pathIn(dataDir));
  t.match(state.checkpoint('kimdis'), { page: 1 }, 'checkpoint stays before the truncated page');
  t.equal(state.lastRuns().get('kimdis')?.status, 'failed');
  state.close();
  t.equal(storedIds(dataDir).length, PER_PAGE);

  truncate = false;
  const retried = await pdi(dataDir, 'ingest', 'kimdis', '--base-url', upstream.url);
  t.equal(retried.code, 0, retried.stderr);
  t.equal(storedIds(dataDir).length, PAGES * PER_PAGE);
});

t.test('when a record is malformed, then it is skipped and counted and the rest are stored', async (t) => {
  const dataDir = tempDir(t);
  const upstream = await replayServer(t, (req) => {
    const p = page(pageOf(req));
    if (pageOf(req) === 0) p.content[2] = { title: 'no reference number, no dates' };
    return { body: p };
  });
  const run = await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /fetched 20 {2}new 19 {2}updated 0 {2}unchanged 0 {2}failed 1/);
});

t.test('when a record is dated in year 1 or 9999, then it is skipped and counted, not listed first or last for ever', async (t) => {
  const dataDir = tempDir(t);
  const upstream = await replayServer(t, (req) => {
    const p = page(pageOf(req));
    if (pageOf(req) === 0) {
      p.content[1] = { ...p.content[1], submissionDate: '9999-12-31T10:00:00', contractSignedDate: null };
      p.content[3] = { ...p.content[3], submissionDate: '0001-01-01T10:00:00', contractSignedDate: null };
    }
    return { body: p };
  });
  const run = await runCli(dataDir, ['ingest', 'kimdis', '--since', since, '--base-url', upstream.url], { LOG_LEVEL: 'warn' });
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /fetched 20 {2}new 18 {2}updated 0 {2}unchanged 0 {2}failed 2/);
  t.match(run.stderr, /published_at 9999-12-31T\d\d:00:00Z is outside 1700-01-01 .. /);
  const warnings = run.stderr.split('\n').filter((line) => line.includes('records skipped'));
  t.equal(warnings.length, 1, 'one warning for the page, not one a record');
  t.equal(JSON.parse(warnings[0]).skipped, 2);
  const store = new DocumentStore(DocumentStore.pathIn(dataDir));
  t.teardown(() => store.close());
  const years = store.db.prepare("SELECT DISTINCT substr(json_extract(doc, '$.published_at'), 1, 2) FROM documents").pluck().all();
  t.same(years, ['20'], 'every stored document has a plausible date');
});

t.test('when upstream text spells accents as combining marks, then it is stored composed (NFC), as the Elasticsearch analysis needs to fold it', async (t) => {
  const dataDir = tempDir(t);
  const decomposed = 'Προμήθεια υλικών καθαριότητας'.normalize('NFD');
  const upstream = await replayServer(t, (req) => {
    const p = page(pageOf(req));
    if (pageOf(req) === 0) p.content[0] = { ...p.content[0], title: decomposed };
    return { body: p };
  });
  const run = await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url);
  t.equal(run.code, 0, run.stderr);
  const store = new DocumentStore(DocumentStore.pathIn(dataDir));
  t.teardown(() => store.close());
  const titles = store.db.prepare("SELECT json_extract(doc, '$.title') FROM documents").pluck().all() as string[];
  t.ok(titles.includes('Προμήθεια υλικών καθαριότητας'), 'the NFC spelling is stored');
  t.notOk(
    titles.some((x) => x !== x.normalize('NFC')),
    'no title keeps a combining mark',
  );
});

t.test(
  'when upstream Greek is typed with look-alike signs (µ micro, ∆ increment), then it is stored in Greek letters and found as Greek is typed',
  async (t) => {
    // Two real Diavgeia subjects: `3η Αναµόρφωση Προϋπολογισµού ∆ηµοτικού …` (µ U+00B5, ∆ U+2206), a
    // legacy of fonts and code pages; a Greek spelling never found them.
    const dataDir = tempDir(t);
    const from = tempDir(t);
    fs.symlinkSync(path.join(FIXTURES, 'diavgeia/search_page_reserialized_trimmed.json'), path.join(from, 'page.json'));
    const run = await pdi(dataDir, 'ingest', 'diavgeia', '--from', from);
    t.equal(run.code, 0, run.stderr);
    const app = await startTestApp(t, { dataDir });
    const key = app.key('pro');
    const found = async (q: string) => {
      const res = await app.request(`/v1/search?q=${encodeURIComponent(q)}`, { key });
      t.equal(res.status, 200, q);
      t.equal(res.body.query, q, 'the query is echoed as sent');
      return res.body.results.map((r: { source_id: string; title: string }) => r.source_id);
    };
    for (const q of ['Αναμόρφωση', 'ΑΝΑΜΟΡΦΩΣΗ', 'προυπολογισμου', 'Αναµόρφωση ∆ηµοτικού']) {
      t.same(await found(q), ['diavgeia:6ΥΩΚΟΕΥΖ-86Ο'], q);
    }
    // Words are stemmed, so the phrase also finds its other case: the party ΔΗΜΟΤΙΚΟ ΛΙΜΕΝΙΚΟ ΤΑΜΕΙΟ ΛΗΜΝΟΥ.
    t.same((await found('Δημοτικού Λιμενικού Ταμείου')).sort(), ['diavgeia:6ΔΨΦΟΕΥΖ-ΧΧΠ', 'diavgeia:6ΥΩΚΟΕΥΖ-86Ο']);
    t.same(await found('Διαθεσιμότητα'), ['diavgeia:6ΔΨΦΟΕΥΖ-ΧΧΠ']);
    const listing = await app.request('/v1/diavgeia/documents?limit=100', { key });
    const titles = listing.body.documents.map((d: { title: string }) => d.title);
    t.ok(titles.includes('3η Αναμόρφωση Προϋπολογισμού Δημοτικού Λιμενικού Ταμείου έτους 2023.'), 'stored in Greek letters');
    t.notOk(
      titles.some((x: string) => /[\u00b5\u2206]/.test(x)),
      'no title keeps a look-alike',
    );
    const original = await fetch(`${app.url}/v1/documents/${encodeURIComponent('diavgeia:6ΥΩΚΟΕΥΖ-86Ο')}/content`, {
      headers: { Authorization: `Bearer ${app.key('enterprise')}` },
    });
    t.match(await original.text(), /Αναµόρφωση/, 'the original keeps the upstream characters');
  },
);

t.test(
  'when upstream Greek words carry Latin letters drawn like Greek ones, then they are stored in Greek letters, found as Greek is typed, and a query typed with them finds them too',
  async (t) => {
    // A real KIMDIS contract lists its region under nutsCodes as `Aνατολική Μακεδονία, Θράκη`, with a
    // Latin A; the normalizer reads the label of nutsCode, so that entry is moved there.
    const dataDir = tempDir(t);
    const from = tempDir(t);
    const items = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'kimdis/contract_content_items.json'), 'utf8'));
    items[1].nutsCode = items[1].nutsCodes[0].nutsCode;
    t.match(items[1].nutsCode.value, /^A\u03bd/, 'a Latin A before Greek letters');
    fs.writeFileSync(path.join(from, 'page.json'), JSON.stringify(items));
    const run = await pdi(dataDir, 'ingest', 'kimdis', '--from', from);
    t.equal(run.code, 0, run.stderr);
    const app = await startTestApp(t, { dataDir });
    const search = async (q: string) => {
      const res = await app.request(`/v1/search?q=${encodeURIComponent(q)}&limit=100`, { key: app.key('enterprise') });
      t.equal(res.status, 200, q);
      return res.body;
    };
    // Words are stemmed, so the phrase also finds contracts of ΠΕΡΙΦΕΡΕΙΑ ΑΝΑΤΟΛΙΚΗΣ ΜΑΚΕΔΟΝΙΑΣ.
    const idsOf = (body: { results: { source_id: string }[] }) => body.results.map((r) => r.source_id).sort();
    const greek = idsOf(await search('"Ανατολική Μακεδονία"'));
    const listing = await app.request('/v1/kimdis/documents?limit=100', { key: app.key('pro') });
    const stored = listing.body.documents.find((d: { content: string }) => d.content.includes('Ανατολική Μακεδονία'));
    t.ok(stored, 'stored in Greek letters');
    const id: string = stored.source_id;
    t.ok(greek.includes(id), 'the Greek spelling finds the contract');
    t.notOk(listing.body.documents.some((d: { content: string }) => d.content.includes('Aνατολική')));
    t.same(idsOf(await search('"AΝΑΤOΛΙΚΗ ΜAΚΕΔΟΝΙΑ"')), greek, 'a query with Latin A and O in Greek words finds the same');

    // A record stored by a build before this reading (its text and its hash): pdi reindex serves it in
    // Greek letters without a refetch, and stores it so, so the next fetch of it changes nothing.
    const store = new DocumentStore(DocumentStore.pathIn(dataDir));
    t.teardown(() => store.close());
    const oldDoc = JSON.parse((store.db.prepare('SELECT doc FROM documents WHERE source_id = ?').pluck().get(id) as string).replace('Ανατολική', 'Aνατολική'));
    store.db.prepare('UPDATE documents SET doc = ?, content_hash = ? WHERE source_id = ?').run(JSON.stringify(oldDoc), contentHash(oldDoc), id);
    const reindex = await pdi(dataDir, 'reindex', 'kimdis');
    t.equal(reindex.code, 0, reindex.stderr);
    t.same(idsOf(await search('"Ανατολική Μακεδονία"')), greek, 'found after the reindex');
    const after = await app.request('/v1/kimdis/documents?limit=100', { key: app.key('pro') });
    t.notOk(
      after.body.documents.some((d: { content: string }) => d.content.includes('Aνατολική')),
      'served in Greek letters',
    );
    const [corrected] = [...store.batches('kimdis')].flat().filter((r) => r.doc.source_id === id);
    t.match(corrected.doc.content, /Ανατολική Μακεδονία/, 'stored in Greek letters');
    t.equal(corrected.content_hash, contentHash(corrected.doc), 'with the hash of that text');
    const again = await pdi(dataDir, 'ingest', 'kimdis', '--from', from);
    t.equal(again.code, 0, again.stderr);
    t.match(
      again.stdout,
      new RegExp(`fetched ${items.length} {2}new 0 {2}updated 0 {2}unchanged ${items.length} {2}failed 0`),
      'the next fetch finds it unchanged',
    );
  },
);

t.test(
  'when Diavgeia decisions name their publisher only by uid, then a run fetches the organisation directory once a week, keeps it for replays, and a failing directory fails no run',
  async (t) => {
    const decision = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'diavgeia/decision_b13_commitment_2025.json'), 'utf8'));
    const ministries = fs.readFileSync(path.join(FIXTURES, 'diavgeia/organizations_category_ministry.json'), 'utf8');
    let directoryUp = true;
    const upstream = await replayServer(t, (req) => {
      if (req.path === '/organizations.json') return directoryUp ? { body: ministries } : { status: 503, body: { error: 'busy' } };
      // One decision (posted 2025-04-17), in whichever 180-day window holds it.
      const [from, to] = /DT\(([^)]+)\) TO DT\(([^)]+)\)/
        .exec(req.query.get('q') ?? '')!
        .slice(1)
        .map((d) => Date.parse(d));
      const inside = decision.submissionTimestamp >= from! && decision.submissionTimestamp <= to!;
      const decisions = inside && req.query.get('page') === '0' ? [decision] : [];
      return { body: { decisions, info: { query: 'q', page: 0, size: 500, actualSize: decisions.length, total: decisions.length, order: 'recent' } } };
    });
    const directoryRequests = () => upstream.requests.filter((r) => r.path === '/organizations.json').length;
    const publisherLine = (dataDir: string) => {
      const store = new DocumentStore(DocumentStore.pathIn(dataDir));
      try {
        const content = store.db
          .prepare("SELECT json_extract(doc, '$.content') FROM documents WHERE source_id = ?")
          .pluck()
          .get('diavgeia:Ψ11446ΜΓΨ7-ΠΚΛ') as string;
        return /^Αναθέτουσα αρχή: .*$/m.exec(content)?.[0] ?? null;
      } finally {
        store.close();
      }
    };

    const dataDir = tempDir(t);
    const first = await pdi(dataDir, 'ingest', 'diavgeia', '--since', '2025-04-01', '--base-url', upstream.url);
    t.equal(first.code, 0, first.stderr);
    t.equal(publisherLine(dataDir), 'Αναθέτουσα αρχή: ΠΡΟΕΔΡΙΑ ΤΗΣ ΚΥΒΕΡΝΗΣΗΣ (ΑΦΜ 996887930)', 'named through the directory');
    t.equal(directoryRequests(), 1);
    const second = await pdi(dataDir, 'ingest', 'diavgeia', '--base-url', upstream.url);
    t.equal(second.code, 0, second.stderr);
    t.equal(directoryRequests(), 1, 'not fetched again within the week');

    // A replay fetches nothing and uses the stored directory.
    const replayDir = tempDir(t);
    const from = tempDir(t);
    fs.writeFileSync(path.join(from, 'decision.json'), JSON.stringify(decision));
    fs.cpSync(path.join(dataDir, 'ingest.db'), path.join(replayDir, 'ingest.db'));
    const replayed = await pdi(replayDir, 'ingest', 'diavgeia', '--from', from);
    t.equal(replayed.code, 0, replayed.stderr);
    t.equal(publisherLine(replayDir), 'Αναθέτουσα αρχή: ΠΡΟΕΔΡΙΑ ΤΗΣ ΚΥΒΕΡΝΗΣΗΣ (ΑΦΜ 996887930)', 'named on a replay too');
    t.equal(directoryRequests(), 1);

    // No directory at all: the run still succeeds, says why the names are missing.
    directoryUp = false;
    const bare = tempDir(t);
    const without = await runCli(bare, ['ingest', 'diavgeia', '--since', '2025-04-01', '--base-url', upstream.url], { LOG_LEVEL: 'warn' });
    t.equal(without.code, 0, without.stderr);
    t.match(without.stderr, /organisation directory unavailable/);
    t.equal(publisherLine(bare), null);
    t.equal(directoryRequests(), 3, 'an optional directory is asked for twice, not with every retry a page gets');
  },
);

t.test(
  'when an original is asked for by an id written another way (TED number zero-padded, an ΑΔΑ typed with Latin letters, KIMDIS by its alias), then it is found',
  async (t) => {
    const dataDir = tempDir(t);
    for (const [source, file] of [
      ['ted', 'ted/search_v3_response_trimmed.json'],
      ['diavgeia', 'diavgeia/decision_b22_payment_with_sponsor.json'],
      ['kimdis', 'kimdis/contract_content_items.json'],
    ]) {
      const from = tempDir(t);
      fs.symlinkSync(path.join(FIXTURES, file!), path.join(from, 'body.json'));
      const run = await pdi(dataDir, 'ingest', source!, '--from', from);
      t.equal(run.code, 0, run.stderr);
    }
    const app = await startTestApp(t, { dataDir });
    const key = app.key('enterprise');
    const content = async (id: string) => {
      const res = await fetch(`${app.url}/v1/documents/${encodeURIComponent(id)}/content`, { headers: { Authorization: `Bearer ${key}` } });
      return [res.status, await res.text()] as const;
    };
    const kimdis = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'kimdis/contract_content_items.json'), 'utf8'))[0].referenceNumber;
    for (const [canonical, written] of [
      ['ted:449657-2026', 'ted:00449657-2026'],
      ['diavgeia:Ω97ΤΩΞΧ-8ΚΛ', 'diavgeia:Ω97TΩΞX-8KΛ'],
      ['diavgeia:Ω97ΤΩΞΧ-8ΚΛ', 'diavgeia:ω97τωξχ-8κλ'],
      [`kimdis:${kimdis}`, `e_procurement:${kimdis}`],
    ]) {
      const expected = await content(canonical!);
      t.equal(expected[0], 200, canonical);
      t.same(await content(written!), expected, `${written} is ${canonical}`);
    }
    t.equal((await content('diavgeia:ΧΧΧ-000'))[0], 404);
  },
);

t.test('when the upstream answers 503 once, then the page is retried and the run succeeds', async (t) => {
  const dataDir = tempDir(t);
  let failures = 1;
  const upstream = await replayServer(t, (req) => {
    if (pageOf(req) === 1 && failures-- > 0) return { status: 503, body: { error: 'busy' } };
    return { body: page(pageOf(req)) };
  });
  const run = await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /new 20/);
  t.equal(upstream.requests.filter((r) => pageOf(r) === 1).length, 2);
});

t.test('when the ingest command has a mistake, then it exits 2 before any run and the source keeps its status', async (t) => {
  const dataDir = tempDir(t);
  const good = tempDir(t);
  fs.writeFileSync(path.join(good, 'page-0.json'), JSON.stringify(page(0)));
  const empty = tempDir(t);
  fs.writeFileSync(path.join(empty, 'notes.txt'), 'not a saved body');
  // A sparse file one byte over the longest string V8 can hold (it takes no disk space).
  const huge = tempDir(t);
  fs.writeFileSync(path.join(huge, 'page-0.json'), JSON.stringify(page(0)));
  fs.writeFileSync(path.join(huge, 'page-1.json'), '');
  fs.truncateSync(path.join(huge, 'page-1.json'), constants.MAX_STRING_LENGTH + 1);
  // Named like saved bodies but none: a folder, a link to nothing, a pipe (whose read would never end).
  const odd = (make: (file: string) => void) => {
    const dir = tempDir(t);
    fs.writeFileSync(path.join(dir, 'page-0.json'), JSON.stringify(page(0)));
    make(path.join(dir, 'page-1.json'));
    return dir;
  };
  const folder = odd((f) => fs.mkdirSync(f));
  const dangling = odd((f) => fs.symlinkSync(path.join(f, 'nowhere'), f));
  const pipe = odd((f) => execFileSync('mkfifo', [f]));
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const cases: [string[], RegExp][] = [
    [['--since', '2026-02-30'], /--since must be a date YYYY-MM-DD, got 2026-02-30/],
    [['--since', '2026-13-01'], /--since must be a date YYYY-MM-DD/],
    [['--since', tomorrow], /--since \d{4}-\d\d-\d\d is in the future/],
    [['--from', path.join(good, 'missing')], /--from .*missing does not exist/],
    [['--from', path.join(good, 'page-0.json')], /--from .*page-0\.json is not a directory/],
    [['--from', empty], /holds no \.json, \.xml or \.geojson file/],
    [['--from', good, '--since', since], /--from replays saved bodies: it takes no --since or --base-url/],
    [['--from', huge], /--from: page-1\.json is 512 MiB; a saved body must be under 512 MiB \(one upstream response per file\)/],
    [['--from', folder], /--from: page-1\.json is not a file \(a folder, a pipe or a link to nothing\); a saved body is one upstream response per file/],
    [['--from', dangling], /--from: page-1\.json is not a file/],
    [['--from', pipe], /--from: page-1\.json is not a file/],
    [['--base-url', 'http://user:secret@127.0.0.1:9/'], /--base-url must not carry a user or password \(it is logged\)/],
  ];
  for (const [args, message] of cases) {
    const run = await pdi(dataDir, 'ingest', 'kimdis', ...args);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.stderr, message, args.join(' '));
  }
  const state = new IngestState(IngestState.pathIn(dataDir));
  t.teardown(() => state.close());
  t.equal(state.lastRuns().get('kimdis'), undefined, 'no run was recorded');
});

t.test('when a saved body does not parse, then the other bodies are ingested and the run fails naming it', async (t) => {
  const dataDir = tempDir(t);
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'a-page.json'), JSON.stringify(page(0)));
  fs.writeFileSync(path.join(dir, 'b-truncated.json'), JSON.stringify(page(1)).slice(0, 200));
  fs.writeFileSync(path.join(dir, 'c-empty.json'), '');
  fs.writeFileSync(path.join(dir, 'd-page.json'), JSON.stringify(page(2)));
  const run = await pdi(dataDir, 'ingest', 'kimdis', '--from', dir);
  t.equal(run.code, 1);
  t.equal(storedIds(dataDir).length, 2 * PER_PAGE, 'both good bodies are stored');
  const state = new IngestState(IngestState.pathIn(dataDir));
  t.teardown(() => state.close());
  const last = state.lastRuns().get('kimdis');
  t.equal(last?.status, 'failed', 'the source is not reported active on a partial replay');
  t.match(last?.error, /2 of the saved bodies could not be parsed as kimdis responses: b-truncated\.json, c-empty\.json/);
});

t.test('when the document store cannot be written, then the replay fails with that error, not as a body that does not parse', async (t) => {
  const dataDir = tempDir(t);
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'a-page.json'), JSON.stringify(page(0)));
  new DocumentStore(DocumentStore.pathIn(dataDir)).close();
  // Another process holds the write lock longer than the store waits for it (5 s).
  const holder = new Database(DocumentStore.pathIn(dataDir));
  t.teardown(() => holder.close());
  holder.exec('BEGIN EXCLUSIVE');
  const run = await pdi(dataDir, 'ingest', 'kimdis', '--from', dir);
  holder.exec('ROLLBACK');
  t.equal(run.code, 1);
  t.notMatch(run.stdout + run.stderr, /could not be parsed/);
  const state = new IngestState(IngestState.pathIn(dataDir));
  t.teardown(() => state.close());
  t.match(state.lastRuns().get('kimdis'), { status: 'failed', error: /database is locked/ });
});

t.test(
  'when pdi reindex (every source) runs while a source is being ingested, then it rebuilds every source in one generation and says so per source, and a second reindex meanwhile is refused',
  async (t) => {
    const dataDir = tempDir(t);
    const upstream = await replayServer(t, (req) => ({ body: page(pageOf(req)) }));
    t.equal((await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url)).code, 0);
    const state = new IngestState(IngestState.pathIn(dataDir));
    t.teardown(() => state.close());
    const held = state.beginRun('diavgeia', 'ingest'); // this test process is the live ingest holding it
    t.teardown(() => state.endRun('diavgeia', held, ZERO, null));
    const run = await pdi(dataDir, 'reindex');
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^kimdis: 20 documents$/m);
    for (const source of ['ted', 'diavgeia', 'elstat', 'rae', 'data_gov_gr', 'mitos', 'geodata']) {
      t.match(run.stdout, new RegExp(`^${source}: 0 documents$`, 'm'), `${source} rebuilt`);
    }
    t.match(run.stdout, /^all sources: 20 documents now served by \S+ \(0 embedded, [\d.]+ s, [\d.]+ documents\/s\)$/m, 'one line for the run, with its rate');

    state.beginRebuild(); // this test process is a reindex in progress
    t.teardown(() => state.releaseRebuild());
    for (const args of [['reindex'], ['reindex', 'kimdis']]) {
      const refused = await pdi(dataDir, ...args);
      t.equal(refused.code, 1, args.join(' '));
      t.match(refused.stderr, /Another pdi reindex is in progress \(pid \d+\)/);
    }
  },
);

t.test('when pdi status runs, then it shows per source the last run, its error, a run in progress and the checkpoint', async (t) => {
  const dataDir = tempDir(t);
  const upstream = await replayServer(t, (req) => ({ body: page(pageOf(req)) }));
  t.equal((await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url)).code, 0);
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'bad.json'), '{');
  t.equal((await pdi(dataDir, 'ingest', 'ted', '--from', dir)).code, 1);
  const state = new IngestState(IngestState.pathIn(dataDir));
  t.teardown(() => state.close());
  const held = state.beginRun('rae', 'ingest');
  t.teardown(() => state.endRun('rae', held, ZERO, null));

  const text = (await pdi(dataDir, 'status')).stdout;
  t.match(text, /kimdis +20 indexed +20 stored +last ingest succeeded \S+, checkpoint \{.*"resource":"contract"/);
  t.match(text, /ted .*last ingest failed \S+ \(1 of the saved bodies could not be parsed as ted responses: bad\.json\), 1 failed/);
  t.match(text, new RegExp(`rae .*never ingested, running now \\(pid ${process.pid}\\)`));
  const json = JSON.parse((await pdi(dataDir, 'status', '--json')).stdout);
  t.equal(json.sources.rae.running_pid, process.pid);
  t.equal(json.sources.kimdis.running_pid, null);
  t.equal(json.engine_error, null);

  // The engine down: what SQLite holds is still shown, and the exit code says the engine is not there.
  const closed = await startUpstream(() => null);
  await closed.close();
  const down = await runCli(dataDir, ['status'], { ELASTICSEARCH_URL: closed.url });
  t.equal(down.code, 1);
  t.match(
    down.stdout,
    /^engine elasticsearch at http:\/\/127\.0\.0\.1:\d+; .*; UNAVAILABLE \(The search engine \(elasticsearch\) is unavailable; try again shortly \(stats: ConnectionError: .*ECONNREFUSED.*\)\): indexed counts unknown$/m,
  );
  t.match(down.stdout, /kimdis +\? indexed +20 stored +last ingest succeeded/);
  const downJson = JSON.parse((await runCli(dataDir, ['status', '--json'], { ELASTICSEARCH_URL: closed.url })).stdout);
  t.match(downJson, {
    engine_url: closed.url,
    engine_error: /^The search engine \(elasticsearch\) is unavailable; try again shortly \(stats: ConnectionError: .*ECONNREFUSED/,
    total_documents: null,
    sources: { kimdis: { indexed: null, stored: 20 } },
  });
});

t.test(
  'when a run cannot be closed (its database locked past the busy timeout), then it is closed and the source released once it can be, without a restart',
  async (t) => {
    const dataDir = tempDir(t);
    const state = new IngestState(IngestState.pathIn(dataDir));
    t.teardown(() => state.close());
    const id = state.beginRun('ted', 'ingest');
    // Another process holds the write lock (as a full disk refuses every write) when the run ends.
    const other = new Database(IngestState.pathIn(dataDir));
    t.teardown(() => other.close());
    other.exec('BEGIN EXCLUSIVE');
    const warnings: string[] = [];
    const log = { warn: (_: object, msg: string) => void warnings.push(msg), info: (_: object, msg: string) => void warnings.push(msg) };
    state.endRun(
      'ted',
      id,
      { ...ZERO, fetched: 3, failed: 3 },
      { error: 'ingest failed: database or disk is full', reason: "the server's storage is full" },
      log,
    );
    t.same(warnings, ['could not close the run and release the source; retrying']);
    other.exec('COMMIT');
    const released = await new Promise<boolean>((resolve) => {
      const poll = setInterval(() => {
        if (state.runningPid('ted') === null) {
          clearInterval(poll);
          resolve(true);
        }
      }, 100);
      setTimeout(() => {
        clearInterval(poll);
        resolve(false);
      }, 15_000).unref();
    });
    t.ok(released, 'the lock is released once the database takes writes again');
    t.equal(state.lastRuns().get('ted')?.status, 'failed', 'and the run is closed with its error');
    t.equal(warnings.at(-1), 'run closed and source released');
    const upstream = await replayServer(t, (req) => ({ body: page(pageOf(req)) }));
    const next = await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url);
    t.equal(next.code, 0, 'other runs go on');
    t.equal(state.beginRun('ted', 'ingest') > id, true, 'and the source can be run again by anyone');
  },
);

t.test(
  'when the embedded index is damaged, then pdi reindex (every source) moves it aside and rebuilds it from the document store, unless a server holds the data directory',
  async (t) => {
    const dataDir = tempDir(t);
    const upstream = await replayServer(t, (req) => ({ body: page(pageOf(req)) }));
    t.equal((await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url)).code, 0);
    const index = path.join(dataDir, 'index.db');
    for (const f of [index, `${index}-wal`, `${index}-shm`]) fs.rmSync(f, { force: true });
    fs.writeFileSync(index, Buffer.alloc(64 * 1024, 0xa5));

    // pdi status still shows what documents.db and the run log hold, as with an engine that is down.
    const status = await pdi(dataDir, 'status');
    t.equal(status.code, 1);
    t.match(status.stdout, /^engine embedded; .*UNAVAILABLE/m);
    t.match(status.stdout, /^ {2}kimdis +\? indexed +20 stored/m);
    t.match(status.stdout, /UNAVAILABLE \(.*index\.db is damaged/, 'and why');
    const statusJson = await pdi(dataDir, 'status', '--json');
    t.equal(JSON.parse(statusJson.stdout).sources.kimdis.stored, 20);

    const server = ServerLock.acquire(dataDir); // as a running server holds it
    const refused = await pdi(dataDir, 'reindex');
    server.release();
    t.equal(refused.code, 1);
    t.match(refused.stderr, /is damaged .*another API server \(pid \d+\) is running on PDI_DATA_DIR/s, 'not moved under a running server');
    t.ok(
      fs.readFileSync(index).every((b) => b === 0xa5),
      'the file is untouched',
    );

    const single = await pdi(dataDir, 'reindex', 'kimdis');
    t.equal(single.code, 1, 'one source cannot rebuild the whole index');
    t.match(single.stderr, /is damaged/);

    const run = await pdi(dataDir, 'reindex');
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^index\.db is damaged \(.+\): moved to index\.db\.damaged-\d{8}T\d{6}Z; rebuilding every source from documents\.db$/m);
    t.match(run.stdout, /^kimdis: 20 documents$/m);
    t.equal(fs.readdirSync(dataDir).filter((f) => /^index\.db\.damaged-\d{8}T\d{6}Z$/.test(f)).length, 1, 'the damaged file is kept, aside');
    t.equal(JSON.parse((await pdi(dataDir, 'status', '--json')).stdout).sources.kimdis.indexed, 20);
  },
);

t.test(
  'when the embedded index is damaged where only a read finds it, then pdi reindex (every source) finds it too, moves it aside and rebuilds it',
  async (t) => {
    const dataDir = tempDir(t);
    const upstream = await replayServer(t, (req) => ({ body: page(pageOf(req)) }));
    t.equal((await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url)).code, 0);
    const index = path.join(dataDir, 'index.db');
    const db = new Database(index);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    // The last third of the pages (the source's postings and vectors), not the schema the open reads.
    const pages = fs.statSync(index).size / pageSize;
    const fd = fs.openSync(index, 'r+');
    fs.writeSync(fd, Buffer.alloc(Math.floor(pages / 3) * pageSize, 0xa5), 0, undefined, Math.ceil((2 * pages) / 3) * pageSize);
    fs.closeSync(fd);
    const check = new Database(index, { readonly: true });
    t.not(check.pragma('quick_check', { simple: true }), 'ok', 'damaged');
    check.close();

    const run = await pdi(dataDir, 'reindex');
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^index\.db is damaged \(.+\): moved to index\.db\.damaged-\d{8}T\d{6}Z; rebuilding every source from documents\.db$/m);
    t.match(run.stdout, /^kimdis: 20 documents$/m);
    const rebuilt = new Database(index, { readonly: true });
    t.equal(rebuilt.pragma('quick_check', { simple: true }), 'ok', 'the new file is sound');
    rebuilt.close();
  },
);

t.test(
  'when the embedding model or its text recipe changed since the records were embedded, then pdi reindex says how many documents it embeds anew before it does',
  async (t) => {
    const dataDir = tempDir(t);
    const upstream = await replayServer(t, (req) => ({ body: page(pageOf(req)) }));
    t.equal((await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url)).code, 0);
    const cached = await pdi(dataDir, 'reindex', 'kimdis');
    t.equal(cached.code, 0, cached.stderr);
    t.notMatch(cached.stdout, /no cached embedding/, 'nothing said when every vector is cached');
    t.match(cached.stdout, /^kimdis: 20 documents now served by \S+ \(0 embedded/m);

    // As after an upgrade that changed the model or the text recipe: the cached vectors are another key's.
    const db = new Database(DocumentStore.pathIn(dataDir));
    const [key] = db.prepare('SELECT DISTINCT model FROM embeddings').pluck().all() as string[];
    t.equal(db.prepare(`UPDATE embeddings SET model = 'an-older-model@text-v1'`).run().changes, 20);
    db.close();
    const run = await pdi(dataDir, 'reindex', 'kimdis');
    t.equal(run.code, 0, run.stderr);
    const said = `kimdis: 20 of 20 documents have no cached embedding for ${key} (the embedding model or its text recipe changed): they are embedded now`;
    t.ok(run.stdout.startsWith(`${said}\n`), `said first: ${run.stdout}`);
    t.match(run.stdout, /^kimdis: 20 documents now served by \S+ \(20 embedded/m);
  },
);

t.test('when the upstream sends a page it already sent in this run, then the run fails there instead of looping or skipping', async (t) => {
  const dataDir = tempDir(t);
  // Ignores the page asked for: always page 0, which says more follow (a loop without end before).
  const upstream = await replayServer(t, () => ({ body: { ...page(0), last: false } }));
  const run = await pdi(dataDir, 'ingest', 'kimdis', '--since', since, '--base-url', upstream.url);
  t.equal(run.code, 1);
  t.match(
    run.stdout,
    /FAILED: kimdis: page 2 of this run holds the same 5 records as page 1: the upstream ignored the page asked for, or its paging loops; stopped before page 2's checkpoint, so the next run asks for it again$/m,
  );
  t.equal(upstream.requests.length, 2, 'stopped at the first repeat');
  t.equal(storedIds(dataDir).length, PER_PAGE, 'the first page is kept');
  const state = new IngestState(IngestState.pathIn(dataDir));
  t.teardown(() => state.close());
  t.same(
    state.checkpoint('kimdis'),
    { dateFrom: since, dateTo: state.checkpoint('kimdis')?.dateTo, resource: 'contract', page: 1 },
    'the next run asks for the repeated page again',
  );
  t.equal(state.lastRuns().get('kimdis')?.status, 'failed');

  const replay = tempDir(t);
  for (const f of ['a.json', 'b.json']) fs.writeFileSync(path.join(replay, f), JSON.stringify(page(0)));
  t.equal((await pdi(tempDir(t), 'ingest', 'kimdis', '--from', replay)).code, 0, 'saved bodies may repeat one another');
});

t.test('when ingest --all meets a source another run holds, then it skips that one, runs the rest, names it and exits 1', async (t) => {
  const dataDir = tempDir(t);
  const holderPid = holdSource(t, dataDir, 'diavgeia');
  const upstream = await replayServer(t, (req) => ({ body: page(pageOf(req)) }));
  const run = await pdi(dataDir, 'ingest', '--all', '--since', since, '--base-url', upstream.url);
  t.equal(run.code, 1);
  t.match(run.stderr, new RegExp(`pdi: not ingested, another run holds them: diavgeia \\(pid ${holderPid}\\)`));
  t.match(run.stdout, /^kimdis: .* done$/m, 'the sources after it ran');
  t.notMatch(run.stdout, /^diavgeia/m);
  t.equal(storedIds(dataDir).length, PAGES * PER_PAGE);
});
