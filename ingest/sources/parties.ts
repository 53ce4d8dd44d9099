// The one renderer of a document's parties into its `content`: the labelled lines a reader sees
// (`Ανάδοχος: ΟΝΟΜΑ (ΑΦΜ 123456789)`). Nothing parses these lines back: readers read `parties`.
import type { Party, PartyRole } from '../../index-mappings/document.js';
import { validAfm } from '../../lib/identifiers.js';
import { collapse } from './text.js';

const LABELS: Record<'el' | 'en', Record<PartyRole, string>> = {
  el: { buyer: 'Αναθέτουσα αρχή', supplier: 'Ανάδοχος', issuer: 'Φορέας', holder: 'Κάτοχος', other: 'Πρόσωπο' },
  en: { buyer: 'Buyer', supplier: 'Winner', issuer: 'Issuer', holder: 'Holder', other: 'Party' },
};

/** A party from a name and an ΑΦΜ as the record gives them; null when it gives neither. */
export function partyOf(role: PartyRole, name: unknown, afm: string | null): Party | null {
  const n = collapse(name);
  const a = afm === null ? null : validAfm(afm);
  return n === '' && a === null ? null : { role, name: n === '' ? null : n, afm: a };
}

/** Parties without repeats (the same role, name and ΑΦΜ), nulls dropped, in the record's order. */
export function partyList(parties: (Party | null)[]): Party[] {
  const out: Party[] = [];
  for (const p of parties) {
    if (p && !out.some((q) => q.role === p.role && q.name === p.name && q.afm === p.afm)) out.push(p);
  }
  return out;
}

/** The content lines of the parties, one each, labelled in the document's language. */
export function partyLines(parties: Party[], language: 'el' | 'en'): string[] {
  const labels = LABELS[language];
  return parties.map((p) => `${labels[p.role]}: ${p.name ?? '—'}${p.afm ? ` (ΑΦΜ ${p.afm})` : ''}`);
}
