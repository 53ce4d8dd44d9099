// Reads the facts we index out of an eForms UBL notice (as parse.ts builds it). Element paths follow the
// OP-TED eForms SDK examples (docs/upstream-sources.md §1.2); organisations are referenced by ORG-… ids and
// resolved in efext:EformsExtension/efac:Organizations.
import type { Amount } from '../../../index-mappings/document.js';
import { validAfm } from '../../../lib/identifiers.js';
import { collapse } from '../text.js';
import { dateOnlyToIso } from '../../../lib/clock.js';
import { iso3ToIso2, lang3to1 } from '../codes.js';
import { normalizeCpv } from '../../../lib/vocabulary/cpv.js';
import { roundMoney, toNumber, uniq } from '../values.js';
import type { NoticeFacts, Party } from './facts.js';
import type { TedEformsRecord, XmlNode } from './types.js';

type X = XmlNode | string;

function isNode(v: unknown): v is XmlNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Child elements called `name` (always an array). */
function kids(n: X | undefined, name: string): X[] {
  if (!isNode(n)) return [];
  const v = n[name];
  return Array.isArray(v) ? v : [];
}

/** All elements at the end of `path`, following every branch. */
function all(n: X | undefined, ...path: string[]): X[] {
  let level: X[] = n === undefined ? [] : [n];
  for (const name of path) level = level.flatMap((x) => kids(x, name));
  return level;
}

function one(n: X | undefined, ...path: string[]): X | undefined {
  return all(n, ...path)[0];
}

function text(n: X | undefined): string {
  if (typeof n === 'string') return collapse(n);
  if (isNode(n) && typeof n['#text'] === 'string') return collapse(n['#text']);
  return '';
}

function attr(n: X | undefined, name: string): string {
  return isNode(n) && typeof n[`@_${name}`] === 'string' ? (n[`@_${name}`] as string).trim() : '';
}

/** Among elements carrying `languageID`, the Greek one, else the English one, else the first. */
function pickLanguage(nodes: X[]): { text: string; lang: string | null } | null {
  const withText = nodes.filter((n) => text(n) !== '');
  if (withText.length === 0) return null;
  const byLang = (code: string) => withText.find((n) => attr(n, 'languageID').toUpperCase() === code);
  const chosen = byLang('ELL') ?? byLang('ENG') ?? withText[0]!;
  return { text: text(chosen), lang: lang3to1(attr(chosen, 'languageID')) };
}

function money(n: X | undefined): Amount | null {
  const value = toNumber(text(n));
  if (value === null || value <= 0) return null;
  return { value: roundMoney(value), currency: attr(n, 'currencyID').toUpperCase() || 'EUR' };
}

function sum(amounts: (Amount | null)[]): Amount | null {
  const known = amounts.filter((a): a is Amount => a !== null);
  if (known.length === 0 || known.some((a) => a.currency !== known[0]!.currency)) return null;
  return { value: roundMoney(known.reduce((s, a) => s + a.value, 0)), currency: known[0]!.currency };
}

interface Organisation {
  name: string;
  country: string | null;
  nuts: string | null;
  afm: string | null;
}

/** ΑΦΜ of a Greek organisation from its national company id (`EL090252840`, `090252840`). */
function greekCompanyAfm(companyId: string, country3: string): string | null {
  if (country3 !== 'GRC' && !/^\s*(EL|GR)/i.test(companyId)) return null;
  return validAfm(companyId);
}

function organisations(ext: X | undefined): Map<string, Organisation> {
  const out = new Map<string, Organisation>();
  for (const org of all(ext, 'Organizations', 'Organization')) {
    const company = one(org, 'Company');
    const id = text(one(company, 'PartyIdentification', 'ID'));
    if (!id) continue;
    const country3 = text(one(company, 'PostalAddress', 'Country', 'IdentificationCode')).toUpperCase();
    out.set(id, {
      name: pickLanguage(all(company, 'PartyName', 'Name'))?.text ?? '',
      country: country3 || null,
      nuts: text(one(company, 'PostalAddress', 'CountrySubentityCode')) || null,
      afm: greekCompanyAfm(text(one(company, 'PartyLegalEntity', 'CompanyID')), country3),
    });
  }
  return out;
}

function cpvOf(project: X | undefined): string[] {
  return [
    ...all(project, 'MainCommodityClassification', 'ItemClassificationCode'),
    ...all(project, 'AdditionalCommodityClassification', 'ItemClassificationCode'),
  ]
    .filter((c) => ['', 'cpv'].includes(attr(c, 'listName')))
    .map((c) => normalizeCpv(text(c)))
    .filter((c): c is string => c !== null);
}

function nutsOf(project: X | undefined): string | null {
  return (
    all(project, 'RealizedLocation', 'Address', 'CountrySubentityCode')
      .map(text)
      .find((c) => c !== '') ?? null
  );
}

function rootId(notice: XmlNode, scheme: string): string {
  const ids = kids(notice, 'ID');
  return text(ids.find((i) => attr(i, 'schemeName') === scheme) ?? ids[0]);
}

/**
 * BT-759 of the statistics whose type (BT-760) is `tenders`, per lot result: the fewest, so that a
 * notice where any lot drew a single tender reads 1. Null when no lot result states it.
 */
function tendersReceived(result: X | undefined): number | null {
  const counts = kids(result, 'LotResult').flatMap((lr) =>
    kids(lr, 'ReceivedSubmissionsStatistics')
      .filter((st) => text(one(st, 'StatisticsCode')) === 'tenders')
      .map((st) => Number(text(one(st, 'StatisticsNumeric'))))
      .filter((c) => Number.isInteger(c) && c >= 0),
  );
  return counts.length ? Math.min(...counts) : null;
}

/** The facts of an eForms notice; see facts.ts for how they become a document. */
export function eformsFacts(record: TedEformsRecord): NoticeFacts {
  const n = record.notice;
  const ext = one(n, 'UBLExtensions', 'UBLExtension', 'ExtensionContent', 'EformsExtension');
  const orgs = organisations(ext);
  const publication = one(ext, 'Publication');
  const procedure = one(n, 'ProcurementProject');
  // Groups of lots are ProcurementProjectLot elements too (schemeName LotsGroup); counting them would
  // double the lots' estimated values.
  const lots = kids(n, 'ProcurementProjectLot').filter((l) => attr(one(l, 'ID'), 'schemeName') !== 'LotsGroup');
  const lotProjects = lots.map((l) => one(l, 'ProcurementProject'));

  const buyerOrgs = all(n, 'ContractingParty', 'Party', 'PartyIdentification', 'ID')
    .map((id) => orgs.get(text(id)))
    .filter((o): o is Organisation => o !== undefined);
  const buyers: Party[] = buyerOrgs.map((o) => ({ name: o.name, afm: o.afm }));

  // Winners: tenders of lot results whose status is `selec-w`, and tenders a settled contract was
  // concluded with (modification notices carry no status); tender → tendering party → tenderer orgs.
  const result = one(ext, 'NoticeResult');
  const winningTenders = new Set<string>();
  for (const lr of kids(result, 'LotResult')) {
    if (text(one(lr, 'TenderResultCode')) === 'selec-w') for (const t of all(lr, 'LotTender', 'ID')) winningTenders.add(text(t));
  }
  for (const t of all(result, 'SettledContract', 'LotTender', 'ID')) winningTenders.add(text(t));
  const tenders = kids(result, 'LotTender').filter((t) => winningTenders.has(text(one(t, 'ID'))));
  const parties = new Map(kids(result, 'TenderingParty').map((tp) => [text(one(tp, 'ID')), tp]));
  const winners: Party[] = [];
  for (const t of tenders) {
    const tp = parties.get(text(one(t, 'TenderingParty', 'ID')));
    for (const id of all(tp, 'Tenderer', 'ID')) {
      const o = orgs.get(text(id));
      if (o && !winners.some((w) => w.name === o.name && w.afm === o.afm)) winners.push({ name: o.name, afm: o.afm });
    }
  }

  // Value: the notice's total result value; else the winning tenders; else the procedure's estimate;
  // else the lots' estimates.
  let amount: Amount | null = money(one(result, 'TotalAmount'));
  let amountKind = 'total value';
  if (!amount) {
    amount = sum(tenders.map((t) => money(one(t, 'LegalMonetaryTotal', 'PayableAmount'))));
    amountKind = 'tender value';
  }
  if (!amount) {
    amount = money(one(procedure, 'RequestedTenderTotal', 'EstimatedOverallContractAmount'));
    amountKind = 'estimated value';
  }
  if (!amount) amount = sum(lotProjects.map((p) => money(one(p, 'RequestedTenderTotal', 'EstimatedOverallContractAmount'))));

  const title = pickLanguage(all(procedure, 'Name')) ?? pickLanguage(lotProjects.flatMap((p) => all(p, 'Name')));
  const english = pickLanguage(all(procedure, 'Name').filter((x) => attr(x, 'languageID').toUpperCase() === 'ENG'));
  const description = pickLanguage(all(procedure, 'Description'))?.text ?? '';
  const modification = one(ext, 'ContractModification');
  const deadline = all(lots[0], 'TenderingProcess', 'TenderSubmissionDeadlinePeriod', 'EndDate').map(text)[0] ?? '';

  return {
    publicationNumber: text(one(publication, 'NoticePublicationID')) || null,
    noticeId: rootId(n, 'notice-id') || null,
    noticeType: text(one(n, 'NoticeTypeCode')) || null,
    formType: attr(one(n, 'NoticeTypeCode'), 'listName') || null,
    publishedAt: dateOnlyToIso(text(one(publication, 'PublicationDate'))) ?? dateOnlyToIso(text(one(n, 'IssueDate'))),
    title,
    englishTitle: english && title && english.text !== title.text ? english.text : null,
    noticeLanguage: lang3to1(text(one(n, 'NoticeLanguageCode'))),
    description,
    buyers,
    winners,
    amount,
    amountKind,
    cpv: uniq([...cpvOf(procedure), ...lotProjects.flatMap(cpvOf)]),
    region: nutsOf(procedure) ?? lotProjects.map(nutsOf).find((x) => x !== null) ?? buyerOrgs.map((o) => o.nuts).find((x) => x !== null) ?? null,
    country: buyerOrgs.map((o) => iso3ToIso2(o.country)).find((c) => c !== null) ?? null,
    procedureType: text(one(n, 'TenderingProcess', 'ProcedureCode')) || null,
    tendersReceived: tendersReceived(result),
    contractNature: text(one(procedure, 'ProcurementTypeCode')) || null,
    deadline: dateOnlyToIso(deadline)?.slice(0, 10) ?? null,
    lots: lots.map((l, i) => {
      const name = pickLanguage(all(lotProjects[i], 'Name'))?.text ?? '';
      return `${text(one(l, 'ID'))}${name ? `: ${name}` : ''}`;
    }),
    modification: modification
      ? collapse(
          [
            text(one(modification, 'ChangedNoticeIdentifier')) && `changes notice ${text(one(modification, 'ChangedNoticeIdentifier'))}`,
            pickLanguage(all(modification, 'Change', 'ChangeDescription'))?.text ?? '',
            pickLanguage(all(modification, 'ChangeReason', 'ReasonDescription'))?.text ?? '',
          ]
            .filter(Boolean)
            .join('; '),
        )
      : null,
    links: null,
  };
}
