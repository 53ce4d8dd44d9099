// Gives the benchmark corpus's contractors ΑΦΜs, so that entity by ΑΦΜ can be measured at 1M
// (against its target: at most the cost of a rare-term search): bench/search/generate.ts names one contractor per document (735 surnames, drawn Zipf:
// the commonest in ~14% of the documents, the rarest in a few hundred) and no ΑΦΜ. Each name gets one
// valid ΑΦΜ derived from it, as a supplier party of the document, stored again through the document
// store (DocumentStore.correct), so the entity index and its aggregates are written as ingest writes
// them. The search engines are untouched: entity lookups read only the entity index.
//   node --import tsx bench/entity/add-afms.ts --data-dir ~/.cache/pdi/bench-1000000-20240611
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { DocumentStore } from '../../ingest/state/documents.js';

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

const store = new DocumentStore(DocumentStore.pathIn(args['data-dir']));
const page = store.db.prepare('SELECT doc, content_hash, indexed_at FROM documents WHERE source_id > ? ORDER BY source_id LIMIT 5000');
let changed = 0;
for (let after = ''; ; ) {
  const rows = page.all(after) as { doc: string; content_hash: string; indexed_at: string }[];
  if (rows.length === 0) break;
  const records = [];
  for (const r of rows) {
    const doc = JSON.parse(r.doc) as NormalizedDocument;
    after = doc.source_id;
    const name = doc.entities.names.find((n) => n.endsWith(' Α.Ε.'));
    if (!name || doc.parties.some((p) => p.afm !== null)) continue;
    const afm = afmOf(name);
    records.push({
      doc: { ...doc, parties: [{ role: 'supplier' as const, name, afm }], entities: { ...doc.entities, afm: [afm] } },
      content_hash: r.content_hash,
      original: null,
      indexed_at: r.indexed_at,
    });
  }
  store.correct(records);
  changed += records.length;
}
process.stderr.write(`${changed} documents given their contractor's ΑΦΜ\n`);
store.close();
