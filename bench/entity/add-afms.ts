// Gives the benchmark corpus's contractors ΑΦΜs in its entity index, so that entity by ΑΦΜ can be
// measured at 1M (issue 21): bench/search/generate.ts names one contractor per document (735 surnames,
// drawn Zipf: the commonest in ~14% of the documents, the rarest in a few hundred) and no ΑΦΜ. Each
// name gets one valid ΑΦΜ derived from it, written as ingest would have (entity_keys and the party
// row). The search engines are untouched: entity lookups read only this index.
//   node --import tsx bench/entity/add-afms.ts --data-dir ~/.cache/pdi/bench-1000000-20240611
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openSqlite } from '../../lib/sqlite.js';

const { values: args } = parseArgs({ options: { 'data-dir': { type: 'string' } } });
if (!args['data-dir']) throw new Error('--data-dir is required');

/** Eight digits from the name (FNV-1a), then the check digit: a valid ΑΦΜ, the same for the same name. */
function afmOf(name: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  const body = String(10_000_000 + (h % 90_000_000));
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(body[i]) * 2 ** (8 - i);
  return body + String((sum % 11) % 10);
}

const db = openSqlite(path.join(args['data-dir'], 'documents.db'));
const names = db.prepare("SELECT DISTINCT name FROM entity_parties WHERE name LIKE '% Α.Ε.'").pluck().all() as string[];
const setAfm = db.prepare('UPDATE entity_parties SET afm = ?, role = ? WHERE name = ?');
const putKeys = db.prepare("INSERT OR IGNORE INTO entity_keys (kind, key, source_id) SELECT 'afm', ?, source_id FROM entity_parties WHERE name = ?");
let keys = 0;
for (const name of names) {
  db.transaction(() => {
    const afm = afmOf(name);
    setAfm.run(afm, 'supplier', name);
    keys += putKeys.run(afm, name).changes;
  })();
}
process.stderr.write(`${names.length} contractors, ${keys} ΑΦΜ keys\n`);
db.close();
