// Hard kills (SIGKILL) of `pdi ingest SOURCE --from DIR` and of `pdi reindex SOURCE`, at several
// moments, on both engines: the next run completes and the store and the index hold exactly the
// expected documents, each once. docs/reliability.md "Hard kills".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { IngestState } from '../../ingest/state/store.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { embeddedIndexPath } from '../../lib/search/index.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { Database, type Sqlite } from '../../lib/sqlite.js';
import { tempDir } from '../helpers/app.js';
import { cliEnv, pdi } from '../helpers/cli.js';
import { deleteIndices, randomPrefix } from '../helpers/elasticsearch.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { bounded } from '../helpers/reliability.js';

const FROM = path.join(REPO_ROOT, 'data/demo/kimdis');
/** An ingest is killed once the store holds this many documents (of 730). */
const INGEST_KILLS = bounded([1, 365], [1, 100, 250, 365, 500, 650, 729]);
/** A reindex is killed this many ms after it took the source's lock (its work has begun). */
const REINDEX_KILLS = bounded([0, 400], [0, 100, 250, 400, 700, 1_000, 1_500]);

interface EngineSetup {
  name: string;
  env(t: Test): Record<string, string>;
  open(dataDir: string, env: Record<string, string>): SearchProvider;
}

const ES_URL = process.env.ELASTICSEARCH_URL?.trim();
const ENGINES: EngineSetup[] = [
  {
    name: 'embedded',
    env: () => ({}),
    open: (dataDir) => new EmbeddedProvider({ file: embeddedIndexPath(dataDir), dimension: 384, embeddingModel: 'pdi/hashing-384' }),
  },
];
if (ES_URL) {
  ENGINES.push({
    name: 'elasticsearch',
    env: (t) => {
      const prefix = randomPrefix();
      t.teardown(() => deleteIndices(ES_URL, prefix));
      return { ELASTICSEARCH_URL: ES_URL, PDI_INDEX_PREFIX: prefix };
    },
    open: (_dataDir, env) => new ElasticsearchProvider({ url: ES_URL, prefix: env.PDI_INDEX_PREFIX!, dimension: 384, embeddingModel: 'pdi/hashing-384' }),
  });
} else {
  console.error('WARNING: ELASTICSEARCH_URL is not set; the hard kills run on the embedded engine only');
}

/** Reads one number from a database another process writes; null while it does not exist yet. */
function probe(file: string, sql: string): () => number | null {
  let db: Sqlite | null = null;
  return () => {
    try {
      db ??= fs.existsSync(file) ? new Database(file, { readonly: true, fileMustExist: true }) : null;
      return db ? (db.prepare(sql).pluck().get() as number) : null;
    } catch {
      return null; // not created yet, or its schema not yet written
    }
  };
}

/**
 * Runs `pdi ...args`, polls `reached` until it holds (the event: a state in the command's own
 * databases), waits `thenMs` and SIGKILLs it. Resolves with whether it had finished before.
 */
async function killWhen(dataDir: string, env: Record<string, string>, args: string[], reached: () => boolean, thenMs: number): Promise<'killed' | 'finished'> {
  const child = spawn(process.execPath, ['bin/pdi.js', ...args], { cwd: REPO_ROOT, env: cliEnv({ PDI_DATA_DIR: dataDir, ...env }), stdio: 'ignore' });
  let done = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      done = true;
      resolve();
    }),
  );
  while (!done && !reached()) await new Promise((r) => setTimeout(r, 5));
  if (!done && thenMs > 0) await new Promise((r) => setTimeout(r, thenMs));
  if (done) return 'finished';
  process.kill(child.pid!, 'SIGKILL');
  await exited;
  return 'killed';
}

function storedIds(dataDir: string): string[] {
  const store = new DocumentStore(DocumentStore.pathIn(dataDir));
  try {
    return store.db.prepare("SELECT source_id FROM documents WHERE source = 'kimdis' ORDER BY source_id").pluck().all() as string[];
  } finally {
    store.close();
  }
}

async function indexedIds(search: SearchProvider): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let total = 0;
  for (let offset = 0; ; offset += 500) {
    const page = await search.list({ source: 'kimdis', limit: 500, offset });
    total = page.total;
    ids.push(...page.hits.map((h) => h.doc.source_id));
    if (page.hits.length < 500) break;
  }
  return { ids: ids.sort(), total };
}

function locks(dataDir: string): number {
  const state = new IngestState(IngestState.pathIn(dataDir));
  try {
    return state.db.prepare('SELECT count(*) FROM locks').pluck().get() as number;
  } finally {
    state.close();
  }
}

// The expected set: what one uninterrupted run stores.
const reference = tempDir(t);
const clean = await pdi(reference, ['ingest', 'kimdis', '--from', FROM]);
if (clean.code !== 0) throw new Error(`the reference run failed: ${clean.stderr}`);
const EXPECTED = storedIds(reference);
t.comment(`expected: ${EXPECTED.length} KIMDIS documents from ${fs.readdirSync(FROM).length} saved pages`);

for (const engine of ENGINES) {
  for (const [i, delay] of INGEST_KILLS.entries()) {
    const reindexDelay = REINDEX_KILLS[i % REINDEX_KILLS.length]!;
    t.test(
      `when pdi ingest is SIGKILLed once ${delay} documents are stored and pdi reindex ${reindexDelay} ms after it took the source's lock (${engine.name}), then the next runs complete and store and index hold each expected document once`,
      async (t) => {
        const dataDir = tempDir(t);
        const env = engine.env(t);
        const stored = probe(DocumentStore.pathIn(dataDir), "SELECT count(*) FROM documents WHERE source = 'kimdis'");
        const ingest = await killWhen(dataDir, env, ['ingest', 'kimdis', '--from', FROM], () => (stored() ?? 0) >= delay, 0);
        const partial = stored();
        const again = await pdi(dataDir, ['ingest', 'kimdis', '--from', FROM], env);
        t.equal(again.code, 0, `the next ingest completes: ${again.stderr}`);
        t.same(storedIds(dataDir), EXPECTED, 'store: exactly the expected documents');
        const search = engine.open(dataDir, env);
        t.teardown(() => search.close());
        await search.init();
        const indexed = await indexedIds(search);
        t.same(indexed.ids, EXPECTED, 'index: exactly the expected documents');
        t.equal(indexed.total, EXPECTED.length, 'index: each once');
        t.equal(locks(dataDir), 0, 'no source lock left behind');

        const locked = probe(IngestState.pathIn(dataDir), "SELECT count(*) FROM locks WHERE source = 'kimdis'");
        const reindex = await killWhen(dataDir, env, ['reindex', 'kimdis'], () => locked() === 1, reindexDelay);
        const rebuilt = await pdi(dataDir, ['reindex', 'kimdis'], env);
        t.equal(rebuilt.code, 0, `the next reindex completes: ${rebuilt.stderr}`);
        await search.close();
        const after = engine.open(dataDir, env);
        t.teardown(() => after.close());
        await after.init();
        const reindexed = await indexedIds(after);
        t.same(reindexed.ids, EXPECTED, 'index after the reindex: exactly the expected documents');
        t.equal(reindexed.total, EXPECTED.length, 'index after the reindex: each once');
        t.same(storedIds(dataDir), EXPECTED, 'store after the reindex: unchanged');
        t.equal(locks(dataDir), 0, 'no source lock left behind by the reindex');
        t.comment(`${engine.name}: ingest ${ingest} at ${partial} documents stored (aimed: ${delay}); reindex ${reindex} ${reindexDelay} ms after its lock`);
      },
    );
  }
}
