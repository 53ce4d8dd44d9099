// ΚΗΜΔΗΣ open data `POST /contract?page=N` pages (Spring page envelope, 50 per page), harvested in
// windows of 175 days of `submissionDate`, newest first, with records shaped like the real ones
// (see shared/fixtures/kimdis/contract_content_items.json).
import { KIND_LABEL } from '../cpv.js';
import { DAY, END, START, compact, isoDate, isoLocal } from '../dates.js';
import type { PublicBody } from '../entities.js';
import { NUTS3 } from '../geo.js';
import { json, seq, type OutFile } from '../output.js';
import type { Rng } from '../prng.js';
import type { Contract, World } from '../world.js';

const PAGE = 50;
const WINDOW_DAYS = 175;

const KV = (key: string, value: string) => ({ key, value });
const NO = KV('2', 'Όχι');

function authority(body: PublicBody) {
  switch (body.kind) {
    case 'ministry':
      return { cls: KV('1', 'Κεντρική Κυβέρνηση'), type: KV('1', 'Υπουργείο'), activity: KV('1', 'Γενικές δημόσιες υπηρεσίες'), central: KV('1', 'Ναι') };
    case 'hospital':
      return { cls: KV('3', 'ΝΠΔΔ'), type: KV('9', 'ΝΠΔΔ'), activity: KV('4', 'Υγεία'), central: NO };
    case 'authority':
      return { cls: KV('4', 'Ανεξάρτητη Αρχή'), type: KV('8', 'Ανεξάρτητη Αρχή'), activity: KV('1', 'Γενικές δημόσιες υπηρεσίες'), central: NO };
    default:
      return { cls: KV('2', 'ΟΤΑ'), type: KV('9', 'ΝΠΔΔ'), activity: KV('1', 'Γενικές δημόσιες υπηρεσίες'), central: NO };
  }
}

function objectType(c: Contract) {
  if (c.cpv.kind === 'works') return KV('Erg', 'Έργο');
  if (c.cpv.kind === 'services') return KV('E48', 'Υπηρεσία');
  return KV('E47', 'Αγαθό');
}

function render(rng: Rng, c: Contract): Record<string, unknown> {
  const a = authority(c.body);
  const nuts = KV(c.body.place.nuts3, NUTS3[c.body.place.nuts3]);
  const unit = c.body.units[0];
  const signer = c.body.signers[0];
  const cityUpper = rng.chance(0.5);
  const city = cityUpper ? c.body.place.city.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase() : c.body.place.city;
  const procedureType = c.open ? KV('1', 'Ανοιχτή διαδικασία') : KV('6', 'Απευθείας ανάθεση');
  const legal = c.open && c.netCents >= 14_000_000 ? KV('1', 'ν.4412/2016 - Βιβλίο Ι – άνω των ορίων') : KV('5', 'ν.4412/2016 - Βιβλίο Ι – κάτω των ορίων');
  const funded = c.cpv.kind === 'works' && rng.chance(0.6);
  const year = new Date(c.signed).getUTCFullYear();
  return {
    title: c.title,
    referenceNumber: c.ref,
    prevReferenceNo: c.prev,
    noticeReferenceNumber: c.proc,
    submissionDate: isoLocal(c.submitted),
    lastUpdateDate: null,
    contractSignedDate: isoDate(c.signed),
    startDate: isoDate(c.signed),
    noEndDate: false,
    endDate: isoDate(c.end),
    cancelled: false,
    cancellationDate: null,
    cancellationType: null,
    cancellationReason: null,
    cancellationADA: null,
    decisionRelatedAda: c.decisionAda === null ? null : (c.spaceQuirk ? ' ' : '') + c.decisionAda,
    contractNumber: c.contractNumber,
    authorEmail: null,
    organizationVatNumber: c.body.afm,
    greekOrganizationVatNumber: true,
    commitmentNo: null,
    diavgeiaADA: null,
    aaht: `${rng.int(1000, 1099)}.${rng.chance(0.5) ? 'E' + rng.int(10000, 99999) : rng.int(100, 999)}.${String(rng.int(1, 12)).padStart(4, '0')}`,
    budget: null,
    contractBudget: c.budgetCents / 100,
    bidsSubmitted: c.bids,
    maxBidsSubmitted: c.bids ?? 1,
    numberOfSections: 1,
    assignedContract: NO,
    socialContract: NO,
    centralGovernmentAuthority: a.central,
    nutsCodes: [{ nutsCode: nuts }],
    approvedRequestsList: [],
    organization: KV(c.body.uid, c.body.name),
    procedureType,
    awardProcedure: null,
    nutsCode: nuts,
    nutsCity: city,
    nutsPostalCode: c.body.place.postal,
    nutsCountry: KV('GR', 'Ελλάδα'),
    centralizedMarkets: [{ centralizedMarket: KV('8', 'Δεν χρησιμοποιείται') }],
    legalContext: legal,
    contractType: c.cpv.kind === 'works' ? KV('10', 'Έργα') : c.cpv.kind === 'services' ? KV('9', KIND_LABEL.services) : KV('8', KIND_LABEL.supplies),
    assignCriteria: rng.chance(0.75) ? KV('10', 'Βάσει τιμής') : KV('9', 'Βάσει κόστους – βέλτιστη σχέση ποιότητας – τιμής'),
    classificationOfPublicLawOrganization: a.cls,
    typeOfContractingAuthority: a.type,
    contractingAuthorityActivity: a.activity,
    contractDuration: c.durationMonths,
    contractDurationUnitOfMeasure: KV('3', 'Μήνες'),
    contractRelatedADA: { number1: c.related[0], number2: c.related[1], number3: c.related[2] },
    fundingDetails: {
      publicFundingRef: funded ? 'ΝΠ431' : null,
      publicFundingRefNum: funded ? `${year}ΝΠ431${String(rng.int(1, 99999)).padStart(5, '0')}` : null,
      publicFundingRefOps: funded ? String(rng.int(5200000, 5299999)) : null,
      cofundProgramRef: null,
      selfFundProgramRef: null,
      espaFundProgramRef: null,
      regularBudgetFundedProgramRef: funded ? null : `${rng.int(10, 99)}.${rng.int(1000, 9999)}.${String(rng.int(1, 20)).padStart(3, '0')}`,
    },
    contractingDataDetails: {
      unitsOperator: KV(unit.id, unit.label),
      signers: KV(signer.id, `${signer.name} - ${signer.title}`),
      contractingMembersDataList: c.members.map((m) => ({
        country: KV('GR', 'Ελλάδα'),
        vatNumber: m.afm,
        greekVatNumber: m.person === null ? true : rng.chance(0.5),
        name: m.person ? `${m.person.surname} ${m.person.father.slice(0, 3)}. ${m.person.first}` : m.name,
      })),
    },
    totalCostWithVAT: c.grossCents / 100,
    totalCostWithoutVAT: c.netCents / 100,
    objectDetailsList: [
      {
        quantity: 1,
        type: objectType(c),
        costWithoutVAT: c.netCents / 100,
        vat: String(c.vat),
        currency: KV('EUR', 'Ευρώ'),
        shortDescription: c.shortDescription,
        cpvs: [KV(c.cpv.code, c.cpv.el)],
        greenContracts: KV('1', 'Δεν εμπίπτει στο ΕΣΔ'),
        goodServices: null,
        cityOfConstruction: null,
        countryOfDelivery: KV('GR', 'Ελλάδα'),
        addressForDelivery: null,
        postalCode: null,
        city,
        streetNumber: null,
        budgetCode: null,
        requestRefNo: c.awrd,
      },
    ],
    additionalContractTypes: null,
    mixedContract: false,
    requestRefNo: null,
    nextRefNo: null,
    nextExtended: null,
    nextModified: null,
    auctionRefNo: c.awrd,
    paymentRefNo: c.payRefs,
  };
}

export function renderKimdis(world: World, rng: Rng): OutFile[] {
  const files: OutFile[] = [];
  let n = 1;
  for (let from = START; from <= END; from += WINDOW_DAYS * DAY) {
    const to = from + WINDOW_DAYS * DAY;
    const inWindow = world.contracts.filter((c) => c.submitted >= from && c.submitted < to).sort((a, b) => b.submitted - a.submitted);
    const totalPages = Math.max(1, Math.ceil(inWindow.length / PAGE));
    for (let page = 0; page < totalPages; page++) {
      const slice = inWindow.slice(page * PAGE, (page + 1) * PAGE);
      const body = {
        content: slice.map((c) => render(rng, c)),
        totalElements: inWindow.length,
        totalPages,
        first: page === 0,
        last: page === totalPages - 1,
        numberOfElements: slice.length,
        size: PAGE,
        number: page,
        empty: slice.length === 0,
      };
      files.push({ path: `kimdis/${seq(n++)}-contract-${compact(from)}-p${page}.json`, body: json(body), records: slice.length });
    }
  }
  return files;
}
