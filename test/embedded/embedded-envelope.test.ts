// The embedded engine's envelope: past PDI_EMBEDDED_ENVELOPE documents the server's start log and
// `pdi status` say so once, with the command that moves the index to Elasticsearch; that move
// (`ELASTICSEARCH_URL=… pdi reindex`) builds it from the stored documents and vectors of a data folder
// only the embedded engine has served, with no call to the embedding service.
import t, { type Test } from 'tap';
import { SOURCE_NAMES, type SourceName } from '../../index-mappings/sources.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { embeddedIndexPath } from '../../lib/search/index.js';
import { tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { startEmbeddingPeer } from '../helpers/embedding-service.js';
import { startServerProcess, stopServerProcess } from '../helpers/server-process.js';

t.setTimeout(180_000);

const WARNING =
  /^the embedded engine holds 8 documents, past its envelope of 5 \(PDI_EMBEDDED_ENVELOPE\) within which its reads keep p50 ≤ 100 ms and p99 ≤ 500 ms: move to Elasticsearch with ELASTICSEARCH_URL=… pdi reindex /;

/** Replays the demo corpus of `sources` into `dataDir` with the embedded engine. */
async function ingestDemo(t: Test, dataDir: string, sources: SourceName[], env: Record<string, string> = {}) {
  for (const source of sources) {
    const run = await pdi(dataDir, ['ingest', source, '--from', `data/demo/${source}`], env);
    t.equal(run.code, 0, `${source} ingested: ${run.stderr}`);
  }
}

t.test(
  'when the embedded index holds more documents than PDI_EMBEDDED_ENVELOPE, then the start log and pdi status say so once, with the command to move',
  async (t) => {
    const dataDir = tempDir(t);
    await ingestDemo(t, dataDir, ['elstat']);

    const within = await pdi(dataDir, ['status'], { PDI_EMBEDDED_ENVELOPE: '8' });
    t.equal(within.code, 0, within.stderr);
    t.notMatch(within.stdout, /envelope/, 'at the envelope, nothing is said');
    const past = await pdi(dataDir, ['status'], { PDI_EMBEDDED_ENVELOPE: '5' });
    t.equal(past.code, 0, 'a warning, not a failure');
    const lines = past.stdout.split('\n').filter((l) => l.startsWith('warning: '));
    t.equal(lines.length, 1, 'said once');
    t.match(lines[0].slice('warning: '.length), WARNING);
    const json = JSON.parse((await pdi(dataDir, ['status', '--json'], { PDI_EMBEDDED_ENVELOPE: '5' })).stdout);
    t.same(json.envelope, { documents: 5, past: true });

    const server = await startServerProcess(t, { PDI_DATA_DIR: dataDir, PDI_EMBEDDED_ENVELOPE: '5' });
    const said = server.lines.filter((l) => /envelope/.test(String(l.msg)));
    t.equal(said.length, 1, 'the start says it once');
    t.match(said[0], { level: 40, documents: 8, envelope: 5, move: 'ELASTICSEARCH_URL=… pdi reindex', msg: WARNING });
    await stopServerProcess(server);
  },
);

t.test(
  'when a data folder only the embedded engine served is moved with ELASTICSEARCH_URL=… pdi reindex, then every source and vector is equal in Elasticsearch, and nothing is embedded',
  async (t) => {
    const peer = await startEmbeddingPeer();
    t.teardown(() => peer.close());
    const service = { PDI_EMBED_URL: peer.url, PDI_EMBED_MODEL: 'test/hashing' };
    const dataDir = tempDir(t);
    const sources: SourceName[] = ['elstat', 'data_gov_gr', 'geodata', 'rae'];
    await ingestDemo(t, dataDir, sources, service);
    t.ok(peer.requests.length > sources.length, 'the ingest embedded through the service');

    const url = await elasticsearchUrl(t);
    const prefix = randomPrefix();
    t.teardown(() => deleteIndices(url, prefix));
    const asked = peer.arrivals;
    const move = await pdi(dataDir, ['reindex'], { ...service, ELASTICSEARCH_URL: url, PDI_INDEX_PREFIX: prefix });
    t.equal(move.code, 0, move.stderr);
    t.match(move.stdout, /^all sources: \d+ documents now served by \S+ \(0 embedded,/m);
    t.equal(peer.arrivals, asked, 'no request reached the embedding service, not even a probe');

    const embedded = new EmbeddedProvider({ file: embeddedIndexPath(dataDir), dimension: 384, embeddingModel: 'test/hashing' });
    const elastic = new ElasticsearchProvider({ url, prefix, dimension: 384, embeddingModel: 'test/hashing' });
    t.teardown(async () => {
      await embedded.close();
      await elastic.close();
    });
    const [before, after] = await Promise.all([embedded.stats(), elastic.stats()]);
    for (const source of SOURCE_NAMES) {
      t.equal(after.sources[source]?.documents ?? 0, before.sources[source]?.documents ?? 0, `${source}: the same count`);
    }
    t.equal(after.total_documents, before.total_documents);
    t.ok(sources.every((s) => (before.sources[s]?.documents ?? 0) > 0));

    // A sample of every source: its first and last stored records, their vectors equal (float32 both sides).
    const store = new DocumentStore(DocumentStore.pathIn(dataDir));
    t.teardown(() => store.close());
    const ids = sources.flatMap((s) => {
      const all = [...store.batches(s)].flat().map((r) => r.doc.source_id);
      return [all[0], all[all.length - 1]];
    });
    for (const id of ids) {
      const [a, b] = await Promise.all([embedded.get(id), elastic.get(id)]);
      t.ok(a?.embedding && b?.embedding, `${id}: a vector in both`);
      t.equal(b!.embedding!.length, a!.embedding!.length);
      t.ok(
        a!.embedding!.every((x, i) => Math.abs(x - b!.embedding![i]) < 1e-6),
        `${id}: the same vector`,
      );
    }
  },
);
