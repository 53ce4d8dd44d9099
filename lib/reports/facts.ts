// What a report reads from one document: its kind, value, parties and procedure, from the document's
// fields (`parties`, `procedure_type`, `tenders_received`, `act_date`; index-mappings/document.ts).
import { fold } from '../greek.js';
import type { IdentifierType } from '../identifiers.js';
import { sameName } from '../names.js';
import type { StoredDocument } from '../search/provider.js';
import type { PartyRole } from '../../index-mappings/document.js';

export type FactKind = 'contract' | 'payment' | 'modification' | 'notice' | 'decision' | 'regulatory' | 'other';

export interface Party {
  name: string;
  afm: string | null;
}

export interface DocumentFacts {
  id: string;
  source: string;
  title: string;
  source_url: string;
  published_at: string;
  year: number;
  kind: FactKind;
  /** EUR value, or null (none stated, or another currency). */
  value: number | null;
  buyers: Party[];
  suppliers: Party[];
  /** The procedure as the source wrote it, or null. */
  procedure: string | null;
  /** True for a direct award or a negotiated procedure without a call; null when the procedure is unknown. */
  direct: boolean | null;
  /** Tenders received, when the source states it. */
  bidders: number | null;
  /** The day the act was issued or signed (YYYY-MM-DD), when stated apart from publication. */
  actDate: string | null;
}

/** doc_category → kind. Awards and contracts are the procurement the totals count. */
const KIND_OF_CATEGORY: Record<string, FactKind> = {
  award: 'contract',
  contract: 'contract',
  payment: 'payment',
  modification: 'modification',
  tender_notice: 'notice',
  prior_information: 'notice',
  procurement_request: 'notice',
  licence: 'regulatory',
};

/** Folded words that mark a procedure without competition (KIMDIS, Diavgeia, TED's eForms codes). */
const DIRECT_MARKS = [
  'απευθειασ',
  'direct award',
  'neg-wo-call',
  'without prior publication',
  'without a call',
  'χωρισ δημοσιευση',
  'χωρισ προηγουμενη δημοσιευση',
];

/** The document's parties of a role; one named only by its ΑΦΜ goes by that. */
function partiesIn(doc: StoredDocument, role: PartyRole): Party[] {
  return (doc.parties ?? []).filter((p) => p.role === role).map((p) => ({ name: p.name ?? p.afm ?? '', afm: p.afm }));
}

export function isDirectProcedure(procedure: string): boolean {
  const folded = fold(procedure);
  return DIRECT_MARKS.some((mark) => folded.includes(mark));
}

export function factsOf(doc: StoredDocument): DocumentFacts {
  const procedure = doc.procedure_type ?? null;
  const regulatory = doc.source === 'rae' || doc.doc_category === 'regulatory_act';
  const kind: FactKind = regulatory ? 'regulatory' : (KIND_OF_CATEGORY[doc.doc_category] ?? (doc.source === 'diavgeia' ? 'decision' : 'other'));
  return {
    id: doc.source_id,
    source: doc.source,
    title: doc.title,
    source_url: doc.source_url,
    published_at: doc.published_at,
    year: Number(doc.published_at.slice(0, 4)),
    kind,
    value: doc.amount && doc.amount.currency === 'EUR' && doc.amount.value > 0 ? doc.amount.value : null,
    buyers: partiesIn(doc, 'buyer'),
    suppliers: partiesIn(doc, 'supplier'),
    procedure,
    direct: procedure === null ? null : isDirectProcedure(procedure),
    bidders: doc.tenders_received ?? null,
    actDate: doc.act_date ?? null,
  };
}

/** The report's entity: as asked, with the names and ΑΦΜs the resolver found it goes by. */
export interface Entity {
  identifier: string;
  type: IdentifierType;
  names?: string[];
  afms?: string[];
}

/**
 * Whether a party is the report's entity: its ΑΦΜ; for a name, an ΑΦΜ the name goes with, the same
 * name (folded, Greeklish included) or a name holding it. A decision (ΑΔΑ) is no party.
 */
export function isEntity(p: Party, e: Entity): boolean {
  if (e.type === 'afm') return p.afm === e.identifier;
  if (e.type !== 'name') return false;
  if (p.afm !== null && e.afms?.includes(p.afm)) return true;
  return (e.names ?? []).some((n) => sameName(n, p.name)) || sameName(e.identifier, p.name) || fold(p.name).includes(fold(e.identifier));
}

/** A party's key for grouping: its AFM, else its folded name. */
export function partyKey(p: Party): string {
  return p.afm ?? fold(p.name);
}
