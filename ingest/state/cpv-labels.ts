// The CPV label table beside the document store (documents.db): each TED notice's vote for the label of
// its main code (ingest/sources/ted/cpv-labels.ts), and the votes counted per code and label. Written in
// the transactions that store records (DocumentStore.save and correct), so an updated notice moves its
// vote; `pdi reindex` counts them again from the stored notices (relearnCpvLabels).
import type { IndexedDocument, NormalizedDocument } from '../../index-mappings/document.js';
import type { Sqlite } from '../../lib/sqlite.js';
import { type CpvLabel, LABELLED_SOURCES, noticeCpvLabel } from '../sources/ted/cpv-labels.js';

export const CPV_LABELS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS cpv_label_votes (
    source_id TEXT PRIMARY KEY,
    code      TEXT NOT NULL,
    el        TEXT NOT NULL,
    en        TEXT NOT NULL
  ) WITHOUT ROWID;
  -- A code's label is its most voted (ties: the first by el, en).
  CREATE TABLE IF NOT EXISTS cpv_labels (
    code  TEXT NOT NULL,
    el    TEXT NOT NULL,
    en    TEXT NOT NULL,
    votes INTEGER NOT NULL,
    PRIMARY KEY (code, el, en)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS cpv_labels_best ON cpv_labels (code, votes DESC, el, en);
`;

/** Records the votes of the TED notices among `docs`, replacing each one's earlier vote (call within a transaction). */
export function writeCpvVotes(db: Sqlite, docs: readonly NormalizedDocument[]): void {
  const notices = docs.filter((d) => d.source === 'ted');
  if (notices.length === 0) return;
  const earlier = db.prepare('SELECT code, el, en FROM cpv_label_votes WHERE source_id = ?');
  const drop = db.prepare('DELETE FROM cpv_label_votes WHERE source_id = ?');
  const less = db.prepare('UPDATE cpv_labels SET votes = votes - 1 WHERE code = ? AND el = ? AND en = ?');
  const none = db.prepare('DELETE FROM cpv_labels WHERE code = ? AND el = ? AND en = ? AND votes <= 0');
  const vote = db.prepare('INSERT INTO cpv_label_votes (source_id, code, el, en) VALUES (?, ?, ?, ?)');
  const more = db.prepare(
    `INSERT INTO cpv_labels (code, el, en, votes) VALUES (?, ?, ?, 1)
     ON CONFLICT (code, el, en) DO UPDATE SET votes = votes + 1`,
  );
  for (const doc of notices) {
    const old = earlier.get(doc.source_id) as { code: string; el: string; en: string } | undefined;
    if (old) {
      drop.run(doc.source_id);
      less.run(old.code, old.el, old.en);
      none.run(old.code, old.el, old.en);
    }
    const found = noticeCpvLabel(doc);
    if (!found) continue;
    vote.run(doc.source_id, found.code, found.label.el, found.label.en);
    more.run(found.code, found.label.el, found.label.en);
  }
}

/** Counts the votes again from the stored notices alone, read in batches (call within a transaction). */
export function relearnCpvLabels(db: Sqlite, notices: Iterable<{ doc: NormalizedDocument }[]>): void {
  db.exec('DELETE FROM cpv_label_votes; DELETE FROM cpv_labels;');
  for (const batch of notices) {
    writeCpvVotes(
      db,
      batch.map((r) => r.doc),
    );
  }
}

/** Each code's label, as the table holds it. */
export function cpvLabelTable(db: Sqlite): Map<string, CpvLabel> {
  const rows = db.prepare('SELECT code, el, en FROM cpv_labels ORDER BY code, votes DESC, el, en').all() as ({ code: string } & CpvLabel)[];
  const table = new Map<string, CpvLabel>();
  for (const r of rows) if (!table.has(r.code)) table.set(r.code, { el: r.el, en: r.en });
  return table;
}

/** A reader of the English labels of codes, in the codes' order, each once (codes without one left out). */
export function englishLabelReader(db: Sqlite): (codes: readonly string[]) => string[] {
  const best = db.prepare('SELECT en FROM cpv_labels WHERE code = ? ORDER BY votes DESC, el, en LIMIT 1').pluck();
  return (codes) => [...new Set(codes.map((c) => best.get(c) as string | undefined).filter((l): l is string => l !== undefined))];
}

/**
 * A KIMDIS or Diavgeia document with the English labels of its CPV codes that the store has learned so
 * far (a document stored before TED taught a label gets it at the next `pdi reindex`): as it is indexed,
 * and as the feed gives it to alert matching, which searches what search does.
 */
export function withCpvLabels<T extends NormalizedDocument & Pick<IndexedDocument, 'cpv_labels_en'>>(
  documents: { englishCpvLabels(codes: readonly string[]): string[] },
  doc: T,
): T {
  if (!LABELLED_SOURCES.has(doc.source) || doc.cpv.length === 0) return doc;
  const labels = documents.englishCpvLabels(doc.cpv);
  return labels.length > 0 ? { ...doc, cpv_labels_en: labels } : doc;
}
