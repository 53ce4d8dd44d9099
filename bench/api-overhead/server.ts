// One server of the api-overhead benchmark, in its own process: `bare` is restify with one route,
// answered with res.send; `writer` answers that route through the app's writer (reply.ts), as every
// contract route does; `app` is our createApp (error formatter, the gate: admission with key and
// quota, then the tier) with the route of `writer`. app ÷ bare is the comparison; app ÷
// writer is what the gate itself costs.
// Prints "READY <port>" and, for `app`, writes the keys to rotate over to the file given.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import restify from 'restify';
import { createApp } from '../../api/app.js';
import { openDatabase } from '../../api/db/database.js';
import { admission } from '../../api/middleware/admission.js';
import { gate } from '../../api/middleware/gate.js';
import { InFlight } from '../../api/middleware/in-flight.js';
import { RefusalPacer } from '../../api/middleware/refusal-pacing.js';
import { replyJson } from '../../api/middleware/reply.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { IngestState } from '../../ingest/state/store.js';
import { SqliteBlobStore } from '../../lib/blob-store.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { EntityReaders } from '../../lib/entity-readers.js';

const [mode, keysFile, keyCount = '5000'] = process.argv.slice(2);
const body = { hello: 'world' };
let server: restify.Server;

if (mode === 'bare' || mode === 'writer') {
  server = restify.createServer({ name: '' });
  const viaWriter = mode === 'writer';
  server.get('/v1/bench', async (_req, res) => {
    if (viaWriter) replyJson(res, body);
    else res.send(body);
  });
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-'));
  const db = openDatabase(path.join(dir, 'accounts.db'));
  const documents = new DocumentStore(':memory:');
  const app = createApp({
    config: loadConfig({ PDI_DATA_DIR: dir, LOG_LEVEL: 'silent' }),
    db,
    sourceRuns: new IngestState(':memory:'),
    // The bench route touches none of these; they are here because createApp needs them.
    search: new EmbeddedProvider({ file: ':memory:', dimension: 384, embeddingModel: 'pdi/hashing-384' }),
    blobs: new SqliteBlobStore(':memory:'),
    embedder: new HashingEmbedder(),
    entityReaders: new EntityReaders(documents.db),
    logger: createLogger('silent'),
  });
  // Enterprise keys allow 1,000 requests a day each: rotate over enough of them that none runs out.
  const keys = Array.from({ length: Number(keyCount) }, (_, i) => app.context.keys.create(`bench-${i % 50}`, 'enterprise').key);
  fs.writeFileSync(keysFile, keys.join('\n') + '\n');
  server = app.server;
  // The same gate every contract route has (admission, then the tier), around the same handler as bare.
  const admit = admission(
    app.context.keys,
    app.context.usage,
    app.context.clock,
    new InFlight(app.context.config.maxInFlightPerKey, app.context.config.maxInFlightPerOrg),
    new RefusalPacer(),
  );
  server.get(
    '/v1/bench',
    gate(admit, 'free', async (_req, res) => {
      replyJson(res, body);
    }),
  );
}

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.server.address() as { port: number }).port}\n`);
});

// A clean exit on SIGINT lets `node --cpu-prof` write its profile.
process.on('SIGINT', () => process.exit(0));
