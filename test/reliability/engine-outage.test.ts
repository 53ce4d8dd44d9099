// Elasticsearch stopped and started again under load, against the real server process: while it is
// down every search and listing answers 503 with a {"detail"} and none hangs; once it is back the same
// server answers 200 again, without a restart. docs/reliability.md "Elasticsearch outage under load".
import t from 'tap';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { KeyStore } from '../../api/db/keys.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { tempDir } from '../helpers/app.js';
import { privateElasticsearch, randomPrefix } from '../helpers/elasticsearch.js';
import { hit, statusCounts, type Hit } from '../helpers/load.js';
import { bounded, CLIENT_TIMEOUT_MS } from '../helpers/reliability.js';
import { contractDoc, ingestDocs } from '../helpers/report-docs.js';
import { startServerProcess, stopServerProcess } from '../helpers/server-process.js';

const CLIENTS = 10;
/** Pause between one client's requests: enough load to overlap the outage, within the keys' quotas. */
const THINK_MS = 50;
const KEYS = 60;
const PHASE_MS = bounded(5_000, 30_000);
/** The engine routes of the mix: they must answer 503 while it is down. */
const ENGINE_PATHS = ['/v1/search?q=%CF%83%CF%8D%CE%BC%CE%B2%CE%B1%CF%83%CE%B7', '/v1/kimdis/documents?limit=5', '/v1/search?q=alpha&source=kimdis'];

interface Sample extends Hit {
  path: string;
  startedAt: number;
}

t.test(
  'when Elasticsearch stops under load, then searches answer 503 with a detail and none hangs, and once it is back the same server answers again',
  async (t) => {
    const node = await privateElasticsearch(t, 'outage');
    const prefix = randomPrefix();
    const dataDir = tempDir(t);
    const writer = new ElasticsearchProvider({ url: node.url, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384' });
    t.teardown(() => writer.close());
    await writer.init();
    const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
    await ingestDocs(
      documents,
      writer,
      Array.from({ length: 50 }, (_, i) => contractDoc(`24SYMV${String(i).padStart(9, '0')}`, { value: 1_000 * (i + 1) })),
    );
    documents.close();
    const db = openDatabase(accountsDbPath(dataDir));
    const store = new KeyStore(db);
    const keys = Array.from({ length: KEYS }, (_, i) => store.create(`Outage ${i}`, 'enterprise').key);
    db.close();

    const server = await startServerProcess(t, { PDI_DATA_DIR: dataDir, ELASTICSEARCH_URL: node.url, PDI_INDEX_PREFIX: prefix });
    const samples: Sample[] = [];
    let running = true;
    let n = 0;
    const client = async (c: number) => {
      while (running) {
        const i = n++;
        const path = ENGINE_PATHS[(i + c) % ENGINE_PATHS.length]!;
        const startedAt = performance.now();
        const h = await hit(server.url, path, keys[i % KEYS], { timeoutMs: CLIENT_TIMEOUT_MS });
        samples.push({ ...h, path, startedAt });
        await new Promise((r) => setTimeout(r, THINK_MS));
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    const phase = () => new Promise((r) => setTimeout(r, PHASE_MS));

    await phase();
    const stopAt = performance.now();
    await node.stop();
    const downAt = performance.now();
    await phase();
    const startAt = performance.now();
    await node.start();
    const upAt = performance.now();
    // Recovered: the first answer 200 of a request sent after the node was back.
    const recovered = await new Promise<number>((resolve) => {
      const check = setInterval(() => {
        const first = samples.find((s) => s.startedAt >= upAt && s.status === 200);
        if (first) {
          clearInterval(check);
          resolve(first.at);
        }
      }, 50);
    });
    await phase();
    running = false;
    await Promise.all(clients);

    const before = samples.filter((s) => s.at < stopAt);
    const down = samples.filter((s) => s.startedAt >= downAt && s.at <= startAt);
    const after = samples.filter((s) => s.startedAt >= recovered);
    const bodyOk = (s: Sample) => {
      try {
        return typeof JSON.parse(s.body).detail === 'string';
      } catch {
        return false;
      }
    };
    t.same(
      before.filter((s) => s.status !== 200).map((s) => s.status),
      [],
      `before: all ${before.length} answered 200`,
    );
    t.ok(down.length > 0, 'requests were sent while the node was down');
    t.same(
      down.filter((s) => s.status !== 503 || !bodyOk(s)).map((s) => `${s.status} ${s.body.slice(0, 80)}`),
      [],
      `down: all ${down.length} answered 503 with a {"detail"}`,
    );
    t.same(
      after.filter((s) => s.status !== 200).map((s) => s.status),
      [],
      `after: all ${after.length} answered 200, from the same server process`,
    );
    t.equal(server.child.exitCode, null, 'the server was never restarted');
    const maxMs = Math.max(...samples.map((s) => s.ms));
    t.ok(
      samples.every((s) => s.status !== 0),
      `no request hung past the client timeout (${CLIENT_TIMEOUT_MS} ms); the slowest took ${Math.round(maxMs)} ms`,
    );
    const during = samples.filter((s) => s.startedAt >= stopAt && s.startedAt < recovered);
    // A node still starting accepts connections before it answers: a read there runs into the engine
    // deadline (PDI_ENGINE_DEADLINE, 10 s) and is a 504 with a detail (docs/api.md).
    t.same(
      during.filter((s) => s.status !== 200 && !((s.status === 503 || s.status === 504) && bodyOk(s))).map((s) => `${s.status} ${s.body.slice(0, 80)}`),
      [],
      'from the stop to the recovery: only 200, or 503/504 with a {"detail"}',
    );
    t.comment(
      `requests: ${samples.length}; before ${before.length}, while stopping ${samples.filter((s) => s.startedAt >= stopAt && s.startedAt < downAt).length}, down ${down.length}, after ${after.length}`,
    );
    t.comment(
      `stop took ${Math.round(downAt - stopAt)} ms, start ${Math.round(upAt - startAt)} ms; first 200 ${Math.round(recovered - upAt)} ms after the node was back`,
    );
    t.comment(
      `latency max ${Math.round(maxMs)} ms overall, ${Math.round(Math.max(...down.map((s) => s.ms)))} ms while down, ${Math.round(Math.max(...during.map((s) => s.ms)))} ms from stop to recovery; statuses from stop to recovery: ${JSON.stringify(statusCounts(during))}`,
    );
    await stopServerProcess(server);
  },
);
