// One ΚΗΜΔΗΣ record → one NormalizedDocument. The act type comes from the ΑΔΑΜ itself
// (`26SYMV…` contract, `25AWRD…` award, …), so records of any of the five resources normalize.
import type { Amount, NormalizedDocument } from '../../../index-mappings/document.js';
import { normalizeAda, validAfm } from '../../../lib/identifiers.js';
import { qualityScore } from '../../quality.js';
import { athensLocalToIso, dateOnlyToIso, instantToIso } from '../../../lib/clock.js';
import { collapse } from '../text.js';
import { formatAmount, isObject, roundMoney, toNumber, uniq } from '../values.js';
import { isNutsCode, sectorFromCpv } from '../codes.js';
import { normalizeCpv } from '../../../lib/vocabulary/cpv.js';
import { MalformedRecordError } from '../types.js';
import { partyLines, partyList, partyOf } from '../parties.js';
import type { KeyValue, KimdisMember, KimdisRecord } from './types.js';

export const KIMDIS_BASE_URL = 'https://cerpp.eprocurement.gov.gr/khmdhs-opendata';

interface ActType {
  doc_type: string;
  doc_category: string;
  /** Path of the original PDF, `GET /{path}/attachment/{ADAM}`. */
  attachmentPath: string;
  label: string;
}

/** ΑΔΑΜ act code → document type. Monitoring maps `contract` and `award` to `contract_award` events. */
export const ACT_TYPES: Record<string, ActType> = {
  SYMV: { doc_type: 'contract', doc_category: 'contract', attachmentPath: 'contract', label: 'Σύμβαση' },
  AWRD: { doc_type: 'award', doc_category: 'award', attachmentPath: 'award', label: 'Απόφαση ανάθεσης' },
  PROC: { doc_type: 'notice', doc_category: 'tender_notice', attachmentPath: 'notice', label: 'Προκήρυξη' },
  REQ: { doc_type: 'request', doc_category: 'procurement_request', attachmentPath: 'request', label: 'Αίτημα' },
  // No attachment path is documented for payments and consultations; the pattern is assumed (UNCONFIRMED).
  PAY: { doc_type: 'payment', doc_category: 'payment', attachmentPath: 'payment', label: 'Εντολή πληρωμής' },
  DIAB: { doc_type: 'consultation', doc_category: 'consultation', attachmentPath: 'consultation', label: 'Διαβούλευση' },
};

function objects<T>(v: T[] | null | undefined): T[] {
  return Array.isArray(v) ? v.filter((e) => isObject(e)) : [];
}

function kv(v: KeyValue | null | undefined): { key: string; value: string } {
  return isObject(v) ? { key: collapse(v.key), value: collapse(v.value) } : { key: '', value: '' };
}

/**
 * A contractor's ΑΦΜ. Real records set `greekVatNumber: false` for Greek firms too (see the fixture), so
 * the flag alone cannot decide: a number counts when the flag is true or the member's country is Greece
 * (or unstated), and it passes the check digit.
 */
function memberAfm(m: KimdisMember): string | null {
  const country = kv(m.country).key.toUpperCase();
  const greek = m.greekVatNumber === true || country === '' || country === 'GR' || country === 'EL';
  return greek ? validAfm(m.vatNumber) : null;
}

/**
 * Amount: the value **without VAT** (`totalCostWithoutVAT`), the contract's legal value and the basis of
 * procurement thresholds, as TED's values are; then `totalCostWithVAT`; then the sum of the items'
 * `costWithoutVAT`. Currency from the first item, EUR when absent.
 */
export function kimdisAmount(r: KimdisRecord): { amount: Amount; vat: 'without' | 'with' } | null {
  const currency = kv(objects(r.objectDetailsList)[0]?.currency).key.toUpperCase() || 'EUR';
  const net = toNumber(r.totalCostWithoutVAT);
  if (net !== null && net > 0) return { amount: { value: roundMoney(net), currency }, vat: 'without' };
  const gross = toNumber(r.totalCostWithVAT);
  if (gross !== null && gross > 0) return { amount: { value: roundMoney(gross), currency }, vat: 'with' };
  const items = objects(r.objectDetailsList)
    .map((o) => toNumber(o.costWithoutVAT))
    .filter((n): n is number => n !== null && n > 0);
  if (items.length > 0) return { amount: { value: roundMoney(items.reduce((a, b) => a + b, 0)), currency }, vat: 'without' };
  return null;
}

function regionOf(r: KimdisRecord): { code: string; label: string } | null {
  const candidates = [kv(r.nutsCode), ...objects(r.nutsCodes).map((n) => kv(n.nutsCode))];
  const hit = candidates.find((c) => isNutsCode(c.key));
  return hit ? { code: hit.key, label: hit.value } : null;
}

function publishedAt(r: KimdisRecord): string | null {
  // submissionDate is Greek wall-clock time without an offset (UNCONFIRMED but consistent with every
  // record seen); contractSignedDate is a calendar day.
  return athensLocalToIso(r.submissionDate) ?? instantToIso(r.submissionDate) ?? dateOnlyToIso(r.submissionDate) ?? dateOnlyToIso(r.contractSignedDate);
}

function sentence(s: string): string {
  return /[.!;…]$/.test(s) ? s : `${s}.`;
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

/** `bidsSubmitted` when it is a count (a whole number, 0 or more); null when absent or unreadable. */
function tendersOf(v: unknown): number | null {
  const n = toNumber(v);
  return n !== null && Number.isInteger(n) && n >= 0 ? n : null;
}

export function normalizeKimdis(record: unknown): NormalizedDocument {
  if (!isObject(record)) throw new MalformedRecordError('kimdis: record is not an object');
  const r = record as KimdisRecord;
  const adam = collapse(r.referenceNumber);
  if (adam === '') throw new MalformedRecordError('kimdis: record has no referenceNumber');
  const published = publishedAt(r);
  if (published === null) throw new MalformedRecordError(`kimdis: ${adam} has no usable submissionDate or contractSignedDate`);

  const code = /^\d{2}([A-Z]+)\d/.exec(adam)?.[1] ?? '';
  const act: ActType = ACT_TYPES[code] ?? { doc_type: 'unknown', doc_category: 'other', attachmentPath: 'contract', label: 'Πράξη' };
  const org = kv(r.organization);
  const orgAfm = validAfm(r.organizationVatNumber);
  const details = isObject(r.contractingDataDetails) ? r.contractingDataDetails : {};
  const members = objects(details.contractingMembersDataList);
  const items = objects(r.objectDetailsList);
  const title = collapse(r.title) || `${act.label} ${adam}`;

  const parties = partyList([partyOf('buyer', org.value, orgAfm), ...members.map((m) => partyOf('supplier', m.name, memberAfm(m)))]);
  const related = isObject(r.contractRelatedADA) ? r.contractRelatedADA : {};
  const entities = {
    afm: uniq([orgAfm, ...members.map(memberAfm)]),
    ada: uniq([r.decisionRelatedAda, related.number1, related.number2, related.number3, r.diavgeiaADA, r.cancellationADA].map(normalizeAda)),
    names: uniq([org.value, ...members.map((m) => collapse(m.name))]),
  };
  const money = kimdisAmount(r);
  const cpvPairs = items.flatMap((o) => objects(o.cpvs).map(kv));
  const cpv = uniq(cpvPairs.map((c) => normalizeCpv(c.key)));
  const region = regionOf(r);

  const lines: string[] = [title, `ΑΔΑΜ: ${adam}`];
  if (collapse(r.contractNumber)) lines.push(`Αριθμός σύμβασης: ${collapse(r.contractNumber)}`);
  const buyers = parties.filter((p) => p.role === 'buyer');
  lines.push(...partyLines(buyers, 'el'));
  const unit = kv(details.unitsOperator).value;
  if (unit && unit !== org.value) lines.push(`Μονάδα: ${unit}`);
  lines.push(
    ...partyLines(
      parties.filter((p) => p.role !== 'buyer'),
      'el',
    ),
  );
  if (kv(r.contractType).value) lines.push(`Είδος σύμβασης: ${kv(r.contractType).value}`);
  const procedure = kv(r.procedureType).value || null;
  if (procedure) lines.push(`Διαδικασία: ${procedure}`);
  const tenders = tendersOf(r.bidsSubmitted);
  if (tenders !== null) lines.push(`Αριθμός προσφορών: ${tenders}`);
  if (kv(r.legalContext).value) lines.push(`Νομικό πλαίσιο: ${kv(r.legalContext).value}`);
  if (collapse(r.contractSignedDate)) lines.push(`Ημερομηνία υπογραφής: ${collapse(r.contractSignedDate)}`);
  if (collapse(r.startDate) || collapse(r.endDate)) lines.push(`Διάρκεια: ${collapse(r.startDate) || '—'} έως ${collapse(r.endDate) || '—'}`);
  const net = toNumber(r.totalCostWithoutVAT);
  const gross = toNumber(r.totalCostWithVAT);
  const currency = money?.amount.currency ?? 'EUR';
  if (net !== null) lines.push(`Αξία χωρίς ΦΠΑ: ${formatAmount({ value: roundMoney(net), currency })}`);
  if (gross !== null) lines.push(`Αξία με ΦΠΑ: ${formatAmount({ value: roundMoney(gross), currency })}`);
  for (const o of items) {
    const what = collapse(o.shortDescription);
    const codes = objects(o.cpvs)
      .map(kv)
      .map((c) => `${c.key} ${c.value}`.trim());
    if (what || codes.length) lines.push(`Αντικείμενο: ${what || '—'}${codes.length ? ` (CPV ${codes.join('; ')})` : ''}`);
  }
  if (region) lines.push(`Περιοχή (NUTS): ${region.code}${region.label ? ` ${region.label}` : ''}`);
  if (entities.ada.length) lines.push(`Σχετικές πράξεις Διαύγειας: ${entities.ada.join(', ')}`);
  if (collapse(r.prevReferenceNo)) lines.push(`Προηγούμενη πράξη: ${collapse(r.prevReferenceNo)}`);
  if (r.cancelled === true) lines.push('Ακυρωμένη: ναι');

  const summary = [`${act.label} ${adam}: ${truncate(title, 200).replace(/[.\s]+$/, '')}`];
  if (org.value) summary.push(org.value);
  const contractors = uniq(members.map((m) => collapse(m.name)));
  if (contractors.length) summary.push(truncate(contractors.join(', '), 200));
  if (money) summary.push(`${formatAmount(money.amount)} ${money.vat === 'without' ? 'χωρίς ΦΠΑ' : 'με ΦΠΑ'}`);

  const doc: Omit<NormalizedDocument, 'quality_score'> = {
    source_id: `kimdis:${adam}`,
    source: 'kimdis',
    country: 'GR',
    title,
    doc_type: act.doc_type,
    doc_category: act.doc_category,
    published_at: published,
    source_url: `${KIMDIS_BASE_URL}/${act.attachmentPath}/attachment/${encodeURIComponent(adam)}`,
    language: 'el',
    content: lines.join('\n'),
    summary: sentence(summary.join(', ')),
    entities,
    parties,
    procedure_type: procedure,
    tenders_received: tenders,
    act_date: /^\d{4}-\d{2}-\d{2}$/.test(collapse(r.contractSignedDate)) ? collapse(r.contractSignedDate) : null,
    amount: money?.amount ?? null,
    cpv,
    region: region?.code ?? null,
    sector: sectorFromCpv(cpv),
  };
  return { ...doc, quality_score: qualityScore(doc) };
}
