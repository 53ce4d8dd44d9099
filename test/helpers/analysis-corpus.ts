// A small seeded procurement corpus for the filter, aggregate, facet and export suites, and the oracle
// they are checked against: every filter's rule and every aggregate recomputed in JavaScript from the
// documents themselves (analysisKeysOf and lib/contract-value.ts are the definitions the engines follow).
import type { PublicMetrics } from '../../api/presenters/aggregate.js';
import { mulberry32 } from '../../data/generator/prng.js';
import { afmCheckDigit } from '../../data/generator/afm.js';
import { analysisKeysOf, type Grouping } from '../../index-mappings/analysis.js';
import type { IndexedDocument, Party } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { countedContractValues, toCents } from '../../lib/contract-value.js';
import { normalizeAda } from '../../lib/identifiers.js';
import type { Filters } from '../../lib/search/filters.js';
import { publishedWindow } from '../../lib/search/published-window.js';
import { makeDoc } from './elasticsearch.js';

const afmFrom = (first8: string) => first8 + String(afmCheckDigit(first8));
export const BUYERS = ['09002553', '09025284', '99778801', '80012345'].map(afmFrom);
export const SUPPLIERS = ['09401420', '80123288', '99812345', '80555123', '09777712', '80999001'].map(afmFrom);
const NAMES = new Map([...BUYERS, ...SUPPLIERS].map((afm, i) => [afm, `ΦΟΡΕΑΣ ${String.fromCharCode(0x391 + i)} ΑΕ`]));
const CPV = ['45233120', '45233141', '45210000', '09134100', '09135100', '34144900', '79341000', '90910000', '33141000'];
const PROCEDURES = ['open', 'neg-wo-call', 'Ανοιχτή διαδικασία', 'Απευθείας ανάθεση'];
const REGIONS = ['EL303', 'EL305', 'EL521', null];
const CATEGORIES = ['award', 'contract', 'contract', 'award', 'tender_notice', 'payment'];
const SOURCES: SourceName[] = ['kimdis', 'ted', 'diavgeia'];
/** ΑΔΑs shared by some awards and contracts, so that the contract-value rule has procurements to join. */
const ADAS = ['ΨΞ8Ε46ΜΤΛΡ-ΒΛΟ', 'Ω6Η2ΟΡΡ9-Β9Ω', '6ΡΑΖ46ΜΤΛΡ-ΖΕΒ', 'ΒΛΤΖ46ΜΤΛΡ-Ι8Ο', 'ΩΕΞ146ΜΤΛΡ-ΞΑΛ', '9ΥΞΗ46ΜΤΛΡ-ΔΒΥ'];

/** The word every document holds, so that a search of it matches the whole corpus. */
export const EVERY_WORD = 'προμήθεια';
/** Words a share of the documents hold, one each (document i the i-th modulo their number). */
export const SOME_WORDS = ['οδοφωτισμού', 'καθαριότητας', 'καυσίμων'];

/** `n` procurement documents of three sources, seeded; every filter and grouping has documents on both sides. */
export function analysisCorpus(n = 90, seed = 40): IndexedDocument[] {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const docs: IndexedDocument[] = [];
  for (let i = 0; i < n; i++) {
    const source = SOURCES[i % SOURCES.length]!;
    const category = pick(CATEGORIES);
    const parties: Party[] = [];
    const buyer = pick(BUYERS);
    if (rnd() < 0.9) parties.push({ role: 'buyer', name: NAMES.get(buyer)!, afm: buyer });
    const suppliers = rnd() < 0.15 ? 2 : rnd() < 0.85 ? 1 : 0;
    for (let s = 0; s < suppliers; s++) {
      const afm = pick(SUPPLIERS);
      // A party named without an ΑΦΜ is counted in no ΑΦΜ bucket.
      parties.push(rnd() < 0.1 ? { role: 'supplier', name: 'ΑΓΝΩΣΤΟΣ ΑΝΑΔΟΧΟΣ', afm: null } : { role: 'supplier', name: NAMES.get(afm)!, afm });
    }
    if (rnd() < 0.1) parties.push({ role: 'other', name: NAMES.get(SUPPLIERS[5]!)!, afm: SUPPLIERS[5]! });
    const cpv = rnd() < 0.1 ? [] : [pick(CPV)];
    if (rnd() < 0.2) cpv.push(pick(CPV));
    // A code written with its check digit reads as its 8 digits.
    if (cpv.length && rnd() < 0.2) cpv[0] = `${cpv[0]}-${Math.floor(rnd() * 10)}`;
    const value = Math.round(rnd() * 20_000_000) / 100;
    const currency = rnd() < 0.08 ? 'USD' : 'EUR';
    const amount = rnd() < 0.12 ? null : { value: rnd() < 0.05 ? 0 : value, currency };
    const adas = rnd() < 0.45 ? [pick(ADAS)] : [];
    if (adas.length && rnd() < 0.3) adas.push(pick(ADAS));
    const month = 1 + Math.floor(rnd() * 12);
    const published = `${2022 + Math.floor(rnd() * 4)}-${String(month).padStart(2, '0')}-${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}T${String(Math.floor(rnd() * 24)).padStart(2, '0')}:00:00Z`;
    const tenders = rnd() < 0.4 ? null : pick([1, 1, 2, 3, 5]);
    docs.push(
      makeDoc(source, `A${String(i).padStart(4, '0')}`, {
        title: `Σύμβαση ${EVERY_WORD}ς αρ. ${i}`,
        content: `${EVERY_WORD} υλικών και υπηρεσιών ${SOME_WORDS[i % SOME_WORDS.length]} ${i}`,
        doc_type: category,
        doc_category: category,
        published_at: published,
        parties,
        entities: { afm: parties.map((p) => p.afm).filter((a): a is string => a !== null), ada: [...new Set(adas)], names: parties.map((p) => p.name!) },
        cpv: [...new Set(cpv)],
        amount,
        procedure_type: rnd() < 0.2 ? null : pick(PROCEDURES),
        tenders_received: tenders,
        region: pick(REGIONS),
        quality_score: 0.5,
      }),
    );
  }
  return docs;
}

/** Whether a document passes every filter, by each filter's rule (docs/api.md "Filters"). */
export function passes(doc: IndexedDocument, f: Filters): boolean {
  const keys = analysisKeysOf(doc);
  const window = publishedWindow(f.since, f.until);
  const at = Date.parse(doc.published_at);
  const euros = doc.amount?.currency === 'EUR' ? doc.amount.value : null;
  return (
    (f.source === undefined || doc.source === f.source) &&
    (window === null || ((window.afterMs === null || at > window.afterMs) && (window.beforeMs === null || at < window.beforeMs))) &&
    (f.buyer === undefined || keys.buyer.includes(f.buyer)) &&
    (f.supplier === undefined || keys.supplier.includes(f.supplier)) &&
    (f.party === undefined || keys.party.includes(f.party)) &&
    (f.cpv === undefined || keys.cpv.some((c) => c.startsWith(f.cpv!))) &&
    (f.amount_min === undefined || (euros !== null && euros >= f.amount_min)) &&
    (f.amount_max === undefined || (euros !== null && euros <= f.amount_max)) &&
    (f.procedure_type === undefined || doc.procedure_type === f.procedure_type) &&
    (f.region === undefined || doc.region === f.region) &&
    (f.doc_category === undefined || doc.doc_category === f.doc_category) &&
    (!f.single_bid || doc.tenders_received === 1)
  );
}

/** A value of each filter that keeps some documents of the corpus and leaves out others. */
export const FILTER_EXAMPLES: Filters[] = [
  { source: 'kimdis' },
  { since: '2023-06-30' },
  { until: '2024-02-29' },
  { since: '2023-01-01', until: '2024-12-31T12:00:00Z' },
  { buyer: BUYERS[1] },
  { supplier: SUPPLIERS[0] },
  { party: SUPPLIERS[5] },
  { cpv: '45' },
  { cpv: '452' },
  { cpv: '4523' },
  { cpv: '45233141' },
  { amount_min: 50_000 },
  { amount_max: 40_000.5 },
  { amount_min: 10_000, amount_max: 120_000 },
  { procedure_type: 'Ανοιχτή διαδικασία' },
  { region: 'EL303' },
  { doc_category: 'contract' },
  { single_bid: true },
  { supplier: SUPPLIERS[1], doc_category: 'award', since: '2022-06-01' },
];

/** A filter value as query-string parameters. */
export function filterQuery(f: Filters): string {
  return Object.entries(f)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
}

/** What /v1/aggregate states of a set of documents (the `totals`, a bucket, `other`). */
export type OracleMetrics = PublicMetrics;

/**
 * Each matched document's contract value (lib/contract-value.ts over the whole match: a procurement
 * whose documents share an ΑΔΑ counts once, at its largest amount), by source_id.
 */
export function countedValues(matched: IndexedDocument[]): Map<string, number> {
  return countedContractValues(
    matched.map((d) => ({
      id: d.source_id,
      category: d.doc_category,
      amount: d.amount?.value ?? null,
      currency: d.amount?.currency ?? null,
      adas: d.entities.ada.map((a) => normalizeAda(a)).filter((a): a is string => a !== null),
    })),
  );
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The metrics of `docs`, their contract values taken from `counted` (countedValues of the whole match). */
export function metricsOf(docs: IndexedDocument[], counted: Map<string, number>): OracleMetrics {
  const cents = docs
    .map((d) => counted.get(d.source_id) ?? 0)
    .filter((v) => v > 0)
    .map(toCents)
    .sort((a, b) => a - b);
  const stated = docs.filter((d) => d.tenders_received !== null);
  const dates = docs.map((d) => d.published_at).sort();
  const mid = cents.length / 2;
  return {
    documents: docs.length,
    contracts: cents.length,
    value_sum: cents.reduce((a, b) => a + b, 0) / 100,
    value_median: cents.length === 0 ? null : (cents.length % 2 ? cents[Math.floor(mid)]! : (cents[mid - 1]! + cents[mid]!) / 2) / 100,
    tenders_stated: stated.length,
    tenders_mean: stated.length ? round4(stated.reduce((a, d) => a + d.tenders_received!, 0) / stated.length) : null,
    single_bid_share: stated.length ? round4(stated.filter((d) => d.tenders_received === 1).length / stated.length) : null,
    first_published: dates[0] ?? null,
    last_published: dates.at(-1) ?? null,
  };
}

/** The keys a document has for a grouping (analysisKeysOf, the single-valued ones as one key or none). */
export function keysFor(doc: IndexedDocument, grouping: Grouping): string[] {
  const keys = analysisKeysOf(doc);
  switch (grouping) {
    case 'buyer':
    case 'supplier':
    case 'cpv':
    case 'cpv_division':
    case 'cpv_group':
      return keys[grouping];
    case 'year':
    case 'month':
      return [keys[grouping]];
    case 'region':
      return keys.region === null ? [] : [keys.region];
    case 'source':
      return [doc.source];
    case 'procedure_type':
      return doc.procedure_type === null ? [] : [doc.procedure_type];
    case 'doc_category':
      return [doc.doc_category];
  }
}
