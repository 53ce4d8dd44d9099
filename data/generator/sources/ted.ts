// TED Search API v3 responses (`POST /v3/notices/search`, query `buyer-country=GRC AND
// publication-date>=20230101`, ITERATION paging, 100 per page). Field values keep the API's shapes:
// scalars, per-lot arrays, and language maps keyed by ISO 639-2 (`ell`, `eng`); CPVs are 8 digits.
import { cpv8 } from '../cpv.js';
import { athensOffset, isoDate } from '../dates.js';
import { json, seq, type OutFile } from '../output.js';
import type { Rng } from '../prng.js';
import type { TedNotice, World } from '../world.js';

const PAGE = 100;

/** TED prints dates with the Brussels offset: `2026-07-01+02:00`. */
function tedDate(ms: number): string {
  return isoDate(ms) + (athensOffset(ms) === '+03:00' ? '+02:00' : '+01:00');
}

const SUBTYPE: Record<TedNotice['type'], string> = { 'cn-standard': '16', 'can-standard': '29', 'can-modif': '38', 'pin-only': '4' };
const FORM: Record<TedNotice['type'], string> = { 'cn-standard': 'competition', 'can-standard': 'result', 'can-modif': 'cont-modif', 'pin-only': 'planning' };
const NATURE = { works: 'works', supplies: 'supplies', services: 'services' } as const;

function money(cents: number): string {
  return String(cents / 100);
}

function render(rng: Rng, n: TedNotice): Record<string, unknown> {
  const lots = n.lotsCents.length;
  const nuts = n.body.place.nuts3;
  const cpvs = [...Array(lots).fill(cpv8(n.cpv.code)), ...n.extraCpvs.map((c) => cpv8(c.code))];
  const out: Record<string, unknown> = {
    'publication-number': n.pubNo,
    'notice-identifier': n.noticeId,
    'notice-version': n.version,
    'notice-type': n.type,
    'notice-subtype': SUBTYPE[n.type],
    'form-type': FORM[n.type],
    'publication-date': tedDate(n.pubDay),
    'dispatch-date': tedDate(n.dispatchDay),
    'notice-title': {
      ell: `Ελλάδα – ${n.cpv.el} – ${n.title}`,
      eng: `Greece – ${n.cpv.en} – ${n.title}`,
    },
    'buyer-name': { ell: [n.body.name] },
    'organisation-name-buyer': { ell: [n.body.name] },
    'buyer-identifier': [rng.chance(0.2) ? `EL${n.body.afm}` : n.body.afm],
    'buyer-country': ['GRC'],
    'procedure-identifier': n.procedureId,
    'procedure-type': n.procedureType,
    'contract-nature': [NATURE[n.cpv.kind]],
    'classification-cpv': cpvs,
    'main-classification-proc': [cpv8(n.cpv.code)],
    'place-of-performance-country-lot': Array(lots).fill('GRC'),
    'place-of-performance-subdiv-lot': Array(lots).fill(nuts),
  };
  if (n.type !== 'can-modif') {
    out['estimated-value-lot'] = n.lotsCents.map(money);
    out['estimated-value-cur-lot'] = Array(lots).fill('EUR');
  }
  if (n.deadlineDay !== null) out['deadline-receipt-tender-date-lot'] = Array(lots).fill(tedDate(n.deadlineDay));
  if (n.winners.length > 0) {
    const names = n.winners.map((w) => w.contractor.name);
    out['winner-name'] = { ell: names };
    out['organisation-name-tenderer'] = { ell: names };
    out['winner-identifier'] = n.winners.map((w) => (rng.chance(0.15) ? `EL${w.contractor.afm}` : w.contractor.afm));
    out['winner-country'] = n.winners.map(() => 'GRC');
    out['winner-selection-status'] = n.winners.map(() => 'selec-w');
    if (n.decisionDay !== null) out['winner-decision-date'] = n.winners.map(() => tedDate(n.decisionDay as number));
    if (n.conclusionDay !== null) out['contract-conclusion-date'] = n.winners.map(() => tedDate(n.conclusionDay as number));
    out['tender-value'] = n.winners.map((w) => w.tenderCents / 100);
    out['tender-value-cur'] = n.winners.map(() => 'EUR');
  }
  if (n.totalCents !== null) {
    out['total-value'] = n.totalCents / 100;
    out['total-value-cur'] = ['EUR'];
  }
  if (n.previousNoticeId) out['modification-previous-notice-identifier'] = n.previousNoticeId;
  out.links = {
    xml: { MUL: `https://ted.europa.eu/en/notice/${n.pubNo}/xml` },
    pdf: { ELL: `https://ted.europa.eu/el/notice/${n.pubNo}/pdf`, ENG: `https://ted.europa.eu/en/notice/${n.pubNo}/pdf` },
    html: { ELL: `https://ted.europa.eu/el/notice/-/detail/${n.pubNo}`, ENG: `https://ted.europa.eu/en/notice/-/detail/${n.pubNo}` },
  };
  return out;
}

function token(rng: Rng): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 88; i++) s += alphabet[rng.int(0, alphabet.length - 1)];
  return s + '==';
}

export function renderTed(world: World, rng: Rng): OutFile[] {
  const notices = [...world.ted].sort((a, b) => a.pubDay - b.pubDay || (a.pubNo < b.pubNo ? -1 : 1));
  const files: OutFile[] = [];
  const pages = Math.ceil(notices.length / PAGE);
  for (let p = 0; p < pages; p++) {
    const slice = notices.slice(p * PAGE, (p + 1) * PAGE);
    const body = {
      notices: slice.map((n) => render(rng, n)),
      totalNoticeCount: notices.length,
      iterationNextToken: p < pages - 1 ? token(rng) : null,
      timedOut: false,
    };
    files.push({ path: `ted/${seq(p + 1)}-notices-search-p${p + 1}.json`, body: json(body), records: slice.length });
  }
  return files;
}
