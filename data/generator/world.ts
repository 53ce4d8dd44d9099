// The demo "world": procurement stories and other acts, built once from the seed, then rendered into each
// source's raw format. A story links the sources the way the real systems do:
//   Β.1.3 commitment → Β.2.1 approval → Δ.1 award (ADA X, contractor AFM Y) → ΚΗΜΔΗΣ contract citing X with
//   member Y → Β.2.2 payments to Y; above-threshold tenders add a TED contract notice, a Δ.2.1 summary, a
//   Δ.2.2 award, a TED award notice (winner Y), a contract and payments.
import { cpvsOf, type Cpv } from './cpv.js';
import { DAY, END, START, addMonths, dayOf, officeTime, randomDay, workday, yearOf } from './dates.js';
import { buildEntityPool, contractorFor, cpvFor, sectorFor, type Contractor, type EntityPool, type PublicBody } from './entities.js';
import { AdaFactory, AdamFactory, TedNumberFactory } from './ids.js';
import type { Rng } from './prng.js';
import { NON_PROCUREMENT_COMMITMENTS, OTHER_ACTS, awardSubject, commitmentSubject, expenseSubject, forBody, paymentSubject, workPlace } from './text.js';
import { buildPermits, type Permit } from './permits.js';

export type DecisionType = 'Δ.1' | 'Δ.2.1' | 'Δ.2.2' | 'Β.1.3' | 'Β.2.1' | 'Β.2.2' | 'Α.2' | '2.4.7.1';

export interface Decision {
  ada: string;
  type: DecisionType;
  body: PublicBody;
  protocolNumber: string;
  subject: string;
  issueDay: number;
  submitted: number;
  /** Differs from `submitted` for corrected versions (publish first, correct later). */
  published: number;
  corrected: boolean;
  privateData: boolean;
  thematic: string[];
  extra: Record<string, unknown>;
}

export interface Contract {
  ref: string;
  body: PublicBody;
  members: Contractor[];
  cpv: Cpv;
  title: string;
  shortDescription: string;
  signed: number;
  submitted: number;
  end: number;
  durationMonths: number;
  netCents: number;
  vat: number;
  grossCents: number;
  budgetCents: number;
  open: boolean;
  decisionAda: string | null;
  related: [string | null, string | null, string | null];
  awrd: string;
  proc: string | null;
  prev: string | null;
  payRefs: string[];
  bids: number | null;
  contractNumber: string;
  /** The real API sometimes has a stray leading space in `decisionRelatedAda`. */
  spaceQuirk: boolean;
}

export interface TedWinner {
  contractor: Contractor;
  tenderCents: number;
}

export interface TedNotice {
  pubNo: string;
  noticeId: string;
  version: number;
  type: 'cn-standard' | 'can-standard' | 'can-modif' | 'pin-only';
  pubDay: number;
  dispatchDay: number;
  body: PublicBody;
  cpv: Cpv;
  extraCpvs: Cpv[];
  title: string;
  procedureId: string;
  procedureType: 'open' | 'restricted' | 'neg-wo-call';
  lotsCents: number[];
  deadlineDay: number | null;
  winners: TedWinner[];
  decisionDay: number | null;
  conclusionDay: number | null;
  totalCents: number | null;
  previousNoticeId: string | null;
}

export interface RegAct {
  decision: Decision;
  title: string;
  fek: { number: number; issue: string; year: number };
}

export interface World {
  pool: EntityPool;
  decisions: Decision[];
  contracts: Contract[];
  ted: TedNotice[];
  permits: Permit[];
  /** Α.2 regulatory acts, cited by ΜΙΤΟΣ `process_rules[].rule_ada`. */
  regActs: RegAct[];
}

/** How many of each story the generator makes (tuned so every source clears its target). */
export const PLAN = {
  directAwards: 430,
  tenders: 135,
  tedLinkedTenders: 110,
  kimdisOnlyContracts: 230,
  tedOnlyCn: 95,
  tedOnlyCan: 105,
  tedModifications: 15,
  tedPlanning: 20,
  standaloneCommitments: 60,
  standaloneApprovals: 40,
  standalonePayments: 40,
  regActs: 40,
  otherActs: 20,
  permits: 330,
  permitDecisions: 30,
};

function roundCents(rng: Rng, euros: number): number {
  const cents = Math.round(euros * 100);
  if (rng.chance(0.25)) return Math.round(cents / 10000) * 10000; // a round figure
  return cents;
}

function vatFor(cpv: Cpv, body: PublicBody): number {
  if (cpv.code === '33600000-6') return 6;
  if (cpv.sector === 'food') return 13;
  if (body.region.key === 'naigaio' || body.region.key === 'vaigaio') return 17; // reduced island rate
  return 24;
}

function gross(net: number, vat: number): number {
  return Math.round((net * (100 + vat)) / 100);
}

function protocolNumber(rng: Rng, body: PublicBody, day: number): string {
  const y = yearOf(day);
  const d = new Date(day);
  const n = rng.int(100, 48000);
  switch (body.kind) {
    case 'ministry':
      return rng.chance(0.5) ? `Οικ. ${n}/${y}` : `${rng.int(10000, 190000)}`;
    case 'region':
      return `οικ. ${rng.int(10000, 600000)}/${rng.int(100, 9000)}`;
    case 'hospital':
      return `${n}/${d.getUTCDate()}-${d.getUTCMonth() + 1}-${y}`;
    default:
      return rng.chance(0.5) ? `${n}/${y}` : String(n);
  }
}

function bodyPicker(rng: Rng, pool: EntityPool, kinds?: PublicBody['kind'][]): PublicBody {
  const list = pool.bodies.filter((b) => b.kind !== 'authority' && (!kinds || kinds.includes(b.kind)));
  return rng.weighted(
    list,
    list.map((b) => b.weight),
  );
}

class Builder {
  readonly decisions: Decision[] = [];
  readonly contracts: Contract[] = [];
  readonly ted: TedNotice[] = [];
  readonly ada: AdaFactory;
  readonly adam: AdamFactory;
  readonly tedNo: TedNumberFactory;

  constructor(
    readonly rng: Rng,
    readonly pool: EntityPool,
  ) {
    this.ada = new AdaFactory(rng.fork('ada'));
    this.adam = new AdamFactory(rng.fork('adam'));
    this.tedNo = new TedNumberFactory(rng.fork('ted-numbers'));
  }

  decision(type: DecisionType, body: PublicBody, day: number, subject: string, extra: Record<string, unknown>, thematic: string[]): Decision | null {
    const rng = this.rng;
    const issueDay = workday(dayOf(day));
    // Posting usually follows the issue date within days; sometimes weeks later.
    const lag = rng.chance(0.8) ? rng.int(0, 3) : rng.int(4, 40);
    const submitted = officeTime(rng, workday(issueDay + lag * DAY));
    if (submitted > END + DAY || issueDay < START) return null;
    const corrected = rng.chance(0.03);
    const d: Decision = {
      ada: this.ada.next(body.adaCode),
      type,
      body,
      protocolNumber: protocolNumber(rng, body, issueDay),
      subject,
      issueDay,
      submitted: corrected ? Math.min(submitted + rng.int(1, 20) * DAY, END + 12 * 3600 * 1000) : submitted,
      published: submitted,
      corrected,
      privateData: rng.chance(0.03),
      thematic,
      extra,
    };
    this.decisions.push(d);
    return d;
  }
}

function orgRef(body: PublicBody, withCountry: boolean): Record<string, unknown> {
  return withCountry
    ? { afm: body.afm, afmType: 'EL', afmCountry: 'EL', name: body.name }
    : { afm: body.afm, afmType: 'EL', enterName: false, name: body.name };
}

function sponsorName(c: Contractor, useAlt: boolean): Record<string, unknown> {
  return { afm: c.afm, afmType: 'EL', afmCountry: 'EL', enterName: false, name: useAlt ? c.altName : c.name };
}

function kaeFor(rng: Rng, body: PublicBody): string {
  if (body.kind === 'municipality')
    return `${rng.pick(['02.10', '02.15', '02.20', '02.30', '02.35', '02.45', '02.64'])}.${rng.pick(['6261', '6262', '6264', '6634', '6635', '6641', '6643', '6662', '6673', '7135', '7323'])}.${String(rng.int(1, 12)).padStart(3, '0')}`;
  return `${rng.pick(['2410', '2420', '3120'])}${rng.pick(['2020', '2030', '9890', '1010'])}${String(rng.int(1, 99)).padStart(2, '0')}`;
}

interface StoryOpts {
  body: PublicBody;
  members: Contractor[];
  cpv: Cpv;
  phrase: [string, string];
  netCents: number;
  start: number;
  award: 'Δ.1' | 'Δ.2.2' | null;
  open: boolean;
  declaration: Decision | null;
  proc: string | null;
  bids: number | null;
  commitmentP: number;
  approvalP: number;
  contractP: number;
  paymentP: number;
  maxPayments: number;
}

function story(b: Builder, o: StoryOpts): { award: Decision | null; contract: Contract | null } {
  const rng = b.rng;
  const vat = vatFor(o.cpv, o.body);
  const grossCents = gross(o.netCents, vat);
  const lead = o.members[0];
  const useAlt = rng.chance(0.2);
  const year = yearOf(o.start);
  let commitment: Decision | null = null;
  if (rng.chance(o.commitmentP)) {
    commitment = b.decision(
      'Β.1.3',
      o.body,
      o.start,
      commitmentSubject(rng, o.phrase),
      {
        financialYear: year,
        budgettype: 'Τακτικός Προϋπολογισμός',
        entryNumber: String(rng.int(10, 60000)),
        partialead: false,
        recalledExpenseDecision: false,
        amountWithVAT: { amount: grossCents / 100, currency: 'EUR' },
        amountWithKae: [
          {
            sponsorAFMName: { afm: o.body.afm, afmType: 'EL', afmCountry: 'EL', enterName: false, name: o.body.name },
            kae: kaeFor(rng, o.body),
            amountWithVAT: grossCents / 100,
          },
        ],
        relatedPartialADA: null,
        relatedDecisions: [],
        documentType: 'ΠΡΑΞΗ',
      },
      [rng.pick(['20', '24'])],
    );
  }
  let approval: Decision | null = null;
  if (rng.chance(o.approvalP)) {
    approval = b.decision(
      'Β.2.1',
      o.body,
      o.start + rng.int(0, 4) * DAY,
      expenseSubject(rng, o.phrase),
      {
        org: orgRef(o.body, true),
        sponsor: [
          {
            sponsorAFMName: sponsorName(lead, useAlt),
            expenseAmount: { amount: grossCents / 100, currency: 'EUR' },
            cpv: o.cpv.code,
            kae: kaeFor(rng, o.body),
          },
        ],
        relatedAnalipsiYpoxreosis: commitment ? commitment.ada : null,
        relatedDecisions: null,
        documentType: 'ΠΡΑΞΗ',
      },
      [rng.pick(['20', '24'])],
    );
  }
  let award: Decision | null = null;
  let awardDay = o.start + rng.int(3, 25) * DAY;
  if (o.award) {
    const persons = o.members.map((m) => ({ afm: m.afm, name: useAlt ? m.altName : m.name, enterName: false, afmType: 'EL' }));
    const subject =
      o.award === 'Δ.1'
        ? awardSubject(rng, o.cpv, o.phrase, o.body)
        : rng.pick([
            `ΚΑΤΑΚΥΡΩΣΗ ΑΠΟΤΕΛΕΣΜΑΤΟΣ ΔΙΑΓΩΝΙΣΜΟΥ ΓΙΑ ${o.phrase[0]}`,
            `ΑΠΟΦΑΣΗ ΚΑΤΑΚΥΡΩΣΗΣ: ${o.phrase[0]} ${forBody(o.body)}`,
            `ΚΑΤΑΚΥΡΩΣΗ ΤΟΥ ΕΡΓΟΥ «${o.phrase[0]}»`,
          ]);
    const extra: Record<string, unknown> =
      o.award === 'Δ.1'
        ? {
            person: persons,
            awardAmount: { amount: o.netCents / 100, currency: 'EUR' },
            assignmentType: o.cpv.kind === 'supplies' ? 'Προμήθειες' : o.cpv.kind === 'works' ? 'Έργα' : rng.chance(0.15) ? 'Μελέτες' : 'Υπηρεσίες',
            cpv: rng.chance(0.05) ? null : [o.cpv.code],
            textRelatedADA: commitment && rng.chance(0.5) ? commitment.ada : null,
            relatedDecisions: [],
            documentType: 'ΠΡΑΞΗ',
          }
        : {
            person: persons,
            awardAmount: { amount: o.netCents / 100, currency: 'EUR' },
            textRelatedADA: o.declaration ? o.declaration.ada : null,
            relatedDecisions: [],
            documentType: 'ΠΡΑΞΗ',
          };
    award = b.decision(o.award, o.body, awardDay, subject, extra, ['20']);
    if (!award) return { award: null, contract: null };
    awardDay = award.issueDay;
  }
  if (!rng.chance(o.contractP)) return { award, contract: null };
  const signed = workday(awardDay + rng.int(2, 20) * DAY);
  const submitted = officeTime(rng, workday(signed + (rng.chance(0.8) ? rng.int(0, 6) : rng.int(7, 60)) * DAY));
  if (submitted > END + DAY) return { award, contract: null };
  const durationMonths = o.cpv.kind === 'works' ? rng.int(4, 24) : rng.pick([1, 2, 3, 6, 6, 12, 12, 12]);
  const payRefs: string[] = [];
  const payments: number[] = [];
  if (rng.chance(o.paymentP)) {
    const n = rng.int(1, o.maxPayments);
    let day = signed;
    for (let i = 0; i < n; i++) {
      day = workday(day + rng.int(20, 120) * DAY);
      if (day > END - 2 * DAY) break;
      payments.push(day);
    }
  }
  // Split the gross amount over the payments (the last takes the remainder).
  let left = grossCents;
  payments.forEach((day, i) => {
    const part = i === payments.length - 1 ? left : Math.round(grossCents / payments.length);
    left -= part;
    const pay = b.decision(
      'Β.2.2',
      o.body,
      day,
      paymentSubject(rng, o.phrase, useAlt ? lead.altName : lead.name, part, yearOf(day)),
      {
        org: orgRef(o.body, false),
        skipVatReason: null,
        sponsor: o.members.map((m, k) => ({
          sponsorAFMName: sponsorName(m, useAlt),
          expenseAmount: { amount: (o.members.length === 1 ? part : k === 0 ? Math.round(part * 0.6) : part - Math.round(part * 0.6)) / 100, currency: 'EUR' },
        })),
        relatedEkgrisiDapanis: [],
        relatedDecisions: [],
        documentType: 'ΠΡΑΞΗ',
      },
      [rng.pick(['20', '16', '24'])],
    );
    if (pay) payRefs.push(b.adam.next('PAY', pay.submitted));
  });
  const awardAda = award ? award.ada : null;
  // How KIMDIS cites the award: in decisionRelatedAda, in contractRelatedADA.number3, or both.
  const mode = rng.weighted(['decision', 'related', 'both'], [5, 2, 3]);
  const relatedSlot = awardAda && mode !== 'decision' ? awardAda : (commitment?.ada ?? null);
  const title = o.open
    ? rng.pick([
        `ΣΥΜΒΑΣΗ: «${o.phrase[0]} ${workPlace(rng, o.body)}»`.replace(' »', '»'),
        `Σύμβαση του έργου: «${o.phrase[0]}»`,
        `${o.phrase[0]} ${forBody(o.body)}`,
      ])
    : rng.pick([o.phrase[0], `${o.phrase[0]} ${forBody(o.body)}`, `ΣΥΜΒΑΣΗ ${o.phrase[0]}`]);
  const contract: Contract = {
    ref: b.adam.next('SYMV', submitted),
    body: o.body,
    members: o.members,
    cpv: o.cpv,
    title,
    shortDescription: o.phrase[0],
    signed,
    submitted,
    end: addMonths(signed, durationMonths),
    durationMonths,
    netCents: o.netCents,
    vat,
    grossCents,
    budgetCents: o.open ? Math.round(grossCents * (1 + rng.next() * 0.25)) : grossCents,
    open: o.open,
    decisionAda: awardAda && mode !== 'related' ? awardAda : null,
    related: [approval && rng.chance(0.3) ? approval.ada : null, null, relatedSlot],
    awrd: b.adam.next('AWRD', awardDay),
    proc: o.proc,
    prev: null,
    payRefs,
    bids: o.bids,
    contractNumber: rng.chance(0.6) ? `${rng.int(100, 99999)}/${rng.int(1, 28)}-${rng.int(1, 12)}-${yearOf(signed)}` : String(rng.int(100, 99999)),
    spaceQuirk: awardAda !== null && mode !== 'related' && rng.chance(0.02),
  };
  b.contracts.push(contract);
  return { award, contract };
}

function directAwards(b: Builder): void {
  const rng = b.rng;
  for (let i = 0; i < PLAN.directAwards; i++) {
    const body = bodyPicker(rng, b.pool);
    const sector = sectorFor(rng, body);
    const cpv = cpvFor(rng, sector);
    const contractor = contractorFor(rng, b.pool, sector, body);
    const [lo, hi] = cpv.kind === 'works' ? [2000, 29900] : cpv.kind === 'supplies' ? [300, 29900] : [500, 29900];
    story(b, {
      body,
      members: [contractor],
      cpv,
      phrase: rng.pick(cpv.phrases),
      netCents: roundCents(rng, rng.logUniform(lo, hi)),
      start: randomDay(rng, START, END - 30 * DAY),
      award: 'Δ.1',
      open: false,
      declaration: null,
      proc: null,
      bids: null,
      commitmentP: 0.45,
      approvalP: 0.3,
      contractP: 0.9,
      paymentP: 0.6,
      maxPayments: 2,
    });
  }
}

function kimdisOnly(b: Builder): void {
  const rng = b.rng;
  for (let i = 0; i < PLAN.kimdisOnlyContracts; i++) {
    const body = bodyPicker(rng, b.pool);
    const sector = sectorFor(rng, body);
    const cpv = cpvFor(rng, sector);
    const contractor = contractorFor(rng, b.pool, sector, body);
    story(b, {
      body,
      members: [contractor],
      cpv,
      phrase: rng.pick(cpv.phrases),
      netCents: roundCents(rng, rng.logUniform(500, 29900)),
      start: randomDay(rng, START, END - 20 * DAY),
      award: null,
      open: false,
      declaration: null,
      proc: null,
      bids: null,
      commitmentP: 0.4,
      approvalP: 0,
      contractP: 1,
      paymentP: 0.25,
      maxPayments: 1,
    });
  }
}

function tedTitle(phrase: [string, string], body: PublicBody, rng: Rng): string {
  const where = workPlace(rng, body);
  return `${phrase[0]} ${where || forBody(body)}`.trim();
}

function tedNotice(b: Builder, o: Partial<TedNotice> & Pick<TedNotice, 'type' | 'pubDay' | 'body' | 'cpv' | 'title' | 'procedureId' | 'lotsCents'>): TedNotice {
  const rng = b.rng;
  const n: TedNotice = {
    pubNo: b.tedNo.next(o.pubDay),
    noticeId: rng.uuid(),
    version: rng.chance(0.9) ? 1 : 2,
    dispatchDay: o.pubDay - rng.int(2, 5) * DAY,
    extraCpvs: [],
    procedureType: 'open',
    deadlineDay: null,
    winners: [],
    decisionDay: null,
    conclusionDay: null,
    totalCents: null,
    previousNoticeId: null,
    ...o,
  };
  b.ted.push(n);
  return n;
}

function tenders(b: Builder): void {
  const rng = b.rng;
  for (let i = 0; i < PLAN.tenders; i++) {
    const onTed = i < PLAN.tedLinkedTenders;
    const body = bodyPicker(rng, b.pool, rng.chance(0.5) ? ['region', 'hospital', 'ministry'] : undefined);
    const sector = sectorFor(rng, body);
    const cpv = cpvFor(rng, sector);
    const phrase = rng.pick(cpv.phrases);
    const estimate = onTed
      ? roundCents(rng, cpv.kind === 'works' ? rng.logUniform(400_000, 8_000_000) : rng.logUniform(150_000, 3_000_000))
      : roundCents(rng, rng.logUniform(31_000, 139_000));
    const d0 = randomDay(rng, START, END - 20 * DAY);
    const proc = b.adam.next('PROC', d0);
    const declaration = b.decision(
      'Δ.2.1',
      body,
      d0,
      rng.pick([
        `ΠΕΡΙΛΗΨΗ ΔΙΑΚΗΡΥΞΗΣ ΑΝΟΙΚΤΟΥ ΗΛΕΚΤΡΟΝΙΚΟΥ ΔΙΑΓΩΝΙΣΜΟΥ ΓΙΑ ${phrase[0]}`,
        `ΠΕΡΙΛΗΨΗ ΔΙΑΚΗΡΥΞΗΣ: ${phrase[0]} ${forBody(body)}`,
        `Περίληψη διακήρυξης για την ανάδειξη αναδόχου: «${phrase[0]}»`,
      ]),
      {
        cpv: [cpv.code],
        contestProgressType: 'Ανοικτός',
        manifestSelectionCriterion: rng.chance(0.6) ? 'Χαμηλότερη Τιμή' : 'Συμφερότερη από οικονομικής άποψης',
        manifestContractType: cpv.kind === 'supplies' ? 'Προμήθειες' : cpv.kind === 'works' ? 'Έργα' : 'Υπηρεσίες',
        orgBudgetCode: rng.pick(['Τακτικός Προϋπολογισμός', 'Πρόγραμμα Δημοσίων Επενδύσεων', null]),
        estimatedAmount: { amount: rng.chance(0.05) ? null : estimate / 100, currency: 'EUR' },
        textRelatedADA: null,
        relatedDecisions: [],
        documentType: 'ΠΡΑΞΗ',
      },
      ['20'],
    );
    if (!declaration) continue;
    const procedureId = rng.uuid();
    const title = tedTitle(phrase, body, rng);
    let cn: TedNotice | null = null;
    const cnDay = declaration.issueDay + rng.int(1, 6) * DAY;
    const deadline = cnDay + rng.int(35, 52) * DAY;
    if (onTed && cnDay <= END) {
      const lots = rng.chance(0.25) ? splitLots(rng, estimate, rng.int(2, 4)) : [estimate];
      cn = tedNotice(b, { type: 'cn-standard', pubDay: cnDay, body, cpv, title, procedureId, lotsCents: lots, deadlineDay: deadline });
    }
    const awardDay = deadline + rng.int(30, 110) * DAY;
    if (awardDay > END - 5 * DAY || rng.chance(0.12)) continue; // still under evaluation, or cancelled
    const large = onTed || estimate > 6_000_000; // cents: open tenders above €60,000 go to companies
    const lead = contractorFor(rng, b.pool, sector, body, large);
    const members = rng.chance(cpv.kind === 'works' && onTed ? 0.15 : 0.03)
      ? [lead, contractorFor(rng, b.pool, sector, body, large)].filter((c, k, arr) => arr.findIndex((x) => x.afm === c.afm) === k)
      : [lead];
    const net = Math.round(estimate * (0.7 + rng.next() * 0.28));
    const bids = rng.int(1, 9);
    const { award, contract } = story(b, {
      body,
      members,
      cpv,
      phrase,
      netCents: net,
      start: awardDay - rng.int(3, 20) * DAY,
      award: 'Δ.2.2',
      open: true,
      declaration,
      proc,
      bids,
      commitmentP: 0.5,
      approvalP: 0.2,
      contractP: 0.97,
      paymentP: 0.85,
      maxPayments: 3,
    });
    if (onTed && award) {
      const canDay = award.issueDay + rng.int(20, 60) * DAY;
      if (canDay <= END) {
        tedNotice(b, {
          type: 'can-standard',
          pubDay: canDay,
          body,
          cpv,
          title,
          procedureId,
          lotsCents: cn ? cn.lotsCents : [estimate],
          winners: members.map((c, k) => ({ contractor: c, tenderCents: k === 0 ? net : Math.round(net * 0.4) })),
          decisionDay: award.issueDay,
          conclusionDay: contract ? contract.signed : null,
          totalCents: net,
        });
      }
    }
  }
}

function splitLots(rng: Rng, total: number, n: number): number[] {
  const w = Array.from({ length: n }, () => 0.5 + rng.next());
  const s = w.reduce((a, x) => a + x, 0);
  const lots = w.map((x) => Math.round((total * x) / s));
  lots[n - 1] += total - lots.reduce((a, x) => a + x, 0);
  return lots;
}

function tedOnly(b: Builder): void {
  const rng = b.rng;
  const cns: TedNotice[] = [];
  for (let i = 0; i < PLAN.tedOnlyCn; i++) {
    const body = bodyPicker(rng, b.pool);
    const sector = sectorFor(rng, body);
    const cpv = cpvFor(rng, sector);
    const phrase = rng.pick(cpv.phrases);
    const est = roundCents(rng, cpv.kind === 'works' ? rng.logUniform(300_000, 6_000_000) : rng.logUniform(140_000, 2_500_000));
    const day = randomDay(rng, START, END);
    const lots = rng.chance(0.3) ? splitLots(rng, est, rng.int(2, 5)) : [est];
    const others = cpvsOf(sector).filter((c) => c.code !== cpv.code);
    cns.push(
      tedNotice(b, {
        type: 'cn-standard',
        pubDay: day,
        body,
        cpv,
        title: tedTitle(phrase, body, rng),
        procedureId: rng.uuid(),
        lotsCents: lots,
        extraCpvs: others.length && rng.chance(0.3) ? [rng.pick(others)] : [],
        procedureType: rng.chance(0.9) ? 'open' : 'restricted',
        deadlineDay: day + rng.int(30, 50) * DAY,
      }),
    );
  }
  // Award notices: some close a TED-only contract notice above, the rest a procedure opened before 2023.
  const closable = cns.filter((n) => (n.deadlineDay ?? 0) + 60 * DAY < END);
  rng.shuffle(closable);
  for (let i = 0; i < PLAN.tedOnlyCan; i++) {
    const cn = i < Math.min(55, closable.length) ? closable[i] : null;
    const body = cn ? cn.body : bodyPicker(rng, b.pool);
    const cpv = cn ? cn.cpv : cpvFor(rng, sectorFor(rng, body));
    const lots = cn ? cn.lotsCents : [roundCents(rng, rng.logUniform(150_000, 4_000_000))];
    const decisionDay = cn ? (cn.deadlineDay ?? cn.pubDay) + rng.int(25, 90) * DAY : randomDay(rng, START, END - 30 * DAY);
    const pubDay = Math.min(decisionDay + rng.int(15, 50) * DAY, END);
    const winners = lots.map((lot) => ({
      contractor: contractorFor(rng, b.pool, cpv.sector, body, true),
      tenderCents: Math.round(lot * (0.72 + rng.next() * 0.26)),
    }));
    tedNotice(b, {
      type: 'can-standard',
      pubDay,
      body,
      cpv,
      title: cn ? cn.title : tedTitle(rng.pick(cpv.phrases), body, rng),
      procedureId: cn ? cn.procedureId : rng.uuid(),
      lotsCents: lots,
      winners,
      decisionDay,
      conclusionDay: workday(decisionDay + rng.int(10, 40) * DAY),
      totalCents: winners.reduce((a, w) => a + w.tenderCents, 0),
      procedureType: cn ? cn.procedureType : rng.chance(0.85) ? 'open' : 'neg-wo-call',
    });
  }
  const cans = b.ted.filter((n) => n.type === 'can-standard' && n.pubDay < END - 90 * DAY);
  for (let i = 0; i < PLAN.tedModifications; i++) {
    const can = rng.pick(cans);
    const pubDay = can.pubDay + rng.int(60, 300) * DAY;
    if (pubDay > END) continue;
    const factor = 1 + rng.int(3, 15) / 100;
    tedNotice(b, {
      type: 'can-modif',
      pubDay,
      body: can.body,
      cpv: can.cpv,
      title: can.title,
      procedureId: can.procedureId,
      lotsCents: can.lotsCents,
      winners: can.winners.map((w) => ({ contractor: w.contractor, tenderCents: Math.round(w.tenderCents * factor) })),
      decisionDay: can.decisionDay,
      conclusionDay: can.conclusionDay,
      totalCents: Math.round((can.totalCents ?? 0) * factor),
      previousNoticeId: can.noticeId,
    });
  }
  for (let i = 0; i < PLAN.tedPlanning; i++) {
    const body = bodyPicker(rng, b.pool, ['region', 'ministry', 'hospital', 'municipality']);
    const cpv = cpvFor(rng, sectorFor(rng, body));
    tedNotice(b, {
      type: 'pin-only',
      pubDay: randomDay(rng, START, END),
      body,
      cpv,
      title: tedTitle(rng.pick(cpv.phrases), body, rng),
      procedureId: rng.uuid(),
      lotsCents: [roundCents(rng, rng.logUniform(200_000, 5_000_000))],
    });
  }
}

function standalone(b: Builder): void {
  const rng = b.rng;
  for (let i = 0; i < PLAN.standaloneCommitments; i++) {
    const body = bodyPicker(rng, b.pool);
    const what = rng.pick(NON_PROCUREMENT_COMMITMENTS);
    const cents = roundCents(rng, rng.logUniform(200, 60_000));
    const day = randomDay(rng, START, END);
    b.decision(
      'Β.1.3',
      body,
      day,
      rng.chance(0.5) ? `ΑΝΑΛΗΨΗ ΥΠΟΧΡΕΩΣΗΣ ΓΙΑ ${what}` : what,
      {
        financialYear: yearOf(day),
        budgettype: 'Τακτικός Προϋπολογισμός',
        entryNumber: String(rng.int(10, 60000)),
        partialead: false,
        recalledExpenseDecision: rng.chance(0.03),
        amountWithVAT: { amount: cents / 100, currency: 'EUR' },
        amountWithKae: rng.chance(0.2)
          ? []
          : [
              {
                sponsorAFMName: { afm: body.afm, afmType: 'EL', afmCountry: 'EL', enterName: false, name: body.name },
                kae: kaeFor(rng, body),
                amountWithVAT: cents / 100,
              },
            ],
        relatedPartialADA: null,
        relatedDecisions: [],
        documentType: 'ΠΡΑΞΗ',
      },
      [rng.pick(['20', '24'])],
    );
  }
  for (let i = 0; i < PLAN.standaloneApprovals; i++) {
    const body = bodyPicker(rng, b.pool);
    const sector = sectorFor(rng, body);
    const cpv = cpvFor(rng, sector);
    const c = contractorFor(rng, b.pool, sector, body);
    const cents = roundCents(rng, rng.logUniform(300, 25_000));
    b.decision(
      'Β.2.1',
      body,
      randomDay(rng, START, END),
      expenseSubject(rng, rng.pick(cpv.phrases)),
      {
        org: orgRef(body, true),
        sponsor: [{ sponsorAFMName: sponsorName(c, false), expenseAmount: { amount: cents / 100, currency: 'EUR' }, cpv: cpv.code, kae: kaeFor(rng, body) }],
        relatedAnalipsiYpoxreosis: null,
        relatedDecisions: null,
        documentType: 'ΠΡΑΞΗ',
      },
      ['20'],
    );
  }
  for (let i = 0; i < PLAN.standalonePayments; i++) {
    const body = bodyPicker(rng, b.pool);
    const sector = sectorFor(rng, body);
    const cpv = cpvFor(rng, sector);
    const c = contractorFor(rng, b.pool, sector, body);
    const cents = roundCents(rng, rng.logUniform(100, 15_000));
    const day = randomDay(rng, START, END);
    const empty = rng.chance(0.1);
    b.decision(
      'Β.2.2',
      body,
      day,
      paymentSubject(rng, rng.pick(cpv.phrases), c.name, cents, yearOf(day)),
      {
        org: orgRef(body, false),
        skipVatReason: empty ? 'SKIP_VAT_REASON_1' : null,
        sponsor: empty ? [] : [{ sponsorAFMName: sponsorName(c, false), expenseAmount: { amount: cents / 100, currency: 'EUR' } }],
        relatedEkgrisiDapanis: [],
        relatedDecisions: [],
        documentType: 'ΠΡΑΞΗ',
      },
      ['20'],
    );
  }
  for (let i = 0; i < PLAN.otherActs; i++) {
    const body = bodyPicker(rng, b.pool, ['municipality', 'region', 'hospital']);
    b.decision(
      '2.4.7.1',
      body,
      randomDay(rng, START, END),
      `${rng.pick(OTHER_ACTS)} ${forBody(body).replace('ΓΙΑ ΤΙΣ ΑΝΑΓΚΕΣ ', '')}`,
      {
        kanonistikipraxitype: null,
        kanonistikiPraxiPublishMedium: null,
        fek: null,
        relatedDecisions: [],
        documentType: 'ΠΡΑΞΗ',
        co_competent: null,
      },
      [rng.pick(['10004', '44'])],
    );
  }
}

const MINISTRY_REGULATIONS = [
  'ΚΑΘΟΡΙΣΜΟΣ ΔΙΑΔΙΚΑΣΙΑΣ ΚΑΙ ΔΙΚΑΙΟΛΟΓΗΤΙΚΩΝ ΓΙΑ ΤΗ ΧΟΡΗΓΗΣΗ ΑΔΕΙΑΣ ΛΕΙΤΟΥΡΓΙΑΣ',
  'ΡΥΘΜΙΣΗ ΘΕΜΑΤΩΝ ΗΛΕΚΤΡΟΝΙΚΗΣ ΥΠΟΒΟΛΗΣ ΑΙΤΗΣΕΩΝ ΜΕΣΩ ΤΗΣ ΕΝΙΑΙΑΣ ΨΗΦΙΑΚΗΣ ΠΥΛΗΣ (GOV.GR)',
  'ΚΑΘΟΡΙΣΜΟΣ ΤΟΥ ΤΡΟΠΟΥ ΕΚΔΟΣΗΣ ΠΙΣΤΟΠΟΙΗΤΙΚΩΝ ΜΕ ΗΛΕΚΤΡΟΝΙΚΑ ΜΕΣΑ',
  'ΔΙΑΔΙΚΑΣΙΑ ΧΟΡΗΓΗΣΗΣ ΕΝΙΣΧΥΣΗΣ ΚΑΙ ΚΡΙΤΗΡΙΑ ΕΠΙΛΕΞΙΜΟΤΗΤΑΣ',
  'ΚΑΘΟΡΙΣΜΟΣ ΠΑΡΑΒΟΛΩΝ ΚΑΙ ΤΕΛΩΝ ΓΙΑ ΤΗΝ ΕΚΔΟΣΗ ΑΔΕΙΩΝ',
  'ΟΡΟΙ ΚΑΙ ΠΡΟΫΠΟΘΕΣΕΙΣ ΓΙΑ ΤΗΝ ΕΓΓΡΑΦΗ ΣΤΟ ΜΗΤΡΩΟ',
];
const MUNICIPAL_REGULATIONS = [
  'ΚΑΝΟΝΙΣΜΟΣ ΚΑΘΑΡΙΟΤΗΤΑΣ',
  'ΚΑΝΟΝΙΣΜΟΣ ΛΕΙΤΟΥΡΓΙΑΣ ΛΑΪΚΩΝ ΑΓΟΡΩΝ',
  'ΚΑΝΟΝΙΣΜΟΣ ΧΡΗΣΗΣ ΚΟΙΝΟΧΡΗΣΤΩΝ ΧΩΡΩΝ',
  'ΚΑΘΟΡΙΣΜΟΣ ΣΥΝΤΕΛΕΣΤΩΝ ΤΕΛΩΝ ΚΑΘΑΡΙΟΤΗΤΑΣ ΚΑΙ ΦΩΤΙΣΜΟΥ',
  'ΚΑΝΟΝΙΣΜΟΣ ΥΔΡΕΥΣΗΣ',
  'ΚΑΝΟΝΙΣΜΟΣ ΛΕΙΤΟΥΡΓΙΑΣ ΚΟΙΜΗΤΗΡΙΩΝ',
];

function regActs(b: Builder): RegAct[] {
  const rng = b.rng;
  const out: RegAct[] = [];
  for (let i = 0; i < PLAN.regActs; i++) {
    const ministry = i % 2 === 0;
    const body = bodyPicker(rng, b.pool, ministry ? ['ministry'] : ['municipality']);
    const day = randomDay(rng, START, END);
    const title = ministry ? rng.pick(MINISTRY_REGULATIONS) : `${rng.pick(MUNICIPAL_REGULATIONS)} ΔΗΜΟΥ ${body.place.gen}`;
    const subject = ministry ? `${title} (${yearOf(day)})` : `${title} - ΕΤΟΣ ${yearOf(day)}`;
    const d = b.decision(
      'Α.2',
      body,
      day,
      subject,
      {
        fek: {},
        kanonistikipraxiaa: null,
        kanonistikipraxitype: null,
        co_competent: null,
        relatedDecisions: [],
        documentType: 'ΠΡΑΞΗ',
      },
      [rng.pick(['24', '10004'])],
    );
    if (d) out.push({ decision: d, title, fek: { number: rng.int(100, 7800), issue: ministry ? 'Β' : rng.pick(['Β', 'Δ']), year: yearOf(day) } });
  }
  return out;
}

function permitDecisions(b: Builder, permits: Permit[]): void {
  const rng = b.rng;
  const raaey = b.pool.bodies.find((x) => x.kind === 'authority');
  if (!raaey) throw new Error('no regulator in the pool');
  const withDates = permits.filter((p) => p.issued !== null);
  for (const p of rng.sample(withDates, PLAN.permitDecisions)) {
    const tech = p.layer.tech === 'pv' ? 'ΦΩΤΟΒΟΛΤΑΪΚΟ ΣΤΑΘΜΟ' : p.layer.tech === 'wind' ? 'ΑΙΟΛΙΚΟ ΣΤΑΘΜΟ' : 'ΜΙΚΡΟ ΥΔΡΟΗΛΕΚΤΡΙΚΟ ΣΤΑΘΜΟ';
    const act = p.status === 'ΑΠΟΡΡΙΠΤΙΚΗ ΑΠΟΦΑΣΗ' ? 'ΑΠΟΡΡΙΨΗ ΑΙΤΗΣΗΣ ΓΙΑ ΧΟΡΗΓΗΣΗ ΒΕΒΑΙΩΣΗΣ ΠΑΡΑΓΩΓΟΥ' : 'ΧΟΡΗΓΗΣΗ ΒΕΒΑΙΩΣΗΣ ΠΑΡΑΓΩΓΟΥ';
    const mw = p.powerMw.toFixed(3).replace('.', ',');
    const d = b.decision(
      '2.4.7.1',
      raaey,
      p.issued as number,
      `${act} ΓΙΑ ${tech} ΙΣΧΥΟΣ ${mw} MW ΣΤΗ ΘΕΣΗ «${p.thesh}» ΤΟΥ ΔΗΜΟΥ ${p.municipalities[0].gen}, ΤΗΣ ΕΤΑΙΡΕΙΑΣ «${p.company}» (${p.aa})`,
      { kanonistikipraxitype: null, kanonistikiPraxiPublishMedium: null, fek: null, relatedDecisions: [], documentType: 'ΠΡΑΞΗ', co_competent: null },
      ['44'],
    );
    if (d) p.decisionAda = d.ada;
  }
}

export function buildWorld(rng: Rng): World {
  const pool = buildEntityPool(rng.fork('entities'));
  const b = new Builder(rng.fork('world'), pool);
  directAwards(b);
  tenders(b);
  kimdisOnly(b);
  tedOnly(b);
  standalone(b);
  const acts = regActs(b);
  const permits = buildPermits(rng.fork('permits'), pool, PLAN.permits);
  permitDecisions(b, permits);
  // A few contracts are modifications of an earlier one (ΚΗΜΔΗΣ `prevReferenceNo`).
  const byOrg = new Map<string, Contract[]>();
  for (const c of [...b.contracts].sort((x, y) => x.submitted - y.submitted)) {
    const prior = byOrg.get(c.body.uid) ?? [];
    if (prior.length > 0 && b.rng.chance(0.05)) c.prev = b.rng.pick(prior).ref;
    prior.push(c);
    byOrg.set(c.body.uid, prior);
  }
  return { pool, decisions: b.decisions, contracts: b.contracts, ted: b.ted, permits, regActs: acts };
}
