// The learned CPV label table beside the document store (documents.db): each TED notice's vote for the
// label of its main code, with its buyer (ingest/sources/ted/cpv-labels.ts noticeCpvVote), and each
// code's label as chooseLabel picks it from the votes and the label it had. Written in the transactions
// that store records (DocumentStore.save and correct), so an updated notice moves its vote; `pdi reindex`
// counts the votes again from the stored notices (relearnCpvLabels), keeping each code's label on a tie.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import type { Sqlite } from '../../lib/sqlite.js';
import { chooseLabel, type CpvLabel, type LabelTally, noticeCpvVote } from '../sources/ted/cpv-labels.js';

export const CPV_LABELS_SCHEMA = `
  -- The tables of builds before a vote named its buyer: their votes are counted again at pdi reindex.
  DROP TABLE IF EXISTS cpv_label_votes;
  DROP TABLE IF EXISTS cpv_labels;
  CREATE TABLE IF NOT EXISTS cpv_votes (
    source_id TEXT PRIMARY KEY,
    code      TEXT NOT NULL,
    el        TEXT NOT NULL,
    en        TEXT NOT NULL,
    buyer     TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS cpv_votes_by_code ON cpv_votes (code);
  CREATE TABLE IF NOT EXISTS cpv_learned (
    code TEXT PRIMARY KEY,
    el   TEXT NOT NULL,
    en   TEXT NOT NULL
  ) WITHOUT ROWID;
`;

/** Records the votes of the TED notices among `docs`, each replacing its earlier one; returns the codes whose votes changed. */
function recordVotes(db: Sqlite, docs: readonly NormalizedDocument[]): Set<string> {
  const touched = new Set<string>();
  const earlier = db.prepare('SELECT code FROM cpv_votes WHERE source_id = ?').pluck();
  const drop = db.prepare('DELETE FROM cpv_votes WHERE source_id = ?');
  const put = db.prepare('INSERT INTO cpv_votes (source_id, code, el, en, buyer) VALUES (?, ?, ?, ?, ?)');
  for (const doc of docs) {
    if (doc.source !== 'ted') continue;
    const old = earlier.get(doc.source_id) as string | undefined;
    if (old !== undefined) {
      drop.run(doc.source_id);
      touched.add(old);
    }
    const vote = noticeCpvVote(doc);
    if (!vote) continue;
    put.run(doc.source_id, vote.code, vote.label.el, vote.label.en, vote.buyer);
    touched.add(vote.code);
  }
  return touched;
}

/** Picks each code's label again from its votes and the label it has (chooseLabel). */
function chooseLabels(db: Sqlite, codes: Iterable<string>): void {
  const tallies = db.prepare(`SELECT el, en, count(DISTINCT NULLIF(buyer, '')) AS buyers, count(*) AS notices FROM cpv_votes WHERE code = ? GROUP BY el, en`);
  const current = db.prepare('SELECT el, en FROM cpv_learned WHERE code = ?');
  const set = db.prepare('INSERT INTO cpv_learned (code, el, en) VALUES (?, ?, ?) ON CONFLICT (code) DO UPDATE SET el = excluded.el, en = excluded.en');
  const unset = db.prepare('DELETE FROM cpv_learned WHERE code = ?');
  for (const code of codes) {
    const rows = tallies.all(code) as (CpvLabel & { buyers: number; notices: number })[];
    const label = chooseLabel(
      rows.map((r): LabelTally => ({ label: { el: r.el, en: r.en }, buyers: r.buyers, notices: r.notices })),
      current.get(code) as CpvLabel | undefined,
    );
    if (label) set.run(code, label.el, label.en);
    else unset.run(code);
  }
}

/** Records the votes of the TED notices among `docs` and picks their codes' labels again (call within a transaction). */
export function writeCpvVotes(db: Sqlite, docs: readonly NormalizedDocument[]): void {
  const touched = recordVotes(db, docs);
  if (touched.size > 0) chooseLabels(db, touched);
}

/**
 * Counts the votes again from the stored notices alone, read in batches, then picks every code's label
 * once they are all counted, the label each had staying on a tie (call within a transaction).
 */
export function relearnCpvLabels(db: Sqlite, notices: Iterable<{ doc: NormalizedDocument }[]>): void {
  db.exec('DELETE FROM cpv_votes');
  for (const batch of notices)
    recordVotes(
      db,
      batch.map((r) => r.doc),
    );
  const codes = db.prepare('SELECT code FROM cpv_votes UNION SELECT code FROM cpv_learned').pluck().all() as string[];
  chooseLabels(db, codes);
}

/** Each code's learned label. */
export function cpvLabelTable(db: Sqlite): Map<string, CpvLabel> {
  const rows = db.prepare('SELECT code, el, en FROM cpv_learned ORDER BY code').all() as ({ code: string } & CpvLabel)[];
  return new Map(rows.map((r) => [r.code, { el: r.el, en: r.en }]));
}

/** A reader of one code's learned label. */
export function learnedLabelReader(db: Sqlite): (code: string) => CpvLabel | undefined {
  const read = db.prepare('SELECT el, en FROM cpv_learned WHERE code = ?');
  return (code) => read.get(code) as CpvLabel | undefined;
}
