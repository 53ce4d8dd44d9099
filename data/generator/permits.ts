// RAE (ΡΑΑΕΥ) geoportal permits: renewable power stations by layer, with status, location and a small
// footprint polygon. Some permit holders are contractors of the entity pool (same company name).
import { DAY, END, START, isoDate, randomDay } from './dates.js';
import type { EntityPool } from './entities.js';
import { PLACES, regionOf, type Place } from './geo.js';
import { LATIN_BRANDS, SURNAMES, surnameGenitive, BRAND_WORDS } from './names.js';
import { zipfWeights, type Rng } from './prng.js';

export interface RaeLayer {
  name: string;
  tech: 'pv' | 'wind' | 'hydro';
  share: number;
}

export const RAE_LAYERS: RaeLayer[] = [
  { name: 'V_SDI_R_PHOTOVOLTAICS_ALL', tech: 'pv', share: 0.62 },
  { name: 'V_SDI_R_AIOLIKA_ALL', tech: 'wind', share: 0.26 },
  { name: 'V_HYDRO_GROUPED_ALL', tech: 'hydro', share: 0.12 },
];

export interface Permit {
  aa: string;
  layer: RaeLayer;
  company: string;
  thesh: string;
  municipalities: Place[];
  munUnits: string[];
  powerMw: number;
  applied: number;
  issued: number | null;
  status: string;
  /** Rings of a MultiPolygon in EPSG:4326 (lon, lat). */
  polygons: number[][][][];
  decisionAda: string | null;
}

const TOPONYMS = [
  'ΜΥΛΟΒΟΥΝΙ',
  'ΠΡΟΦΗΤΗΣ ΗΛΙΑΣ',
  'ΑΓΙΟΣ ΓΕΩΡΓΙΟΣ',
  'ΡΑΧΗ',
  'ΒΡΥΣΟΥΛΑ',
  'ΚΑΜΠΟΣ',
  'ΣΤΑΥΡΟΣ',
  'ΜΑΥΡΟΒΟΥΝΙ',
  'ΞΕΡΟΒΟΥΝΙ',
  'ΠΑΛΙΟΚΑΣΤΡΟ',
  'ΑΓΙΑ ΠΑΡΑΣΚΕΥΗ',
  'ΛΑΚΚΩΜΑ',
  'ΨΗΛΗ ΡΑΧΗ',
  'ΑΝΕΜΟΜΥΛΟΣ',
  'ΚΟΚΚΙΝΟΒΡΑΧΟΣ',
  'ΠΕΥΚΑΚΙΑ',
  'ΜΕΓΑΛΗ ΛΑΚΚΑ',
  'ΑΛΩΝΙΑ',
  'ΤΣΟΥΚΑ',
  'ΚΟΡΥΦΗ',
  'ΣΚΑΛΩΜΑ',
  'ΜΑΡΜΑΡΑ',
  'ΚΑΣΤΡΙ',
  'ΠΛΑΤΑΝΟΣ',
  'ΛΙΒΑΔΙ',
  'ΚΡΥΟΝΕΡΙ',
  'ΒΙΓΛΑ',
  'ΑΓΙΟΣ ΝΙΚΟΛΑΟΣ',
  'ΚΑΛΥΒΙΑ',
  'ΠΑΝΑΓΙΑ',
  'ΔΙΑΣΕΛΟ',
  'ΓΚΡΕΜΟΣ',
  'ΧΩΡΑΦΙΑ',
];

const PV_STATUSES: [string, number][] = [
  ['ΒΕΒΑΙΩΣΗ ΠΑΡΑΓΩΓΟΥ', 30],
  ['ΑΔΕΙΑ ΠΑΡΑΓΩΓΗΣ', 12],
  ['ΑΔΕΙΑ ΕΓΚΑΤΑΣΤΑΣΗΣ', 14],
  ['ΑΔΕΙΑ ΛΕΙΤΟΥΡΓΙΑΣ', 16],
  ['ΑΙΤΗΣΗ ΣΕ ΑΞΙΟΛΟΓΗΣΗ', 18],
  ['ΑΠΟΡΡΙΠΤΙΚΗ ΑΠΟΦΑΣΗ', 7],
  ['ΑΝΑΚΛΗΣΗ ΑΔΕΙΑΣ', 3],
];

function companies(rng: Rng, pool: EntityPool): string[] {
  const out = new Set<string>();
  while (out.size < 70) {
    const style = rng.int(0, 5);
    const brand = rng.pick(BRAND_WORDS);
    if (style === 0) out.add(`ΗΛΙΑΚΟ ΠΑΡΚΟ ${rng.pick(TOPONYMS)} ΜΟΝΟΠΡΟΣΩΠΗ ΑΕ`);
    else if (style === 1) out.add(`${brand} ΑΝΑΝΕΩΣΙΜΕΣ ΠΗΓΕΣ ΕΝΕΡΓΕΙΑΣ ΑΕ`);
    else if (style === 2) out.add(`ΑΙΟΛΙΚΗ ${rng.pick(TOPONYMS)} ΑΕ`);
    else if (style === 3) out.add(`${surnameGenitive(rng.pick(SURNAMES))} ENERGY ΙΚΕ`);
    else if (style === 4) out.add(`SOLAR ${rng.pick(LATIN_BRANDS)} ΜΟΝΟΠΡΟΣΩΠΗ ΙΚΕ`);
    else out.add(`ΦΩΤΟΒΟΛΤΑΪΚΑ ΠΑΡΚΑ ${brand} ΑΕ`);
  }
  // A few construction and electrical contractors of the pool also hold permits.
  for (const c of pool.contractors.filter((x) => x.person === null && (x.sector === 'construction' || x.sector === 'lighting')).slice(0, 6)) {
    out.add(c.name);
  }
  return [...out];
}

/** Keeps a solar-park company off wind permits and the other way round. */
function techFit(name: string, tech: RaeLayer['tech']): number {
  const solar = /ΗΛΙΑΚΟ|ΦΩΤΟΒΟΛΤΑΪΚΑ|SOLAR/.test(name);
  const wind = /ΑΙΟΛΙΚΗ/.test(name);
  if (tech === 'pv') return wind ? 0 : 1;
  if (tech === 'wind') return solar ? 0 : 1;
  return solar || wind ? 0 : 1;
}

function footprint(rng: Rng, lon: number, lat: number, mw: number, tech: RaeLayer['tech']): number[][][][] {
  const cx = lon + (rng.next() - 0.5) * 0.3;
  const cy = lat + (rng.next() - 0.5) * 0.25;
  const polys = tech === 'wind' ? rng.int(1, 3) : 1;
  const out: number[][][][] = [];
  for (let p = 0; p < polys; p++) {
    const hectares = tech === 'pv' ? Math.max(0.5, mw * 1.4) : tech === 'wind' ? 2 + rng.next() * 3 : 0.3 + rng.next();
    const side = Math.sqrt(hectares * 10_000); // metres
    const dy = side / 111_320;
    const dx = side / (111_320 * Math.cos((cy * Math.PI) / 180));
    const ox = cx + p * dx * 2.5;
    const jitter = () => (rng.next() - 0.5) * 0.15;
    const r = (v: number) => Math.round(v * 1e6) / 1e6;
    const ring = [
      [r(ox), r(cy)],
      [r(ox + dx * (1 + jitter())), r(cy + dy * jitter())],
      [r(ox + dx * (1 + jitter())), r(cy + dy * (1 + jitter()))],
      [r(ox + dx * (0.5 + jitter())), r(cy + dy * (1.2 + jitter()))],
      [r(ox + dx * jitter()), r(cy + dy * (1 + jitter()))],
    ];
    ring.push(ring[0]);
    out.push([ring]);
  }
  return out;
}

export function buildPermits(rng: Rng, pool: EntityPool, n: number): Permit[] {
  const names = companies(rng, pool);
  const nameWeights = zipfWeights(names.length, 0.8);
  const places = PLACES.filter((p) => !['athinaion', 'peiraia', 'amarousiou', 'peristeriou', 'glyfadas', 'kalamarias', 'thessalonikis'].includes(p.key));
  const placeWeights = places.map((p) => (p.body ? 0.6 : 3));
  const taken = new Set<string>();
  const out: Permit[] = [];
  for (let i = 0; i < n; i++) {
    const layer = rng.weighted(
      RAE_LAYERS,
      RAE_LAYERS.map((l) => l.share),
    );
    const place = rng.weighted(places, placeWeights);
    const neighbours = places.filter((p) => p.region === place.region && p.key !== place.key);
    const munis = neighbours.length && rng.chance(0.15) ? [place, rng.pick(neighbours)] : [place];
    let aa: string;
    do aa = `Γ-${String(rng.int(1000, 19999)).padStart(5, '0')}`;
    while (taken.has(aa));
    taken.add(aa);
    const mw =
      layer.tech === 'pv'
        ? rng.chance(0.5)
          ? rng.pick([0.999, 4.99, 9.99, 19.992, 14.99])
          : Math.round(rng.logUniform(0.5, 180) * 1000) / 1000
        : layer.tech === 'wind'
          ? Math.round(rng.logUniform(6, 120) * 1000) / 1000
          : Math.round(rng.logUniform(0.3, 15) * 1000) / 1000;
    const statuses = layer.tech === 'pv' ? PV_STATUSES : PV_STATUSES.filter(([s]) => s !== 'ΑΝΑΚΛΗΣΗ ΑΔΕΙΑΣ');
    const status = rng.weighted(
      statuses.map(([s]) => s),
      statuses.map(([, w]) => w),
    );
    const applied = randomDay(rng, START, END - 10 * DAY);
    let issued: number | null = status === 'ΑΙΤΗΣΗ ΣΕ ΑΞΙΟΛΟΓΗΣΗ' ? null : applied + rng.int(45, 420) * DAY;
    if (issued !== null && issued > END) issued = END - rng.int(1, 20) * DAY;
    if (issued !== null && issued < applied) issued = applied + DAY;
    out.push({
      aa,
      layer,
      company: rng.weighted(
        names,
        names.map((nm, k) => nameWeights[k] * techFit(nm, layer.tech)),
      ),
      thesh: rng.pick(TOPONYMS),
      municipalities: munis,
      munUnits: munis.map((m) => rng.pick(m.munUnits)),
      powerMw: mw,
      applied,
      issued,
      status,
      polygons: footprint(rng, place.lon, place.lat, mw, layer.tech),
      decisionAda: null,
    });
  }
  return out;
}

export function permitProperties(p: Permit): Record<string, unknown> {
  const region = regionOf(p.municipalities[0].region);
  return {
    aa: p.aa,
    company: p.company,
    thesh: p.thesh,
    kal_dhmos: p.municipalities.map((m) => m.gen).join(','),
    kal_dhm_enothta: p.munUnits.join(','),
    kal_perif_enothta: [...new Set(p.municipalities.map((m) => m.unit))].join(','),
    kal_perifereia: region.gen,
    power_mw: p.powerMw,
    imerominia: isoDate(p.applied),
    imerominia_ekdosis_adeias: p.issued === null ? null : isoDate(p.issued),
    katastash_descr: p.status,
  };
}
