// Gives every document of a data folder a vector of the real model's distribution (sample.ts), in its
// documents.db embedding cache under the model's key, so that `pdi reindex` with the model indexes them
// without embedding anything (the model embeds ~30 documents a second here: 1M would take ~9 hours).
//   node --import tsx bench/vectors/add-vectors.ts --data-dir DIR [--seed 20240611]
// Then: PDI_DATA_DIR=DIR PDI_MODEL_DIR="$(scripts/fetch-model.sh)" npx pdi reindex
// Document with content hash h gets derived vector fnv1a(h): the same document, the same vector.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { embeddingCacheKey } from '../../ingest/stages/embed.js';
import { openSqlite } from '../../lib/sqlite.js';
import { derivedVector, loadModel, realSample } from './sample.js';

const { values: args } = parseArgs({ options: { 'data-dir': { type: 'string' }, seed: { type: 'string', default: '20240611' } } });
if (!args['data-dir']) throw new Error('--data-dir is required');
const seed = Number(args.seed);
const model = await loadModel();
const sample = await realSample(model);
const key = embeddingCacheKey(model);

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

const db = openSqlite(path.join(args['data-dir'], 'documents.db'));
const hashes = db.prepare('SELECT DISTINCT content_hash FROM documents').pluck().all() as string[];
const put = db.prepare('INSERT OR REPLACE INTO embeddings (model, content_hash, vector) VALUES (?, ?, ?)');
const v = new Float32Array(sample[0].length);
for (let i = 0; i < hashes.length; i += 10_000) {
  db.transaction(() => {
    for (const h of hashes.slice(i, i + 10_000)) put.run(key, h, Buffer.from(derivedVector(sample, seed, fnv1a(h), v).buffer));
  })();
  process.stderr.write(`\r${Math.min(hashes.length, i + 10_000)} / ${hashes.length}`);
}
process.stderr.write(`\n${hashes.length} vectors under ${key}\n`);
db.close();
process.exit(0);
