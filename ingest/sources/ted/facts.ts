// TED notices reach us in two shapes, a Search API v3 notice (JSON) and an eForms XML notice. Both are
// first reduced to the same NoticeFacts; one builder turns facts into the document, so both shapes
// normalize alike (same source_id for the same published notice, same categories, same text layout).
import type { Amount, NormalizedDocument } from '../../../index-mappings/document.js';
import { canonicalPublicationNumber, extractIdentifiers, validAfm } from '../../../lib/identifiers.js';
import { qualityScore } from '../../quality.js';
import { collapse, decodeEntities } from '../text.js';
import { dateOnlyToIso } from '../../../lib/clock.js';
import { formatAmount, roundMoney, toNumber, uniq } from '../values.js';
import { isNutsCode, iso3ToIso2, lang3to1, sectorFromCpv } from '../codes.js';
import { normalizeCpv } from '../../../lib/vocabulary/cpv.js';
import { MalformedRecordError } from '../types.js';
import { partyLines, partyList, partyOf } from '../parties.js';
import { TED_CATEGORY_LABELS } from '../../../index-mappings/searched-text.js';
import type { TedSearchNotice } from './types.js';

export interface Party {
  name: string;
  /** Valid Greek ΑΦΜ when the notice gives one for a Greek organisation. */
  afm: string | null;
}

export interface NoticeFacts {
  publicationNumber: string | null;
  /** The notice UUID (`cbc:ID schemeName="notice-id"`, search field `notice-identifier`). */
  noticeId: string | null;
  noticeType: string | null;
  formType: string | null;
  publishedAt: string | null;
  title: { text: string; lang: string | null } | null;
  englishTitle: string | null;
  noticeLanguage: string | null;
  description: string;
  buyers: Party[];
  winners: Party[];
  amount: Amount | null;
  amountKind: string;
  cpv: string[];
  region: string | null;
  /** ISO 3166 alpha-2 of the (first) buyer. */
  country: string | null;
  /** eForms BT-105 code (`open`, `neg-wo-call`, …) or the search API's `procedure-type`. */
  procedureType: string | null;
  /** BT-759, tenders received: the fewest any lot result states (1 means some lot had a single tender). */
  tendersReceived: number | null;
  contractNature: string | null;
  deadline: string | null;
  lots: string[];
  modification: string | null;
  links: { html?: Record<string, string> } | null;
}

export const TED_NOTICE_URL = 'https://ted.europa.eu/en/notice/-/detail/';

/**
 * notice-type (eForms BT-02) → doc_category, in the vocabulary shared with Diavgeia and KIMDIS:
 * calls for competition → `tender_notice`; results → `award`; `can-modif` → `modification`;
 * other prior information → `prior_information`. Monitoring maps `award` to `contract_award`.
 * Without a notice type, the form type (BT-03) decides.
 */
export function tedCategory(noticeType: string | null, formType: string | null): string {
  const t = (noticeType ?? '').toLowerCase();
  if (t === 'can-modif') return 'modification';
  if (t.startsWith('pin-cfc') || t === 'qu-sy' || t.startsWith('cn-') || t === 'subco') return 'tender_notice';
  if (t.startsWith('pin-')) return 'prior_information';
  if (t.startsWith('can-') || t === 'veat') return 'award';
  if (t === 'corr') return 'correction';
  if (t.startsWith('brin-')) return 'company_registration';
  switch ((formType ?? '').toLowerCase()) {
    case 'competition':
      return 'tender_notice';
    case 'result':
      return 'award';
    case 'planning':
      return 'prior_information';
    case 'cont-modif':
      return 'modification';
    case 'change':
      return 'correction';
    default:
      return 'notice';
  }
}

// ------------------------------------------------------------------------------ search API notices

/** Every scalar in a search value (scalar, per-lot array or language map), as strings. */
function scalars(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' && Number.isFinite(v)) return [String(v)];
  if (Array.isArray(v)) return v.flatMap(scalars);
  if (typeof v === 'object' && v !== null) return Object.values(v).flatMap(scalars);
  return [];
}

function first(v: unknown): string | null {
  return (
    scalars(v)
      .map(collapse)
      .find((s) => s !== '') ?? null
  );
}

function clean(s: string): string {
  return collapse(decodeEntities(s));
}

/**
 * A language map's texts in Greek, else English, else the first language given; plain values as is.
 * `texts` once each; `all` as given, a repeat kept where an array runs parallel to them (one winner per lot).
 */
function pickLanguage(v: unknown): { texts: string[]; all: string[]; lang: string | null } | null {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const map = v as Record<string, unknown>;
    const key =
      ['ell', 'eng'].find((k) => scalars(map[k]).some((s) => collapse(s) !== '')) ??
      Object.keys(map).find((k) => scalars(map[k]).some((s) => collapse(s) !== ''));
    if (key === undefined) return null;
    const all = scalars(map[key]).map(clean);
    return { texts: uniq(all), all, lang: lang3to1(key) };
  }
  const all = scalars(v).map(clean);
  const texts = uniq(all);
  return texts.length ? { texts, all, lang: null } : null;
}

/** Sum of per-lot values when they share one currency (a single currency applies to all). */
function lotSum(values: unknown, currencies: unknown): Amount | null {
  const vals = scalars(values).map(toNumber);
  const curs = scalars(currencies)
    .map((c) => collapse(c).toUpperCase())
    .filter(Boolean);
  if (vals.length === 0 || vals.some((x) => x === null) || curs.length === 0) return null;
  const distinct = uniq(curs);
  if (distinct.length !== 1) return null;
  const total = (vals as number[]).reduce((a, b) => a + b, 0);
  return total > 0 ? { value: roundMoney(total), currency: distinct[0]! } : null;
}

/**
 * Parties with their national ids: `buyer-identifier` / `winner-identifier` run parallel to the name
 * arrays, repeats included (a winner of three lots is named three times), so they are paired before a
 * repeated pair is dropped; paired after, a winner took the ΑΦΜ of the one named after it. A Greek id
 * that passes the ΑΦΜ check digit (with or without the EL prefix) is kept as the AFM.
 */
function parties(names: string[], ids: unknown): { name: string; afm: string | null }[] {
  const list = scalars(ids).map((v) => (v === null ? null : validAfm(String(v))));
  const out: { name: string; afm: string | null }[] = [];
  names.forEach((name, i) => {
    const afm = list[i] ?? null;
    if (name !== '' && !out.some((p) => p.name === name && p.afm === afm)) out.push({ name, afm });
  });
  return out;
}

export function searchFacts(n: TedSearchNotice): NoticeFacts {
  const title = pickLanguage(n['notice-title']);
  const englishMap = n['notice-title'];
  const english =
    typeof englishMap === 'object' && englishMap !== null && !Array.isArray(englishMap) ? first((englishMap as Record<string, unknown>).eng) : null;
  const buyers = pickLanguage(n['buyer-name']) ?? pickLanguage(n['organisation-name-buyer']);
  // winner-name when requested and present; else the tenderers named (in result notices, the winners).
  const winners = pickLanguage(n['winner-name']) ?? pickLanguage(n['organisation-name-tenderer']);

  let amount = lotSum(n['total-value'], n['total-value-cur']);
  let amountKind = 'total value';
  if (!amount) {
    amount = lotSum(n['tender-value'], n['tender-value-cur']);
    amountKind = 'tender value';
  }
  if (!amount) {
    amount = lotSum(n['estimated-value-lot'], n['estimated-value-cur-lot']);
    amountKind = 'estimated value';
  }
  const previous = first(n['modification-previous-notice-identifier']);
  const links = typeof n.links === 'object' && n.links !== null ? n.links : null;

  return {
    publicationNumber: first(n['publication-number']),
    noticeId: first(n['notice-identifier']),
    noticeType: first(n['notice-type']),
    formType: first(n['form-type']),
    publishedAt: dateOnlyToIso(first(n['publication-date'])) ?? dateOnlyToIso(first(n['dispatch-date'])),
    title: title ? { text: title.texts.join(' / '), lang: title.lang } : null,
    englishTitle: english && title && title.lang !== 'en' ? clean(english) : null,
    noticeLanguage: null,
    description: '',
    buyers: parties(buyers?.all ?? [], n['buyer-identifier']),
    winners: parties(winners?.all ?? [], n['winner-identifier']),
    amount,
    amountKind,
    cpv: uniq(scalars(n['classification-cpv']).map(normalizeCpv)),
    region: scalars(n['place-of-performance-subdiv-lot']).map(collapse).find(isNutsCode) ?? null,
    country: iso3ToIso2(first(n['buyer-country']) ?? first(n['organisation-country-buyer'])),
    procedureType: first(n['procedure-type']),
    // The search API's field for BT-759 is not documented in what we have read; eForms notices carry it.
    tendersReceived: null,
    contractNature: uniq(scalars(n['contract-nature']).map(collapse)).join(', ') || null,
    deadline: dateOnlyToIso(first(n['deadline-receipt-tender-date-lot']))?.slice(0, 10) ?? null,
    lots: [],
    modification: previous ? `changes notice ${previous}` : null,
    links,
  };
}

// ---------------------------------------------------------------------------------------- builder

function sourceUrl(f: NoticeFacts, pubno: string | null): string {
  const html = f.links?.html;
  if (html && typeof html === 'object') {
    const url = html.ELL ?? html.ENG ?? Object.values(html)[0];
    if (typeof url === 'string' && /^https?:\/\//.test(url)) return url;
  }
  // An unpublished notice (no publication number, e.g. an SDK sample) has no public page.
  return pubno ? `${TED_NOTICE_URL}${pubno}` : '';
}

function sentence(s: string): string {
  return /[.!;…]$/.test(s) ? s : `${s}.`;
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

export function buildTedDocument(f: NoticeFacts): NormalizedDocument {
  const pubno = canonicalPublicationNumber(f.publicationNumber);
  const id = pubno ?? (f.noticeId ? collapse(f.noticeId) : null);
  if (!id) throw new MalformedRecordError('ted: notice has neither a publication number nor a notice id');
  if (f.publishedAt === null) throw new MalformedRecordError(`ted: ${id} has no publication or dispatch date`);

  const category = tedCategory(f.noticeType, f.formType);
  const docType = f.noticeType ?? f.formType ?? 'notice';
  const title = f.title?.text || `TED notice ${id}`;
  const buyers = f.buyers.filter((p) => p.name !== '');
  const winners = f.winners.filter((p) => p.name !== '');
  const parties = partyList([...buyers.map((b) => partyOf('buyer', b.name, b.afm)), ...winners.map((w) => partyOf('supplier', w.name, w.afm))]);
  const found = extractIdentifiers([title, f.englishTitle ?? '', f.description, f.modification ?? ''].join('\n'));

  const lines: string[] = [title];
  if (f.englishTitle) lines.push(`Title (English): ${f.englishTitle}`);
  lines.push(
    `Notice: ${TED_CATEGORY_LABELS[category] ?? 'Notice'} (${docType})${pubno ? `, publication number ${pubno}` : ''}${f.noticeId ? `, notice id ${f.noticeId}` : ''}`,
  );
  lines.push(`Published: ${f.publishedAt.slice(0, 10)}`);
  if (f.description) lines.push(f.description);
  lines.push(...partyLines(parties, 'en'));
  if (f.amount) lines.push(`Value (${f.amountKind}): ${formatAmount(f.amount)}`);
  if (f.procedureType) lines.push(`Procedure: ${f.procedureType}`);
  if (f.tendersReceived !== null) lines.push(`Tenders received: ${f.tendersReceived}`);
  if (f.contractNature) lines.push(`Contract nature: ${f.contractNature}`);
  if (f.cpv.length) lines.push(`CPV: ${f.cpv.join(', ')}`);
  if (f.region) lines.push(`Place of performance (NUTS): ${f.region}`);
  if (f.deadline) lines.push(`Tender deadline: ${f.deadline}`);
  for (const lot of f.lots) lines.push(`Lot ${lot}`);
  if (f.modification) lines.push(`Modification: ${f.modification}`);

  const summary = [`${TED_CATEGORY_LABELS[category] ?? 'Notice'} ${id}: ${truncate(title, 200).replace(/[.\s]+$/, '')}`];
  if (buyers.length) summary.push(`buyer ${truncate(buyers.map((b) => b.name).join(', '), 150)}`);
  if (winners.length) summary.push(`winner ${truncate(winners.map((w) => w.name).join(', '), 150)}`);
  if (f.amount) summary.push(formatAmount(f.amount));

  const cpv = f.cpv;
  const doc: Omit<NormalizedDocument, 'quality_score'> = {
    source_id: `ted:${id}`,
    source: 'ted',
    // The buyer's country (a notice for a Greek buyer is a Greek document); `EU` when the notice names none.
    country: f.country ?? 'EU',
    title,
    doc_type: docType,
    doc_category: category,
    published_at: f.publishedAt,
    source_url: sourceUrl(f, pubno),
    language: f.title?.lang ?? f.noticeLanguage ?? 'en',
    content: lines.join('\n'),
    summary: sentence(summary.join(', ')),
    entities: {
      afm: uniq([...buyers.map((b) => b.afm), ...winners.map((w) => w.afm), ...found.afm]),
      ada: found.ada,
      names: uniq([...buyers, ...winners].map((p) => p.name)),
    },
    parties,
    procedure_type: f.procedureType,
    tenders_received: f.tendersReceived,
    act_date: null,
    amount: f.amount,
    cpv,
    region: f.region,
    sector: sectorFromCpv(cpv),
  };
  return { ...doc, quality_score: qualityScore(doc) };
}
