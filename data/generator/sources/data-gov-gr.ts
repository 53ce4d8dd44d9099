// data.gov.gr `GET /api/v1/query/{dataset}?date_from=…&date_to=…` bodies: bare JSON arrays, pretty-printed
// neither here nor upstream. A bare array does not name its dataset, so every file name starts with it and
// carries the query window (`mdg_emvolio_2023-01-09_2023-01-15.json`); the data_gov_gr module reads both.
// One downstream document per dataset and reference period (day or year), so `records` counts periods.
import { DAY, isoDate } from '../dates.js';
import { PLACES } from '../geo.js';
import type { OutFile } from '../output.js';
import type { Rng } from '../prng.js';
import type { World } from '../world.js';

/** Regional units with the vaccination dataset's area ids (the first digit is the old region code). */
const AREAS: [string, number][] = [
  ['ΑΙΤΩΛΟΑΚΑΡΝΑΝΙΑΣ', 701],
  ['ΑΝΑΤΟΛΙΚΗΣ ΑΤΤΙΚΗΣ', 901],
  ['ΑΧΑΪΑΣ', 702],
  ['ΒΟΙΩΤΙΑΣ', 801],
  ['ΔΥΤΙΚΗΣ ΑΤΤΙΚΗΣ', 902],
  ['ΕΒΡΟΥ', 102],
  ['ΕΥΒΟΙΑΣ', 802],
  ['ΖΑΚΥΝΘΟΥ', 601],
  ['ΗΛΕΙΑΣ', 703],
  ['ΗΜΑΘΙΑΣ', 201],
  ['ΗΡΑΚΛΕΙΟΥ', 1301],
  ['ΘΕΣΣΑΛΟΝΙΚΗΣ', 202],
  ['ΙΩΑΝΝΙΝΩΝ', 402],
  ['ΚΑΒΑΛΑΣ', 103],
  ['ΚΕΝΤΡΙΚΟΥ ΤΟΜΕΑ ΑΘΗΝΩΝ', 903],
  ['ΚΕΡΚΥΡΑΣ', 602],
  ['ΚΟΖΑΝΗΣ', 302],
  ['ΛΑΡΙΣΑΣ', 502],
  ['ΛΕΣΒΟΥ', 1101],
  ['ΜΑΓΝΗΣΙΑΣ', 503],
  ['ΜΕΣΣΗΝΙΑΣ', 1004],
  ['ΠΕΙΡΑΙΩΣ', 904],
  ['ΡΟΔΟΠΗΣ', 105],
  ['ΣΕΡΡΩΝ', 206],
  ['ΤΡΙΚΑΛΩΝ', 504],
  ['ΦΘΙΩΤΙΔΑΣ', 804],
  ['ΧΑΝΙΩΝ', 1304],
  ['ΧΙΟΥ', 1103],
];

const PORTS: [string, string][] = [
  ['PIR', 'ΠΕΙΡΑΙΑΣ'],
  ['RAF', 'ΡΑΦΗΝΑ'],
  ['LAV', 'ΛΑΥΡΙΟ'],
  ['JMK', 'ΜΥΚΟΝΟΣ'],
  ['JNX', 'ΝΑΞΟΣ'],
  ['JTR', 'ΘΗΡΑ'],
  ['JSY', 'ΣΥΡΟΣ'],
  ['PAS', 'ΠΑΡΟΣ'],
  ['HER', 'ΗΡΑΚΛΕΙΟ'],
  ['CHQ', 'ΧΑΝΙΑ'],
  ['RHO', 'ΡΟΔΟΣ'],
  ['JKH', 'ΧΙΟΣ'],
  ['MJT', 'ΜΥΤΙΛΗΝΗ'],
];

function stamp(ms: number): string {
  return isoDate(ms) + 'T00:00:00';
}

function emvolio(rng: Rng, day: number): Record<string, unknown>[] {
  return AREAS.map(([area, areaid]) => {
    const total1 = rng.int(40_000, 900_000);
    const total2 = Math.round(total1 * (0.9 + rng.next() * 0.08));
    const total3 = Math.round(total2 * (0.55 + rng.next() * 0.2));
    const d1 = rng.int(0, 12);
    const d2 = rng.int(0, 15);
    const d3 = rng.int(5, 160);
    return {
      area,
      areaid,
      dailydose1: d1,
      dailydose2: d2,
      dailydose3: d3,
      daydiff: rng.int(-60, 60),
      daytotal: d1 + d2 + d3,
      referencedate: stamp(day),
      totaldistinctpersons: total1,
      totaldose1: total1,
      totaldose2: total2,
      totaldose3: total3,
      totalvaccinations: total1 + total2 + total3,
    };
  });
}

function sailing(rng: Rng, day: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const summer = [5, 6, 7, 8].includes(new Date(day).getUTCMonth());
  for (let i = 0; i < 16; i++) {
    const [from, fromName] = rng.pick(PORTS.slice(0, 3));
    const stops = rng.sample(PORTS.slice(3), rng.int(1, 3));
    const [to, toName] = stops[stops.length - 1];
    out.push({
      arrivalport: to,
      arrivalportname: toName,
      date: stamp(day),
      departureport: from,
      departureportname: fromName,
      passengercount: rng.int(summer ? 300 : 40, summer ? 2400 : 600),
      routecode: from + stops.map(([c]) => c).join(''),
      routecodenames: [fromName, ...stops.map(([, n]) => n)].join('-'),
      vehiclecount: rng.int(summer ? 60 : 5, summer ? 420 : 120),
    });
  }
  return out;
}

const FIRE_PLACES = PLACES.filter((p) => !p.body || ['volou', 'chalkideon', 'korinthion', 'patreon', 'acharnon', 'rodou', 'chanion'].includes(p.key));

function forestFires(rng: Rng, from: number, days: number): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < 26; i++) {
    const place = rng.pick(FIRE_PLACES);
    const start = from + rng.int(0, days - 1) * DAY + rng.int(9 * 3600, 19 * 3600) * 1000;
    const end = start + rng.int(40, 900) * 60_000;
    const big = rng.chance(0.15);
    const area = (lo: number, hi: number) => Math.round((big ? rng.logUniform(lo * 20, hi * 40) : rng.logUniform(lo, hi)) * 10) / 10;
    const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19);
    rows.push({
      address: `${rng.pick(['ΘΕΣΗ ΡΑΧΗ', 'ΘΕΣΗ ΠΕΥΚΑΚΙΑ', 'ΘΕΣΗ ΚΑΜΠΟΣ', 'ΘΕΣΗ ΛΑΚΚΩΜΑ', 'ΘΕΣΗ ΑΓΙΟΣ ΓΕΩΡΓΙΟΣ', 'ΘΕΣΗ ΠΑΝΑΓΙΑ'])}`,
      agricultural_area_burned: area(0.1, 5),
      airplanes_cl215: big ? rng.int(0, 3) : 0,
      airplanes_cl415: big ? rng.int(1, 4) : rng.int(0, 1),
      airplanes_gru: 0,
      airplanes_pzl: rng.int(0, 2),
      army: big ? rng.int(0, 40) : 0,
      crop_residue_area_burned: area(0, 2),
      dumping_ground_area_burned: 0,
      end_time: stamp(end),
      firefighters: rng.int(8, big ? 260 : 45),
      fire_station: `Π.Υ. ${place.unit}`,
      fire_trucks: rng.int(2, big ? 70 : 12),
      forest_area_burned: area(0.1, 8),
      forestry: `ΔΑΣΑΡΧΕΙΟ ${place.unit}`,
      grove_area_burned: area(0, 3),
      helicopters: big ? rng.int(1, 6) : rng.int(0, 1),
      local_authorities_vehicles: rng.int(0, 6),
      location: rng.pick(place.munUnits),
      low_vegetation_area_burned: area(0.2, 12),
      machinery: rng.int(0, big ? 15 : 2),
      municipality: `ΔΗΜΟΣ ${place.gen}`,
      other_firefighters: rng.int(0, 20),
      prefecture: `ΝΟΜΟΣ ${place.unit}`,
      start_time: stamp(start),
      swamp_area_burned: 0,
      volunteers: rng.int(0, 30),
      water_tank_trucks: rng.int(0, 8),
      wildland_crew: rng.int(0, big ? 60 : 10),
      woodland_area_burned: area(0.1, 6),
    });
  }
  return rows.sort((a, b) => String(a.start_time).localeCompare(String(b.start_time)));
}

/** Distinct reference periods (days or years) in rows: one document each downstream. */
function periods(rows: Record<string, unknown>[], field: string): number {
  return new Set(rows.map((r) => String(r[field]).slice(0, 10))).size;
}

export function renderDataGovGr(_world: World, rng: Rng): OutFile[] {
  const files: OutFile[] = [];
  // `<dataset>_<date_from>_<date_to>.json`, mirroring the query parameters; yearly datasets take no dates.
  const add = (name: string, rows: Record<string, unknown>[], field: string) =>
    files.push({ path: `data_gov_gr/${name}.json`, body: JSON.stringify(rows), records: periods(rows, field) });
  const daily = (from: number, days: number, make: (day: number) => Record<string, unknown>[]) => {
    const rows: Record<string, unknown>[] = [];
    for (let i = 0; i < days; i++) rows.push(...make(from + i * DAY));
    return rows;
  };
  const range = (dataset: string, from: number, days: number) => `${dataset}_${isoDate(from)}_${isoDate(from + (days - 1) * DAY)}`;
  for (const [from, days] of [
    [Date.UTC(2023, 0, 9), 7],
    [Date.UTC(2023, 2, 13), 7],
  ] as const) {
    add(
      range('mdg_emvolio', from, days),
      daily(from, days, (d) => emvolio(rng, d)),
      'referencedate',
    );
  }
  const efet: Record<string, unknown>[] = [];
  for (let year = 2023; year <= 2025; year++) {
    const inspections = rng.int(7_500, 11_500);
    const violations = Math.round(inspections * (0.1 + rng.next() * 0.06));
    efet.push({
      year,
      inspections,
      violations,
      violating_organizations: Math.round(violations * 0.6),
      penalties: Math.round(violations * rng.int(1000, 1600) * 4) / 4,
    });
  }
  add('efet_inspections', efet, 'year');
  for (const [from, days] of [
    [Date.UTC(2024, 6, 15), 7],
    [Date.UTC(2025, 7, 11), 7],
    [Date.UTC(2026, 1, 2), 7],
  ] as const) {
    add(
      range('sailing_traffic', from, days),
      daily(from, days, (d) => sailing(rng, d)),
      'date',
    );
  }
  for (const [from, days] of [
    [Date.UTC(2024, 6, 1), 31],
    [Date.UTC(2025, 7, 1), 31],
  ] as const) {
    add(range('mcp_forest_fires', from, days), forestFires(rng, from, days), 'start_time');
  }
  const traffic: Record<string, unknown>[] = [];
  const tFrom = Date.UTC(2026, 9, 1);
  for (let i = 0; i < 14; i++) {
    const avgIn = rng.int(380, 520) * 1_000_000_000;
    traffic.push({
      avg_in: avgIn,
      avg_out: Math.round(avgIn * 0.31),
      date: stamp(tFrom + i * DAY),
      max_in: Math.round(avgIn * 1.42),
      max_out: Math.round(avgIn * 0.45),
    });
  }
  add(range('internet_traffic', tFrom, 14), traffic, 'date');
  return files;
}
