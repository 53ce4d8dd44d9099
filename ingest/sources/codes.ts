// Codes the sources share: the sector a CPV division implies (the codes themselves:
// lib/vocabulary/cpv.ts), NUTS regions, ISO country and language codes.

// CPV division (first two digits) → a coarse sector slug. The alert filter `sectors` matches these.
const SECTOR_BY_DIVISION: Record<string, string> = {
  '03': 'agriculture_food',
  '15': 'agriculture_food',
  '16': 'agriculture_food',
  '77': 'agriculture_food',
  '09': 'energy',
  '65': 'energy',
  '76': 'energy',
  '14': 'industry',
  '18': 'industry',
  '19': 'industry',
  '22': 'industry',
  '24': 'industry',
  '31': 'industry',
  '38': 'industry',
  '39': 'industry',
  '41': 'industry',
  '42': 'industry',
  '43': 'industry',
  '30': 'it',
  '48': 'it',
  '72': 'it',
  '32': 'telecommunications',
  '64': 'telecommunications',
  '33': 'health',
  '85': 'health',
  '34': 'transport',
  '60': 'transport',
  '63': 'transport',
  '35': 'defence_security',
  '37': 'culture_sport',
  '92': 'culture_sport',
  '44': 'construction',
  '45': 'construction',
  '50': 'maintenance',
  '51': 'maintenance',
  '55': 'hospitality',
  '66': 'finance',
  '70': 'real_estate',
  '71': 'engineering',
  '73': 'research',
  '75': 'public_administration',
  '79': 'business_services',
  '80': 'education',
  '90': 'environment',
  '98': 'other_services',
};

/** The sector of the first CPV code whose division is known, or null. */
export function sectorFromCpv(cpvs: readonly string[]): string | null {
  for (const c of cpvs) {
    const s = SECTOR_BY_DIVISION[c.slice(0, 2)];
    if (s) return s;
  }
  return null;
}

/** A NUTS code (`EL303`, `EL`): country letters and up to three more. */
export function isNutsCode(v: string): boolean {
  return /^[A-Z]{2}[0-9A-Z]{0,3}$/.test(v);
}

const ISO3_TO_ISO2: Record<string, string> = {
  AUT: 'AT',
  BEL: 'BE',
  BGR: 'BG',
  HRV: 'HR',
  CYP: 'CY',
  CZE: 'CZ',
  DNK: 'DK',
  EST: 'EE',
  FIN: 'FI',
  FRA: 'FR',
  DEU: 'DE',
  GRC: 'GR',
  HUN: 'HU',
  IRL: 'IE',
  ITA: 'IT',
  LVA: 'LV',
  LTU: 'LT',
  LUX: 'LU',
  MLT: 'MT',
  NLD: 'NL',
  POL: 'PL',
  PRT: 'PT',
  ROU: 'RO',
  SVK: 'SK',
  SVN: 'SI',
  ESP: 'ES',
  SWE: 'SE',
  ISL: 'IS',
  LIE: 'LI',
  NOR: 'NO',
  CHE: 'CH',
  GBR: 'GB',
  ALB: 'AL',
  MKD: 'MK',
  MNE: 'ME',
  SRB: 'RS',
  TUR: 'TR',
  UKR: 'UA',
  MDA: 'MD',
  BIH: 'BA',
  USA: 'US',
};

/** ISO 3166 alpha-3 (`GRC`) → alpha-2 (`GR`), or null when not in the table. */
export function iso3ToIso2(v: unknown): string | null {
  return typeof v === 'string' ? (ISO3_TO_ISO2[v.trim().toUpperCase()] ?? null) : null;
}

const LANG_639_2_TO_1: Record<string, string> = {
  bul: 'bg',
  ces: 'cs',
  dan: 'da',
  deu: 'de',
  ell: 'el',
  eng: 'en',
  est: 'et',
  fin: 'fi',
  fra: 'fr',
  gle: 'ga',
  hrv: 'hr',
  hun: 'hu',
  ita: 'it',
  lav: 'lv',
  lit: 'lt',
  mlt: 'mt',
  nld: 'nl',
  pol: 'pl',
  por: 'pt',
  ron: 'ro',
  slk: 'sk',
  slv: 'sl',
  spa: 'es',
  swe: 'sv',
  nor: 'no',
  isl: 'is',
};

/** ISO 639-2 (`ell`, `ENG`) → ISO 639-1 (`el`, `en`), or null. */
export function lang3to1(v: unknown): string | null {
  return typeof v === 'string' ? (LANG_639_2_TO_1[v.trim().toLowerCase()] ?? null) : null;
}
