// The shared entity pool: public bodies (real names, synthetic but check-digit-valid AFMs) and fictional
// contractors with valid AFMs. The same pool feeds Diavgeia, KIMDIS and TED, so an AFM or a name can be
// followed across sources. Contractors carry a Zipf-like weight so a few recur often.
import { makeAfm } from './afm.js';
import { CPVS, SECTORS, type Sector } from './cpv.js';
import { PLACES, REGIONS, regionOf, type Place, type Region } from './geo.js';
import { orgAdaCode } from './ids.js';
import { BRAND_WORDS, COMPANY_WORDS, LATIN_BRANDS, LEGAL_FORMS, SURNAMES, fullName, personName, surnameGenitive, type PersonName } from './names.js';
import { zipfWeights, type Rng } from './prng.js';

export type BodyKind = 'municipality' | 'region' | 'ministry' | 'hospital' | 'authority';

export interface Unit {
  id: string;
  label: string;
}
export interface Signer {
  id: string;
  name: string;
  title: string;
}

export interface PublicBody {
  /** Diavgeia organisation uid; also KIMDIS `organization.key`. */
  uid: string;
  kind: BodyKind;
  name: string;
  latinName: string;
  afm: string;
  category: string;
  place: Place;
  region: Region;
  units: Unit[];
  signers: Signer[];
  adaCode: string;
  /** How often this body publishes, relative to the others. */
  weight: number;
  supervisorLabel: string | null;
  website: string;
}

export interface Contractor {
  afm: string;
  /** The name as the tax registry has it (KIMDIS, TED). */
  name: string;
  /** A second spelling some Diavgeia decisions use (`Α.Ε.` for `ΑΕ`, `SURNAME,,FATH,FIRST`). */
  altName: string;
  person: PersonName | null;
  sector: Sector;
  home: Region;
  weight: number;
  /** Large enough to win above-threshold (TED) tenders. */
  large: boolean;
}

export interface EntityPool {
  bodies: PublicBody[];
  contractors: Contractor[];
}

const REGION_SEATS: Record<string, string> = {
  attiki: 'athinaion',
  kmak: 'thessalonikis',
  amth: 'komotinis',
  dmak: 'kozanis',
  ipeiros: 'ioanniton',
  thessalia: 'larisaion',
  ionia: 'kerkyras',
  dellada: 'patreon',
  sterea: 'lamieon',
  peloponnisos: 'tripolis',
  kriti: 'irakleiou',
  naigaio: 'syrou_ermoupolis',
  vaigaio: 'lesvou',
};

const MINISTRIES: [string, string, string, string][] = [
  ['53', 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ', 'ypes', 'https://www.ypes.gr'],
  ['25', 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', 'moh', 'https://www.moh.gov.gr'],
  ['9', 'ΥΠΟΥΡΓΕΙΟ ΠΑΙΔΕΙΑΣ, ΘΡΗΣΚΕΥΜΑΤΩΝ ΚΑΙ ΑΘΛΗΤΙΣΜΟΥ', 'minedu', 'https://www.minedu.gov.gr'],
  ['7', 'ΥΠΟΥΡΓΕΙΟ ΥΠΟΔΟΜΩΝ ΚΑΙ ΜΕΤΑΦΟΡΩΝ', 'yme', 'https://www.yme.gr'],
  ['100054486', 'ΥΠΟΥΡΓΕΙΟ ΨΗΦΙΑΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ', 'mindigital', 'https://mindigital.gr'],
  ['100015981', 'ΥΠΟΥΡΓΕΙΟ ΠΕΡΙΒΑΛΛΟΝΤΟΣ ΚΑΙ ΕΝΕΡΓΕΙΑΣ', 'ypen', 'https://ypen.gov.gr'],
];

const HOSPITALS: [string, string, string, string][] = [
  ['99221903', 'ΓΕΝΙΚΟ ΝΟΣΟΚΟΜΕΙΟ ΑΘΗΝΩΝ «Ο ΕΥΑΓΓΕΛΙΣΜΟΣ»', 'athinaion', 'evaggelismos'],
  ['99221935', 'ΓΕΝΙΚΟ ΝΟΣΟΚΟΜΕΙΟ ΘΕΣΣΑΛΟΝΙΚΗΣ «ΠΑΠΑΝΙΚΟΛΑΟΥ»', 'thessalonikis', 'papanikolaou'],
  ['99221958', 'ΠΑΝΕΠΙΣΤΗΜΙΑΚΟ ΓΕΝΙΚΟ ΝΟΣΟΚΟΜΕΙΟ ΗΡΑΚΛΕΙΟΥ', 'irakleiou', 'pagni'],
  ['99221964', 'ΠΑΝΕΠΙΣΤΗΜΙΑΚΟ ΓΕΝΙΚΟ ΝΟΣΟΚΟΜΕΙΟ ΠΑΤΡΩΝ', 'patreon', 'pgnp'],
  ['99221977', 'ΓΕΝΙΚΟ ΝΟΣΟΚΟΜΕΙΟ ΛΑΡΙΣΑΣ', 'larisaion', 'gnlarisas'],
  ['99221771', 'ΓΕΝΙΚΟ ΝΟΣΟΚΟΜΕΙΟ - ΚΕΝΤΡΟ ΥΓΕΙΑΣ ΛΗΜΝΟΥ', 'limnou', 'nosokomeio_limnou'],
];

const MUNICIPAL_UNITS = [
  'ΔΙΕΥΘΥΝΣΗ ΟΙΚΟΝΟΜΙΚΩΝ ΥΠΗΡΕΣΙΩΝ',
  'ΔΙΕΥΘΥΝΣΗ ΤΕΧΝΙΚΩΝ ΥΠΗΡΕΣΙΩΝ',
  'ΔΙΕΥΘΥΝΣΗ ΚΑΘΑΡΙΟΤΗΤΑΣ ΚΑΙ ΑΝΑΚΥΚΛΩΣΗΣ',
  'ΔΙΕΥΘΥΝΣΗ ΔΙΟΙΚΗΤΙΚΩΝ ΥΠΗΡΕΣΙΩΝ',
  'ΤΜΗΜΑ ΠΡΟΜΗΘΕΙΩΝ',
  'ΔΗΜΟΤΙΚΟ ΣΥΜΒΟΥΛΙΟ',
  'ΔΗΜΑΡΧΟΣ',
];
const REGION_UNITS = [
  'ΔΙΕΥΘΥΝΣΗ ΤΕΧΝΙΚΩΝ ΕΡΓΩΝ',
  'ΔΙΕΥΘΥΝΣΗ ΔΙΟΙΚΗΤΙΚΟΥ - ΟΙΚΟΝΟΜΙΚΟΥ',
  'ΟΙΚΟΝΟΜΙΚΗ ΕΠΙΤΡΟΠΗ',
  'ΔΙΕΥΘΥΝΣΗ ΑΝΑΠΤΥΞΙΑΚΟΥ ΠΡΟΓΡΑΜΜΑΤΙΣΜΟΥ',
  'ΠΕΡΙΦΕΡΕΙΑΡΧΗΣ',
];
const MINISTRY_UNITS = [
  'ΓΕΝΙΚΗ ΔΙΕΥΘΥΝΣΗ ΟΙΚΟΝΟΜΙΚΩΝ ΥΠΗΡΕΣΙΩΝ',
  'ΔΙΕΥΘΥΝΣΗ ΠΡΟΜΗΘΕΙΩΝ ΚΑΙ ΔΙΑΧΕΙΡΙΣΗΣ ΥΛΙΚΟΥ',
  'ΓΕΝΙΚΗ ΓΡΑΜΜΑΤΕΙΑ',
  'ΔΙΕΥΘΥΝΣΗ ΗΛΕΚΤΡΟΝΙΚΗΣ ΔΙΑΚΥΒΕΡΝΗΣΗΣ',
  'ΓΡΑΦΕΙΟ ΥΠΟΥΡΓΟΥ',
];
const HOSPITAL_UNITS = ['ΔΙΟΙΚΗΤΙΚΗ ΥΠΗΡΕΣΙΑ', 'ΤΜΗΜΑ ΠΡΟΜΗΘΕΙΩΝ', 'ΟΙΚΟΝΟΜΙΚΗ ΥΠΗΡΕΣΙΑ', 'ΤΕΧΝΙΚΗ ΥΠΗΡΕΣΙΑ', 'ΔΙΟΙΚΗΤΙΚΟ ΣΥΜΒΟΥΛΙΟ'];

const SIGNER_TITLES: Record<BodyKind, string[]> = {
  municipality: ['Δήμαρχος', 'Αντιδήμαρχος'],
  region: ['Περιφερειάρχης', 'Αντιπεριφερειάρχης'],
  ministry: ['Γενικός Γραμματέας', 'Προϊστάμενος Γενικής Διεύθυνσης'],
  hospital: ['Διοικητής', 'Αναπληρωτής Διοικητής'],
  authority: ['Πρόεδρος', 'Αντιπρόεδρος'],
};

function makeUnits(rng: Rng, labels: string[], n: number): Unit[] {
  return rng.sample(labels, n).map((label) => ({ id: String(rng.chance(0.5) ? rng.int(70000, 99999) : rng.int(100000000, 100099999)), label }));
}

function makeSigners(rng: Rng, kind: BodyKind): Signer[] {
  return SIGNER_TITLES[kind].map((title) => ({
    id: String(rng.int(100000000, 100099999)),
    name: fullName(personName(rng)),
    title,
  }));
}

function placeByKey(key: string): Place {
  const p = PLACES.find((x) => x.key === key);
  if (!p) throw new Error(`unknown place ${key}`);
  return p;
}

function buildBodies(rng: Rng, afms: Set<string>, adaCodes: Set<string>): PublicBody[] {
  const bodies: PublicBody[] = [];
  const usedUids = new Set<string>();
  const uid = (pref: string | null) => {
    if (pref && !usedUids.has(pref)) {
      usedUids.add(pref);
      return pref;
    }
    for (;;) {
      const u = String(rng.int(6001, 6330));
      if (!usedUids.has(u)) {
        usedUids.add(u);
        return u;
      }
    }
  };
  for (const place of PLACES.filter((p) => p.body)) {
    const region = regionOf(place.region);
    const big = ['athinaion', 'thessalonikis', 'patreon', 'irakleiou', 'larisaion', 'peiraia'].includes(place.key);
    bodies.push({
      uid: place.key === 'limnou' ? uid('6174') : place.key === 'prevezas' ? uid('6253') : uid(null),
      kind: 'municipality',
      name: `ΔΗΜΟΣ ${place.gen}`,
      latinName: `dimos_${place.key}`,
      afm: makeAfm(rng, rng.pick(['0909', '0902', '9970', '9981', '800']), afms),
      category: 'MUNICIPALITY',
      place,
      region,
      units: makeUnits(rng, MUNICIPAL_UNITS, 3),
      signers: makeSigners(rng, 'municipality'),
      adaCode: orgAdaCode(rng, adaCodes),
      weight: big ? 3 : 1 + rng.next(),
      supervisorLabel: `ΠΕΡΙΦΕΡΕΙΑ ${region.gen}`,
      website: `https://www.${place.key.replace(/_/g, '')}.gr`,
    });
  }
  REGIONS.forEach((region, i) => {
    const place = placeByKey(REGION_SEATS[region.key]);
    bodies.push({
      uid: uid(String(5001 + i)),
      kind: 'region',
      name: `ΠΕΡΙΦΕΡΕΙΑ ${region.gen}`,
      latinName: `perifereia_${region.latin}`,
      afm: makeAfm(rng, rng.pick(['9970', '9971']), afms),
      category: 'REGION',
      place,
      region,
      units: makeUnits(rng, REGION_UNITS, 3),
      signers: makeSigners(rng, 'region'),
      adaCode: orgAdaCode(rng, adaCodes),
      weight: 2,
      supervisorLabel: 'ΥΠΟΥΡΓΕΙΟ ΕΣΩΤΕΡΙΚΩΝ',
      website: `https://www.${region.latin.replace(/_/g, '')}.gov.gr`,
    });
  });
  const athens = placeByKey('athinaion');
  for (const [mUid, name, latin, website] of MINISTRIES) {
    bodies.push({
      uid: uid(mUid),
      kind: 'ministry',
      name,
      latinName: latin,
      afm: makeAfm(rng, '0901', afms),
      category: 'MINISTRY',
      place: athens,
      region: regionOf('attiki'),
      units: makeUnits(rng, MINISTRY_UNITS, 3),
      signers: makeSigners(rng, 'ministry'),
      adaCode: orgAdaCode(rng, adaCodes),
      weight: 1.5,
      supervisorLabel: null,
      website,
    });
  }
  for (const [hUid, name, placeKey, latin] of HOSPITALS) {
    const place = placeByKey(placeKey);
    bodies.push({
      uid: uid(hUid),
      kind: 'hospital',
      name,
      latinName: latin,
      afm: makeAfm(rng, rng.pick(['0993', '9972']), afms),
      category: 'HOSPITAL',
      place,
      region: regionOf(place.region),
      units: makeUnits(rng, HOSPITAL_UNITS, 3),
      signers: makeSigners(rng, 'hospital'),
      adaCode: orgAdaCode(rng, adaCodes),
      weight: 2,
      supervisorLabel: 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ',
      website: `https://www.${latin}.gr`,
    });
  }
  bodies.push({
    uid: uid('99206911'),
    kind: 'authority',
    name: 'ΡΥΘΜΙΣΤΙΚΗ ΑΡΧΗ ΑΠΟΒΛΗΤΩΝ, ΕΝΕΡΓΕΙΑΣ ΚΑΙ ΥΔΑΤΩΝ',
    latinName: 'raaey',
    afm: makeAfm(rng, '0998', afms),
    category: 'INDEPENDENT_AUTHORITY',
    place: athens,
    region: regionOf('attiki'),
    units: makeUnits(rng, ['ΔΙΕΥΘΥΝΣΗ ΑΔΕΙΟΔΟΤΗΣΕΩΝ', 'ΟΛΟΜΕΛΕΙΑ', 'ΓΡΑΦΕΙΟ ΠΡΟΕΔΡΟΥ'], 3),
    signers: makeSigners(rng, 'authority'),
    adaCode: orgAdaCode(rng, adaCodes),
    weight: 1,
    supervisorLabel: null,
    website: 'https://www.raaey.gr',
  });
  return bodies;
}

/** How many contractors of each sector the pool holds. */
const SECTOR_COUNTS: Record<Sector, number> = {
  construction: 22,
  cleaning: 8,
  waste: 5,
  it: 12,
  medical: 12,
  fuel: 5,
  food: 7,
  office: 8,
  vehicles: 8,
  lighting: 8,
  hvac: 6,
  green: 5,
  consulting: 8,
  security: 4,
  transport: 3,
  events: 4,
};

/** Sectors where sole proprietors (individuals) are common, and their share there. */
const PERSON_SHARE: Partial<Record<Sector, number>> = {
  vehicles: 0.5,
  green: 0.6,
  consulting: 0.5,
  events: 0.5,
  office: 0.3,
  construction: 0.15,
  transport: 0.67,
  lighting: 0.3,
  hvac: 0.3,
  food: 0.3,
};

function companyName(rng: Rng, sector: Sector, taken: Set<string>): [string, string] {
  for (;;) {
    const picked = rng.pick(LEGAL_FORMS);
    // ΑΤΕ is the technical (construction) société anonyme; other sectors get a plain ΑΕ.
    const [form, altForm] = picked[0] === 'ΑΤΕ' && sector !== 'construction' ? ['ΑΕ', 'Α.Ε.'] : picked;
    const word = rng.pick(COMPANY_WORDS[sector]);
    const latinWord = /^[A-Z ]+$/.test(word);
    let stem: string;
    const style = rng.int(0, 3);
    if (latinWord) stem = `${rng.pick(LATIN_BRANDS)} ${word}`;
    else if (style === 0) stem = `${word} ${rng.pick(BRAND_WORDS)}`;
    else if (style === 1) stem = `${rng.pick(BRAND_WORDS)} ${word}`;
    else if (style === 2) stem = `${surnameGenitive(rng.pick(SURNAMES))} ${word}`;
    else stem = `ΑΦΟΙ ${surnameGenitive(rng.pick(SURNAMES))}`;
    const legal = style === 3 ? (rng.chance(0.5) ? ['ΟΕ', 'Ο.Ε.'] : ['ΕΕ', 'Ε.Ε.']) : [form, altForm];
    const name = `${stem} ${legal[0]}`;
    if (!taken.has(name)) {
      taken.add(name);
      return [name, `${stem} ${legal[1]}`];
    }
  }
}

function buildContractors(rng: Rng, afms: Set<string>): Contractor[] {
  const out: Contractor[] = [];
  const names = new Set<string>();
  for (const sector of SECTORS) {
    for (let i = 0; i < SECTOR_COUNTS[sector]; i++) {
      const home = rng.pick(REGIONS);
      if (rng.chance(PERSON_SHARE[sector] ?? 0)) {
        let p: PersonName;
        let name: string;
        do {
          p = personName(rng);
          name = `${p.surname} ${p.first}`;
        } while (names.has(name));
        names.add(name);
        // Diavgeia often prints individuals as the tax registry does: SURNAME,,FATH,FIRST
        const alt = `${p.surname},,${p.father.slice(0, 5)},${p.first}`;
        out.push({
          afm: makeAfm(rng, rng.pick(['0', '1']) + String(rng.int(0, 7)), afms),
          name,
          altName: alt,
          person: p,
          sector,
          home,
          weight: 0,
          large: false,
        });
      } else {
        const [name, alt] = companyName(rng, sector, names);
        out.push({
          afm: makeAfm(rng, rng.pick(['094', '099', '800', '801', '996', '997']), afms),
          name,
          altName: alt,
          person: null,
          sector,
          home,
          weight: 0,
          large: false,
        });
      }
    }
  }
  // Zipf over a random ranking: a handful of contractors win most of the work.
  const ranking = rng.shuffle(out.map((_, i) => i));
  const w = zipfWeights(out.length, 0.9);
  ranking.forEach((idx, rank) => {
    out[idx].weight = w[rank];
  });
  for (const c of out) c.large = c.person === null && (c.weight > 0.05 || rng.chance(0.3));
  return out;
}

export function buildEntityPool(rng: Rng): EntityPool {
  const afms = new Set<string>();
  const adaCodes = new Set<string>();
  const bodies = buildBodies(rng.fork('bodies'), afms, adaCodes);
  const contractors = buildContractors(rng.fork('contractors'), afms);
  return { bodies, contractors };
}

/** Sector mix each kind of body buys from. */
export const SECTOR_MIX: Record<BodyKind, Partial<Record<Sector, number>>> = {
  municipality: {
    construction: 14,
    cleaning: 8,
    waste: 8,
    lighting: 8,
    fuel: 6,
    vehicles: 7,
    green: 6,
    office: 5,
    events: 5,
    it: 4,
    hvac: 3,
    consulting: 4,
    food: 3,
    security: 2,
    transport: 3,
  },
  region: { construction: 14, consulting: 6, it: 5, vehicles: 4, fuel: 3, office: 3, events: 3, security: 2, transport: 4, lighting: 2, green: 2 },
  ministry: { it: 10, consulting: 6, security: 4, office: 4, cleaning: 4, events: 2, hvac: 2, vehicles: 1 },
  hospital: { medical: 20, cleaning: 5, food: 4, it: 3, hvac: 3, office: 2, security: 2, fuel: 1 },
  authority: { it: 5, consulting: 4, office: 2, cleaning: 2, security: 1 },
};

export function sectorFor(rng: Rng, body: PublicBody): Sector {
  const mix = SECTOR_MIX[body.kind];
  const sectors = Object.keys(mix) as Sector[];
  return rng.weighted(
    sectors,
    sectors.map((s) => mix[s] ?? 0),
  );
}

export function cpvFor(rng: Rng, sector: Sector, kind?: 'works' | 'supplies' | 'services') {
  const list = CPVS.filter((c) => c.sector === sector && (!kind || c.kind === kind));
  return rng.pick(list.length > 0 ? list : CPVS.filter((c) => c.sector === sector));
}

/** A contractor of the sector, Zipf-weighted, preferring ones based in the body's region. */
export function contractorFor(rng: Rng, pool: EntityPool, sector: Sector, body: PublicBody, large = false): Contractor {
  // Above-threshold tenders go to companies: the large ones of the sector, else any company of it.
  let list = pool.contractors.filter((c) => c.sector === sector && (!large || c.large));
  if (list.length === 0 && large) list = pool.contractors.filter((c) => c.sector === sector && c.person === null);
  if (list.length === 0) list = pool.contractors.filter((c) => c.sector === sector);
  return rng.weighted(
    list,
    list.map((c) => c.weight * (c.home.key === body.region.key ? 3 : 1)),
  );
}
