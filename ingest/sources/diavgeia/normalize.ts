// One Diavgeia decision → one NormalizedDocument. Money, ΑΦΜ and CPV sit in `extraFieldValues`, whose keys
// depend on the decision type (docs/upstream-sources.md §1.1); docs/ingest-procurement-sources.md lists the choices.
import type { Amount, NormalizedDocument } from '../../../index-mappings/document.js';
import { extractIdentifiers, normalizeAda, validAfm } from '../../../lib/identifiers.js';
import { qualityScore } from '../../quality.js';
import { collapse } from '../text.js';
import { formatAmount, isObject, roundMoney, toNumber, uniq } from '../values.js';
import { instantToIso } from '../../../lib/clock.js';
import { sectorFromCpv } from '../codes.js';
import { normalizeCpv } from '../../../lib/vocabulary/cpv.js';
import { MalformedRecordError } from '../types.js';
import { partyLines, partyList, partyOf } from '../parties.js';
import { NO_ORGANIZATIONS, type Organizations } from './organizations.js';
import type { DiavgeiaAfmName, DiavgeiaAmount, DiavgeiaDecision, DiavgeiaExtraFields } from './types.js';

interface DecisionType {
  /** The official label (GET /types). */
  label: string;
  /** Our stable English slug, the document's doc_category. */
  category: string;
}

/**
 * Decision type uid → label and doc_category. Monitoring maps `award` to `contract_award` events and every
 * other Diavgeia category to `new_decision`. Unknown types get `decision`.
 */
export const DECISION_TYPES: Record<string, DecisionType> = {
  'Α.1.1': { label: 'ΝΟΜΟΣ', category: 'law' },
  'Α.1.2': { label: 'ΠΡΑΞΗ ΝΟΜΟΘΕΤΙΚΟΥ ΠΕΡΙΕΧΟΜΕΝΟΥ', category: 'legislative_act' },
  'Α.2': { label: 'ΚΑΝΟΝΙΣΤΙΚΗ ΠΡΑΞΗ', category: 'regulatory_act' },
  'Α.3': { label: 'ΕΓΚΥΚΛΙΟΣ', category: 'circular' },
  'Α.4': { label: 'ΓΝΩΜΟΔΟΤΗΣΗ', category: 'legal_opinion' },
  'Α.5': { label: 'ΠΡΑΚΤΙΚΑ ΝΟΜΙΚΟΥ ΣΥΜΒΟΥΛΙΟΥ ΤΟΥ ΚΡΑΤΟΥΣ', category: 'legal_opinion' },
  'Α.6': { label: 'ΕΚΘΕΣΗ ΑΠΟΤΙΜΗΣΗΣ ΓΙΑ ΤΗΝ ΚΑΤΑΣΤΑΣΗ ΤΗΣ ΥΦΙΣΤΑΜΕΝΗΣ ΝΟΜΟΘΕΣΙΑΣ', category: 'report' },
  'Α.7': { label: 'ΕΚΘΕΣΗ ΤΗΣ ΚΕΝΤΡΙΚΗΣ ΕΠΙΤΡΟΠΗΣ ΚΩΔΙΚΟΠΟΙΗΣΗΣ', category: 'report' },
  'Β.1.1': { label: 'ΕΓΚΡΙΣΗ ΠΡΟΥΠΟΛΟΓΙΣΜΟΥ', category: 'budget' },
  'Β.1.2': { label: 'ΕΠΙΤΡΟΠΙΚΟ ΕΝΤΑΛΜΑ', category: 'payment_warrant' },
  'Β.1.3': { label: 'ΑΝΑΛΗΨΗ ΥΠΟΧΡΕΩΣΗΣ', category: 'commitment' },
  'Β.2.1': { label: 'ΕΓΚΡΙΣΗ ΔΑΠΑΝΗΣ', category: 'expenditure_approval' },
  'Β.2.2': { label: 'ΟΡΙΣΤΙΚΟΠΟΙΗΣΗ ΠΛΗΡΩΜΗΣ', category: 'payment' },
  'Β.3': { label: 'ΙΣΟΛΟΓΙΣΜΟΣ – ΑΠΟΛΟΓΙΣΜΟΣ', category: 'financial_statement' },
  'Β.4': { label: 'ΔΩΡΕΑ - ΕΠΙΧΟΡΗΓΗΣΗ', category: 'grant' },
  'Β.5': { label: 'ΠΑΡΑΧΩΡΗΣΗ ΧΡΗΣΗΣ ΠΕΡΙΟΥΣΙΑΚΩΝ ΣΤΟΙΧΕΙΩΝ', category: 'asset_concession' },
  'Β.6': { label: 'ΠΡΟΓΡΑΜΜΑΤΙΚΗ ΣΥΜΦΩΝΙΑ ΟΙΚΟΝΟΜΙΚΗΣ ΥΠΟΣΤΗΡΙΞΗΣ', category: 'funding_agreement' },
  'Γ.2': { label: 'ΠΡΑΞΗ ΠΟΥ ΑΦΟΡΑ ΣΕ ΣΥΛΛΟΓΙΚΟ ΟΡΓΑΝΟ', category: 'committee' },
  'Γ.3.1': { label: 'ΠΡΟΚΗΡΥΞΗ ΠΛΗΡΩΣΗΣ ΘΕΣΕΩΝ', category: 'job_announcement' },
  'Γ.3.2': { label: 'ΠΙΝΑΚΕΣ ΕΠΙΤΥΧΟΝΤΩΝ, ΔΙΟΡΙΣΤΕΩΝ & ΕΠΙΛΑΧΟΝΤΩΝ', category: 'candidate_list' },
  'Γ.3.3': { label: 'ΔΙΟΡΙΣΜΟΣ', category: 'appointment' },
  'Γ.3.4': { label: 'ΣΥΜΒΑΣΗ', category: 'staff_contract' },
  'Γ.3.5': { label: 'ΥΠΗΡΕΣΙΑΚΗ ΜΕΤΑΒΟΛΗ', category: 'staff_change' },
  'Γ.3.6': { label: 'ΑΘΩΩΤΙΚΗ ΠΕΙΘΑΡΧΙΚΗ ΑΠΟΦΑΣΗ', category: 'disciplinary_decision' },
  '100': { label: 'ΠΡΑΞΗ ΠΟΥ ΑΦΟΡΑ ΣΕ ΘΕΣΗ ΓΕΝΙΚΟΥ - ΕΙΔΙΚΟΥ ΓΡΑΜΜΑΤΕΑ - ΜΟΝΟΜΕΛΕΣ ΟΡΓΑΝΟ', category: 'appointment' },
  'Δ.1': { label: 'ΑΝΑΘΕΣΗ ΕΡΓΩΝ / ΠΡΟΜΗΘΕΙΩΝ / ΥΠΗΡΕΣΙΩΝ / ΜΕΛΕΤΩΝ', category: 'award' },
  'Δ.2.1': { label: 'ΠΕΡΙΛΗΨΗ ΔΙΑΚΗΡΥΞΗΣ', category: 'tender_notice' },
  'Δ.2.2': { label: 'ΚΑΤΑΚΥΡΩΣΗ', category: 'award' },
  'Ε.1': { label: 'ΠΡΑΞΗ ΥΠΑΓΩΓΗΣ ΕΠΕΝΔΥΣΕΩΝ', category: 'investment_approval' },
  'Ε.2': { label: 'ΣΥΜΒΑΣΗ-ΠΡΑΞΕΙΣ ΑΝΑΠΤΥΞΙΑΚΩΝ ΝΟΜΩΝ', category: 'development_contract' },
  'Ε.3': { label: 'ΑΠΟΦΑΣΗ ΕΝΑΡΞΗΣ ΠΑΡΑΓΩΓΙΚΗΣ ΛΕΙΤΟΥΡΓΙΑΣ ΕΠΕΝΔΥΣΗΣ', category: 'investment_start' },
  'Ε.4': { label: 'ΑΛΛΗ ΠΡΑΞΗ ΑΝΑΠΤΥΞΙΑΚΟΥ ΝΟΜΟΥ', category: 'development_act' },
  'Ζ.1': { label: 'ΔΗΜΟΣΙΑ ΠΡΟΤΥΠΑ ΕΓΓΡΑΦΑ', category: 'template_document' },
  '2.4.6.1': { label: 'ΠΡΑΞΕΙΣ ΧΩΡΟΤΑΞΙΚΟΥ - ΠΟΛΕΟΔΟΜΙΚΟΥ ΠΕΡΙΕΧΟΜΕΝΟΥ', category: 'spatial_planning' },
  '2.4.7.1': { label: 'ΛΟΙΠΕΣ ΑΤΟΜΙΚΕΣ ΔΙΟΙΚΗΤΙΚΕΣ ΠΡΑΞΕΙΣ', category: 'administrative_act' },
};

/** Categories of decisions that award, commit or spend: their body is the buyer. */
const SPENDING_CATEGORIES = new Set(['award', 'tender_notice', 'commitment', 'expenditure_approval', 'payment', 'payment_warrant']);

const LATIN_TYPE_LETTERS: Record<string, string> = { A: 'Α', B: 'Β', E: 'Ε', Z: 'Ζ' };

/** `B.2.2` typed with a Latin B → `Β.2.2`. */
function normalizeTypeId(v: unknown): string {
  return collapse(v)
    .toUpperCase()
    .replace(/[ABEZ]/g, (c) => LATIN_TYPE_LETTERS[c] ?? c);
}

export const DIAVGEIA_VIEW_URL = 'https://diavgeia.gov.gr/decision/view/';

function list<T>(v: T[] | T | null | undefined): T[] {
  if (v === null || v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** Array entries that are objects (upstream arrays sometimes hold nulls). */
function objects<T>(v: T[] | T | null | undefined): T[] {
  return list(v).filter((e) => isObject(e));
}

/** A Greek party's valid ΑΦΜ, or null (foreign parties and bad check digits are left out). */
function greekAfm(p: DiavgeiaAfmName | null | undefined): string | null {
  if (!isObject(p)) return null;
  const foreign = (v: unknown) => typeof v === 'string' && v.trim() !== '' && !['EL', 'GR'].includes(v.trim().toUpperCase());
  if (foreign(p.afmType) || foreign(p.afmCountry)) return null;
  return validAfm(p.afm);
}

function moneyOf(a: DiavgeiaAmount | null | undefined): Amount | null {
  if (!isObject(a)) return null;
  const value = toNumber(a.amount);
  if (value === null || value <= 0) return null;
  return { value: roundMoney(value), currency: collapse(a.currency).toUpperCase() || 'EUR' };
}

/** Sum of amounts that share one currency; null when there are none or the currencies differ. */
function sumOf(amounts: (Amount | null)[]): Amount | null {
  const known = amounts.filter((a): a is Amount => a !== null);
  if (known.length === 0 || known.some((a) => a.currency !== known[0]!.currency)) return null;
  return { value: roundMoney(known.reduce((s, a) => s + a.value, 0)), currency: known[0]!.currency };
}

/** Whether an amount includes VAT, as the field it came from says (null: upstream does not say). */
type VatBasis = 'με ΦΠΑ' | 'χωρίς ΦΠΑ' | null;

/**
 * Amount precedence (first that is present and positive), with what each field says of VAT:
 * 1. `awardAmount` (Δ.1 award, Δ.2.2 κατακύρωση) — the awarded value;
 * 2. the sum of `sponsor[].expenseAmount` (Β.2.1 expenditure approval, Β.2.2 payment);
 * 3. `amountWithoutVAT`, then 4. `amountWithVAT` (Β.1.3 commitments and others);
 * 5. the sum of `amountWithKae[].amountWithVAT` (Β.1.3 split by budget line);
 * 6. `estimatedAmount` (Δ.2.1 tender notice summary).
 */
const AMOUNT_FIELDS: [(x: DiavgeiaExtraFields) => Amount | null, VatBasis][] = [
  [(x) => moneyOf(x.awardAmount), null],
  [(x) => sumOf(objects(x.sponsor).map((s) => moneyOf(s.expenseAmount))), null],
  [(x) => moneyOf(x.amountWithoutVAT), 'χωρίς ΦΠΑ'],
  [(x) => moneyOf(x.amountWithVAT), 'με ΦΠΑ'],
  [(x) => sumOf(objects(x.amountWithKae).map((k) => moneyOf({ amount: k.amountWithVAT, currency: 'EUR' }))), 'με ΦΠΑ'],
  [(x) => moneyOf(x.estimatedAmount), null],
];

/** The decision's amount, and whether it includes VAT: most decisions state only an amount with VAT. */
function diavgeiaAmount(x: DiavgeiaExtraFields): { amount: Amount; vat: VatBasis } | null {
  for (const [read, vat] of AMOUNT_FIELDS) {
    const amount = read(x);
    if (amount) return { amount, vat };
  }
  return null;
}

/** Every string under the `related…`/`…ADA` keys, split on separators: candidates for related ADAs. */
function relatedAdaCandidates(x: DiavgeiaExtraFields): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(...v.split(/[\s,;]+/));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) typeof v.ada === 'string' ? walk(v.ada) : Object.values(v).forEach(walk);
  };
  // relatedDecisions first (the explicit links), then textRelatedADA, then the type-specific ones
  // (relatedEkgrisiDapanis, relatedAnalipsiYpoxreosis, relatedPartialADA, …).
  walk(x.relatedDecisions);
  walk(x.textRelatedADA);
  for (const [k, v] of Object.entries(x)) {
    if (k !== 'relatedDecisions' && k !== 'textRelatedADA' && /related|ada$/i.test(k)) walk(v);
  }
  return out;
}

function cpvList(x: DiavgeiaExtraFields): string[] {
  const raw: unknown[] = [...list(x.cpv)];
  for (const s of objects(x.sponsor)) raw.push(...list(s.cpv));
  return uniq(raw.map(normalizeCpv));
}

function dateOf(v: unknown): string | null {
  return instantToIso(v)?.slice(0, 10) ?? null;
}

function sentence(s: string): string {
  return /[.!;…]$/.test(s) ? s : `${s}.`;
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

/**
 * One decision → one document. `organizations` (the directory, organizations.ts) names the publisher of
 * a decision that carries no `org` of its own, by its `organizationId`.
 */
export function normalizeDiavgeia(record: unknown, organizations: Organizations = NO_ORGANIZATIONS): NormalizedDocument {
  if (!isObject(record)) throw new MalformedRecordError('diavgeia: record is not an object');
  const d = record as DiavgeiaDecision;
  const ada = normalizeAda(d.ada);
  if (ada === null) throw new MalformedRecordError(`diavgeia: missing or malformed ada ${JSON.stringify(d.ada)}`);
  const publishedAt = instantToIso(d.submissionTimestamp) ?? instantToIso(d.publishTimestamp) ?? instantToIso(d.issueDate);
  if (publishedAt === null) throw new MalformedRecordError(`diavgeia: ${ada} has no usable submissionTimestamp`);

  const typeId = normalizeTypeId(d.decisionTypeId) || 'unknown';
  const type = DECISION_TYPES[typeId] ?? { label: typeId, category: 'decision' };
  const x: DiavgeiaExtraFields = isObject(d.extraFieldValues) ? d.extraFieldValues : {};
  const subject = collapse(d.subject);
  const title = subject || `${type.label} ${ada}`;

  const listed = organizations.get(String(d.organizationId ?? ''));
  const org: DiavgeiaAfmName | null = isObject(x.org) ? x.org : listed ? { afm: listed.vatNumber, name: listed.label } : null;
  const persons = objects(x.person);
  const sponsors = objects(x.sponsor).map((s) => ({ party: isObject(s.sponsorAFMName) ? s.sponsorAFMName : null, amount: moneyOf(s.expenseAmount) }));
  const kaeLines = objects(x.amountWithKae).map((k) => ({
    party: isObject(k.sponsorAFMName) ? k.sponsorAFMName : null,
    kae: collapse(k.kae),
    amount: moneyOf({ amount: k.amountWithVAT, currency: 'EUR' }),
  }));
  const named: (DiavgeiaAfmName | null)[] = [org, ...persons, ...sponsors.map((s) => s.party), ...kaeLines.map((k) => k.party)];
  // The body is the buyer of a decision that awards, commits or spends, else the decision's issuer. The
  // persons of an award are its contractors; of other decisions, people the decision is about.
  // Beneficiaries of spending decisions (sponsor) are payees: suppliers.
  const parties = partyList([
    org ? partyOf(SPENDING_CATEGORIES.has(type.category) ? 'buyer' : 'issuer', org.name, greekAfm(org)) : null,
    ...persons.map((p) => partyOf(type.category === 'award' ? 'supplier' : 'other', p.name, greekAfm(p))),
    ...sponsors.map((s) => (s.party ? partyOf('supplier', s.party.name, greekAfm(s.party)) : null)),
    ...kaeLines.map((k) => (k.party ? partyOf('other', k.party.name, greekAfm(k.party)) : null)),
  ]);

  const inSubject = extractIdentifiers(subject);
  const entities = {
    afm: uniq([...named.map(greekAfm), ...inSubject.afm]),
    ada: uniq([ada, ...relatedAdaCandidates(x).map(normalizeAda), ...inSubject.ada]),
    names: uniq(named.map((p) => collapse(p?.name))),
  };
  const stated = diavgeiaAmount(x);
  const amount = stated?.amount ?? null;
  const cpv = cpvList(x);

  // content: a readable rendering of the decision's metadata, in Greek like the decision itself.
  const lines: string[] = [title, `Είδος πράξης: ${type.label} (${typeId})`, `ΑΔΑ: ${ada}`];
  const protocol = collapse(d.protocolNumber);
  if (protocol) lines.push(`Αριθμός πρωτοκόλλου: ${protocol}`);
  const issued = dateOf(d.issueDate);
  if (issued) lines.push(`Ημερομηνία έκδοσης: ${issued}`);
  lines.push(`Ημερομηνία ανάρτησης: ${publishedAt.slice(0, 10)}`);
  lines.push(...partyLines(parties, 'el'));
  // Each beneficiary's share and each budget line's amount: the parties carry no amounts.
  for (const s of sponsors)
    if (s.party && s.amount) lines.push(`Ποσό δικαιούχου ${collapse(s.party.name) || greekAfm(s.party) || '—'}: ${formatAmount(s.amount)}`);
  for (const k of kaeLines) lines.push(`ΚΑΕ ${k.kae || '—'}${k.amount ? `: ${formatAmount(k.amount)}` : ''}`);
  // KIMDIS and TED amounts exclude VAT; most Diavgeia decisions state only an amount with VAT.
  if (stated) lines.push(`Ποσό: ${formatAmount(stated.amount)}${stated.vat ? ` (${stated.vat})` : ''}`);
  if (cpv.length) lines.push(`CPV: ${cpv.join(', ')}`);
  const kind = collapse(x.assignmentType) || collapse(x.manifestContractType);
  if (kind) lines.push(`Είδος σύμβασης: ${kind}`);
  const procedure = collapse(x.contestProgressType) || null;
  if (procedure) lines.push(`Διαδικασία: ${procedure}`);
  const related = entities.ada.filter((a) => a !== ada);
  if (related.length) lines.push(`Σχετικές πράξεις: ${related.join(', ')}`);

  const counterparties = uniq([...persons, ...sponsors.map((s) => s.party)].map((p) => collapse(p?.name)));
  const summaryParts = [`${type.label} (${typeId}) ${ada}: ${truncate(title, 200).replace(/[.\s]+$/, '')}`];
  if (amount) summaryParts.push(formatAmount(amount));
  if (counterparties.length) summaryParts.push(truncate(counterparties.join(', '), 200));

  const doc: Omit<NormalizedDocument, 'quality_score'> = {
    source_id: `diavgeia:${ada}`,
    source: 'diavgeia',
    country: 'GR',
    title,
    doc_type: typeId,
    doc_category: type.category,
    published_at: publishedAt,
    source_url: `${DIAVGEIA_VIEW_URL}${ada}`,
    language: 'el',
    content: lines.join('\n'),
    summary: sentence(summaryParts.join(', ')),
    entities,
    parties,
    procedure_type: procedure,
    // No Diavgeia decision type states the number of tenders.
    tenders_received: null,
    act_date: issued,
    amount,
    cpv,
    // No region code is derivable from the record (the directory gives no NUTS code either).
    region: null,
    sector: sectorFromCpv(cpv),
  };
  return { ...doc, quality_score: qualityScore(doc) };
}
