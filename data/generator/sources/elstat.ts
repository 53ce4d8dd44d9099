// ELSTAT has no API; its time series come through the Eurostat dissemination API for geo=EL, which answers
// in JSON-stat 2.0: {"version":"2.0","class":"dataset","label","source":"ESTAT","updated","value":{…},
// "status":{…},"id":[…],"size":[…],"dimension":{…},"extension":{…}}. Values are illustrative, near the
// published orders of magnitude.
import { json, seq, type OutFile } from '../output.js';
import type { Rng } from '../prng.js';
import type { World } from '../world.js';

interface Dim {
  id: string;
  label: string;
  code: string;
  codeLabel: string;
}

interface Series {
  file: string;
  dataset: string;
  label: string;
  updated: string;
  dims: Dim[];
  periods: string[];
  values: (number | null)[];
  /** Index → status flag (`p` provisional, `e` estimated). */
  status: Record<number, string>;
}

function months(from: [number, number], to: [number, number]): string[] {
  const out: string[] = [];
  for (let y = from[0], m = from[1]; y < to[0] || (y === to[0] && m <= to[1]); m === 12 ? (y++, (m = 1)) : m++) {
    out.push(`${y}-${String(m).padStart(2, '0')}`);
  }
  return out;
}

const GEO: Dim = { id: 'geo', label: 'Geopolitical entity (reporting)', code: 'EL', codeLabel: 'Greece' };
const FREQ_A: Dim = { id: 'freq', label: 'Time frequency', code: 'A', codeLabel: 'Annual' };
const FREQ_M: Dim = { id: 'freq', label: 'Time frequency', code: 'M', codeLabel: 'Monthly' };

function round(v: number, d: number): number {
  const f = 10 ** d;
  return Math.round(v * f) / f;
}

function series(rng: Rng): Series[] {
  const years = ['2014', '2015', '2016', '2017', '2018', '2019', '2020', '2021', '2022', '2023', '2024', '2025'];
  const gdp = [178_656.1, 177_258.4, 176_487.9, 180_218.4, 184_713.8, 187_456.0, 166_211.5, 181_675.0, 207_029.8, 220_318.6, 231_004.0, 240_552.7];
  const growth = [0.5, -0.2, -0.5, 1.1, 1.7, 1.9, -9.3, 8.7, 5.7, 2.3, 2.3, 2.1];
  const m1 = months([2023, 1], [2026, 9]);
  const unemp = m1.map((_, i) => round(11.6 - i * 0.07 + rng.normal(0, 0.25), 1));
  const youth = m1.map((_, i) => round(26.5 - i * 0.2 + rng.normal(0, 1.2), 1));
  const m2 = months([2023, 1], [2026, 10]);
  const hicp = m2.map((_, i) => round(Math.max(0.8, 7.3 * Math.exp(-i / 7) + 2.3 + rng.normal(0, 0.35)), 1));
  const food = m2.map((_, i) => round(Math.max(0.5, 14.5 * Math.exp(-i / 9) + 2.6 + rng.normal(0, 0.6)), 1));
  const m3 = months([2023, 1], [2026, 8]);
  const season = [0.09, 0.1, 0.17, 0.38, 0.78, 1.0, 1.12, 1.18, 0.92, 0.55, 0.15, 0.11];
  const nights = m3.map((p) =>
    Math.round(9_800_000 * season[Number(p.slice(5)) - 1] * (1 + (Number(p.slice(0, 4)) - 2023) * 0.04) * (1 + rng.normal(0, 0.03))),
  );
  const foreign = nights.map((n, i) => Math.round(n * (0.55 + season[Number(m3[i].slice(5)) - 1] * 0.25)));
  const unit = (code: string, codeLabel: string): Dim => ({ id: 'unit', label: 'Unit of measure', code, codeLabel });
  const last = (arr: unknown[], k: number): Record<number, string> => Object.fromEntries(Array.from({ length: k }, (_, j) => [arr.length - 1 - j, 'p']));
  return [
    {
      file: 'nama_10_gdp-B1GQ-CP_MEUR',
      dataset: 'NAMA_10_GDP',
      label: 'Gross domestic product (GDP) and main components (output, expenditure and income)',
      updated: '2026-10-22T23:00:00+0200',
      dims: [
        FREQ_A,
        unit('CP_MEUR', 'Current prices, million euro'),
        { id: 'na_item', label: 'National accounts indicator (ESA 2010)', code: 'B1GQ', codeLabel: 'Gross domestic product at market prices' },
        GEO,
      ],
      periods: years,
      values: gdp,
      status: last(years, 2),
    },
    {
      file: 'nama_10_gdp-B1GQ-CLV_PCH_PRE',
      dataset: 'NAMA_10_GDP',
      label: 'Gross domestic product (GDP) and main components (output, expenditure and income)',
      updated: '2026-10-22T23:00:00+0200',
      dims: [
        FREQ_A,
        unit('CLV_PCH_PRE', 'Chain linked volumes, percentage change on previous period'),
        { id: 'na_item', label: 'National accounts indicator (ESA 2010)', code: 'B1GQ', codeLabel: 'Gross domestic product at market prices' },
        GEO,
      ],
      periods: years,
      values: growth,
      status: last(years, 2),
    },
    {
      file: 'une_rt_m-TOTAL',
      dataset: 'UNE_RT_M',
      label: 'Unemployment by sex and age – monthly data',
      updated: '2026-10-30T23:00:00+0100',
      dims: [
        FREQ_M,
        { id: 's_adj', label: 'Seasonal adjustment', code: 'SA', codeLabel: 'Seasonally adjusted data, not calendar adjusted data' },
        { id: 'age', label: 'Age class', code: 'TOTAL', codeLabel: 'Total' },
        unit('PC_ACT', 'Percentage of population in the labour force'),
        { id: 'sex', label: 'Sex', code: 'T', codeLabel: 'Total' },
        GEO,
      ],
      periods: m1,
      values: unemp,
      status: {},
    },
    {
      file: 'une_rt_m-Y_LT25',
      dataset: 'UNE_RT_M',
      label: 'Unemployment by sex and age – monthly data',
      updated: '2026-10-30T23:00:00+0100',
      dims: [
        FREQ_M,
        { id: 's_adj', label: 'Seasonal adjustment', code: 'SA', codeLabel: 'Seasonally adjusted data, not calendar adjusted data' },
        { id: 'age', label: 'Age class', code: 'Y_LT25', codeLabel: 'Less than 25 years' },
        unit('PC_ACT', 'Percentage of population in the labour force'),
        { id: 'sex', label: 'Sex', code: 'T', codeLabel: 'Total' },
        GEO,
      ],
      periods: m1,
      values: youth,
      status: {},
    },
    {
      file: 'prc_hicp_manr-CP00',
      dataset: 'PRC_HICP_MANR',
      label: 'HICP - monthly data (annual rate of change)',
      updated: '2026-11-18T11:00:00+0100',
      dims: [
        FREQ_M,
        unit('RCH_A', 'Annual rate of change'),
        { id: 'coicop', label: 'Classification of individual consumption by purpose (COICOP)', code: 'CP00', codeLabel: 'All-items HICP' },
        GEO,
      ],
      periods: m2,
      values: hicp,
      status: last(m2, 1),
    },
    {
      file: 'prc_hicp_manr-CP01',
      dataset: 'PRC_HICP_MANR',
      label: 'HICP - monthly data (annual rate of change)',
      updated: '2026-11-18T11:00:00+0100',
      dims: [
        FREQ_M,
        unit('RCH_A', 'Annual rate of change'),
        { id: 'coicop', label: 'Classification of individual consumption by purpose (COICOP)', code: 'CP01', codeLabel: 'Food and non-alcoholic beverages' },
        GEO,
      ],
      periods: m2,
      values: food,
      status: last(m2, 1),
    },
    {
      file: 'tour_occ_nim-TOTAL',
      dataset: 'TOUR_OCC_NIM',
      label: 'Nights spent at tourist accommodation establishments - monthly data',
      updated: '2026-11-10T23:00:00+0100',
      dims: [
        FREQ_M,
        { id: 'c_resid', label: 'Country of residence', code: 'TOTAL', codeLabel: 'Total' },
        unit('NR', 'Number'),
        {
          id: 'nace_r2',
          label: 'Statistical classification of economic activities in the European Community (NACE Rev. 2)',
          code: 'I551-I553',
          codeLabel: 'Hotels; holiday and other short-stay accommodation; camping grounds, recreational vehicle parks and trailer parks',
        },
        GEO,
      ],
      periods: m3,
      values: nights,
      status: last(m3, 2),
    },
    {
      file: 'tour_occ_nim-FOR',
      dataset: 'TOUR_OCC_NIM',
      label: 'Nights spent at tourist accommodation establishments - monthly data',
      updated: '2026-11-10T23:00:00+0100',
      dims: [
        FREQ_M,
        { id: 'c_resid', label: 'Country of residence', code: 'FOR', codeLabel: 'Foreign country' },
        unit('NR', 'Number'),
        {
          id: 'nace_r2',
          label: 'Statistical classification of economic activities in the European Community (NACE Rev. 2)',
          code: 'I551-I553',
          codeLabel: 'Hotels; holiday and other short-stay accommodation; camping grounds, recreational vehicle parks and trailer parks',
        },
        GEO,
      ],
      periods: m3,
      values: foreign,
      status: last(m3, 2),
    },
  ];
}

function render(s: Series): Record<string, unknown> {
  const dimension: Record<string, unknown> = {};
  for (const d of s.dims) dimension[d.id] = { label: d.label, category: { index: { [d.code]: 0 }, label: { [d.code]: d.codeLabel } } };
  dimension.time = {
    label: 'Time',
    category: {
      index: Object.fromEntries(s.periods.map((p, i) => [p, i])),
      label: Object.fromEntries(s.periods.map((p) => [p, p])),
    },
  };
  const value: Record<string, number> = {};
  s.values.forEach((v, i) => {
    if (v !== null) value[String(i)] = v;
  });
  const status: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.status)) status[k] = v;
  return {
    version: '2.0',
    class: 'dataset',
    label: s.label,
    source: 'ESTAT',
    updated: s.updated,
    value,
    status,
    id: [...s.dims.map((d) => d.id), 'time'],
    size: [...s.dims.map(() => 1), s.periods.length],
    dimension,
    extension: {
      lang: 'EN',
      id: s.dataset,
      agencyId: 'ESTAT',
      version: '1.0',
      datastructure: { id: s.dataset, agencyId: 'ESTAT', version: '3.0' },
      annotation: [
        { type: 'OBS_COUNT', title: String(Object.keys(value).length) },
        { type: 'OBS_PERIOD_OVERALL_OLDEST', title: s.periods[0] },
        { type: 'OBS_PERIOD_OVERALL_LATEST', title: s.periods[s.periods.length - 1] },
        { type: 'UPDATE_DATA', date: s.updated },
      ],
      'positions-with-no-data': Object.fromEntries([...s.dims.map((d) => [d.id, []]), ['time', []]]),
    },
  };
}

export function renderElstat(_world: World, rng: Rng): OutFile[] {
  return series(rng).map((s, i) => ({ path: `elstat/${seq(i + 1)}-${s.file}.json`, body: json(render(s)), records: 1 }));
}
