// The label of a CPV code in Greek and English, learned from TED notices: TED titles every notice
// `<country> – <CPV label> – <title>` in every EU language, the label being that of the notice's main
// (first) code, so its Greek and English titles give the code's label in both. The store keeps the
// votes (ingest/state/cpv-labels.ts). A learned label serves only a code the official vocabulary lacks
// (ingest/stages/cpv-labels.ts), and one notice cannot plant it: see chooseLabel.
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { searchedTitles } from '../../../index-mappings/searched-text.js';
import { nameKey } from '../../../lib/names.js';

export interface CpvLabel {
  el: string;
  en: string;
}

/** One notice's vote: the label of its main code, and who bought (the first buyer's ΑΦΜ or name key; '' when it names none). */
export interface CpvVote {
  code: string;
  label: CpvLabel;
  buyer: string;
}

/** A label's votes for one code: from how many buyers, in how many notices. */
export interface LabelTally {
  label: CpvLabel;
  buyers: number;
  notices: number;
}

/** A label longer than this is no CPV label (the longest official one, Greek, has 213 characters). */
export const LABEL_MAX_LENGTH = 220;
/** The buyers that must agree on a label before it is used: one notice, or one buyer's many, do not set it. */
export const MIN_BUYERS = 2;

const TITLE_PARTS = ' – ';

/** The vote of a TED notice for its main CPV code's label, from its Greek and English titles, or null. */
export function noticeCpvVote(doc: NormalizedDocument): CpvVote | null {
  if (doc.source !== 'ted' || doc.cpv.length === 0) return null;
  const [title, english] = searchedTitles(doc);
  const el = title?.split(TITLE_PARTS);
  const en = english?.split(TITLE_PARTS);
  if (!el || !en || el.length < 3 || en.length < 3) return null;
  const label = { el: el[1].trim(), en: en[1].trim() };
  if (!label.el || !label.en || label.el.length > LABEL_MAX_LENGTH || label.en.length > LABEL_MAX_LENGTH) return null;
  const buyer = doc.parties.find((p) => p.role === 'buyer');
  return { code: doc.cpv[0], label, buyer: buyer ? (buyer.afm ?? nameKey(buyer.name ?? '')) : '' };
}

export function sameLabel(a: CpvLabel, b: CpvLabel): boolean {
  return a.el === b.el && a.en === b.en;
}

/** Greek letters in the Greek label: a label of Latin letters alone is not what TED's Greek title writes. */
function greekScript(label: CpvLabel): boolean {
  return /[\u0370-\u03ff\u1f00-\u1fff]/.test(label.el);
}

/**
 * A code's label from its tallies: among the labels MIN_BUYERS buyers or more voted for, the one with the
 * most buyers; on a tie the `current` label stays, else the one in more notices, one in Greek letters,
 * then the first by code point. Undefined when no label has enough buyers.
 */
export function chooseLabel(tallies: readonly LabelTally[], current?: CpvLabel): CpvLabel | undefined {
  const eligible = tallies.filter((t) => t.buyers >= MIN_BUYERS);
  if (eligible.length === 0) return undefined;
  const most = Math.max(...eligible.map((t) => t.buyers));
  const top = eligible.filter((t) => t.buyers === most);
  if (current && top.some((t) => sameLabel(t.label, current))) return current;
  const key = (l: CpvLabel) => `${l.el}\n${l.en}`;
  top.sort(
    (a, b) =>
      b.notices - a.notices ||
      Number(greekScript(b.label)) - Number(greekScript(a.label)) ||
      (key(a.label) < key(b.label) ? -1 : key(a.label) > key(b.label) ? 1 : 0),
  );
  return top[0]!.label;
}

/** The tallies of votes, per code. */
export function tallyVotes(votes: Iterable<CpvVote>): Map<string, LabelTally[]> {
  const byCode = new Map<string, Map<string, { label: CpvLabel; buyers: Set<string>; notices: number }>>();
  for (const v of votes) {
    const byLabel = byCode.get(v.code) ?? new Map();
    const key = `${v.label.el}\n${v.label.en}`;
    const seen = byLabel.get(key) ?? { label: v.label, buyers: new Set<string>(), notices: 0 };
    if (v.buyer !== '') seen.buyers.add(v.buyer);
    seen.notices += 1;
    byLabel.set(key, seen);
    byCode.set(v.code, byLabel);
  }
  const out = new Map<string, LabelTally[]>();
  for (const [code, byLabel] of byCode)
    out.set(
      code,
      [...byLabel.values()].map((s) => ({ label: s.label, buyers: s.buyers.size, notices: s.notices })),
    );
  return out;
}

/** Each code's label as the notices teach it at once (chooseLabel, no current label), as the store learns it afresh. */
export function learnCpvLabels(docs: Iterable<NormalizedDocument>): Map<string, CpvLabel> {
  const votes: CpvVote[] = [];
  for (const doc of docs) {
    const vote = noticeCpvVote(doc);
    if (vote) votes.push(vote);
  }
  const table = new Map<string, CpvLabel>();
  for (const [code, tallies] of tallyVotes(votes)) {
    const label = chooseLabel(tallies);
    if (label) table.set(code, label);
  }
  return table;
}
