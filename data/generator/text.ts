// Greek subject lines and small text helpers, in the styles the sources use.
import type { Cpv } from './cpv.js';
import type { PublicBody } from './entities.js';
import type { Rng } from './prng.js';

/** `ΓΙΑ ΤΙΣ ΑΝΑΓΚΕΣ ΤΟΥ ΔΗΜΟΥ ΛΑΡΙΣΑΙΩΝ` and similar: who the purchase is for. */
export function forBody(body: PublicBody): string {
  switch (body.kind) {
    case 'municipality':
      return `ΓΙΑ ΤΙΣ ΑΝΑΓΚΕΣ ΤΟΥ ΔΗΜΟΥ ${body.place.gen}`;
    case 'region':
      return `ΓΙΑ ΤΙΣ ΑΝΑΓΚΕΣ ΤΗΣ ΠΕΡΙΦΕΡΕΙΑΚΗΣ ΕΝΟΤΗΤΑΣ ${body.place.unit}`;
    case 'hospital':
      return 'ΓΙΑ ΤΙΣ ΑΝΑΓΚΕΣ ΤΟΥ ΝΟΣΟΚΟΜΕΙΟΥ';
    case 'ministry':
      return 'ΓΙΑ ΤΙΣ ΑΝΑΓΚΕΣ ΤΩΝ ΚΕΝΤΡΙΚΩΝ ΥΠΗΡΕΣΙΩΝ';
    default:
      return 'ΓΙΑ ΤΙΣ ΑΝΑΓΚΕΣ ΤΗΣ ΥΠΗΡΕΣΙΑΣ';
  }
}

/** Where works are carried out: `ΣΤΗ ΔΗΜΟΤΙΚΗ ΕΝΟΤΗΤΑ ΓΙΑΝΝΟΥΛΗΣ`. */
export function workPlace(rng: Rng, body: PublicBody): string {
  if (body.kind === 'municipality') return `ΣΤΗ ΔΗΜΟΤΙΚΗ ΕΝΟΤΗΤΑ ${rng.pick(body.place.munUnits)}`;
  if (body.kind === 'region') return `ΤΗΣ ΠΕΡΙΦΕΡΕΙΑΚΗΣ ΕΝΟΤΗΤΑΣ ${body.place.unit}`;
  return '';
}

export function awardSubject(rng: Rng, cpv: Cpv, phrase: [string, string], body: PublicBody): string {
  const [nom, gen] = phrase;
  if (cpv.kind === 'supplies') {
    return rng.pick([
      `ΑΝΑΘΕΣΗ ΠΡΟΜΗΘΕΙΑΣ ${gen}`,
      `ΑΝΑΘΕΣΗ ΠΡΟΜΗΘΕΙΑΣ ${gen} ${forBody(body)}`,
      `ΑΠΕΥΘΕΙΑΣ ΑΝΑΘΕΣΗ ΓΙΑ ΤΗΝ ΠΡΟΜΗΘΕΙΑ ${gen}`,
      `ΑΠΟΦΑΣΗ ΑΝΑΘΕΣΗΣ ΠΡΟΜΗΘΕΙΑΣ ${gen}`,
    ]);
  }
  if (cpv.kind === 'services') {
    return rng.pick([`ΑΝΑΘΕΣΗ ΥΠΗΡΕΣΙΩΝ ${gen}`, `ΑΠΕΥΘΕΙΑΣ ΑΝΑΘΕΣΗ ΤΗΣ ΥΠΗΡΕΣΙΑΣ «${nom}»`, `ΑΝΑΘΕΣΗ ΕΡΓΑΣΙΑΣ ${gen} ${forBody(body)}`]);
  }
  const where = workPlace(rng, body);
  return rng.pick([`ΑΠΕΥΘΕΙΑΣ ΑΝΑΘΕΣΗ ΕΡΓΑΣΙΩΝ ${gen} ${where}`.trim(), `ΑΝΑΘΕΣΗ ΤΟΥ ΕΡΓΟΥ «${nom} ${where}»`.replace(' »', '»')]);
}

/** Accusative-ish object for "ΕΓΚΡΙΣΗ ΔΑΠΑΝΗΣ ΓΙΑ …": `ΣΥΝΤΗΡΗΣΗ ΟΔΟΦΩΤΙΣΜΟΥ`, `ΠΡΟΜΗΘΕΙΑ ΕΙΔΩΝ …`. */
export function expenseSubject(rng: Rng, phrase: [string, string]): string {
  const [nom] = phrase;
  return rng.pick([`ΕΓΚΡΙΣΗ ΔΑΠΑΝΗΣ ΓΙΑ ${nom}`, `ΕΓΚΡΙΣΗ ΔΑΠΑΝΗΣ ΚΑΙ ΔΙΑΘΕΣΗ ΠΙΣΤΩΣΗΣ ΓΙΑ ${nom}`, `Έγκριση δαπάνης: ${nom}`]);
}

export function commitmentSubject(rng: Rng, phrase: [string, string]): string {
  const [nom] = phrase;
  return rng.pick([`ΑΝΑΛΗΨΗ ΥΠΟΧΡΕΩΣΗΣ ΓΙΑ ${nom}`, `ΑΝΑΛΗΨΗ ΓΙΑ ${nom}`, `ΑΠΟΦΑΣΗ ΑΝΑΛΗΨΗΣ ΥΠΟΧΡΕΩΣΗΣ: ${nom}`]);
}

/** `104.354,00` — Greek thousands and decimal separators. */
export function euroGreek(cents: number): string {
  const whole = Math.floor(cents / 100);
  const frac = String(cents % 100).padStart(2, '0');
  return whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, '.') + ',' + frac;
}

export function paymentSubject(rng: Rng, phrase: [string, string], payee: string, cents: number, year: number): string {
  const [nom] = phrase;
  return rng.pick([
    `ΠΛΗΡΩΜΗ ΠΟΣΟΥ ${euroGreek(cents)}€ ΣΤΟΝ/ΣΤΗΝ ${payee} ΓΙΑ ${nom}`,
    `ΧΕΠ ${rng.int(1, 1800)}/${year}`,
    `ΕΞΟΦΛΗΣΗ ΤΙΜΟΛΟΓΙΟΥ ΓΙΑ ${nom}`,
    `ΟΡΙΣΤΙΚΟΠΟΙΗΣΗ ΠΛΗΡΩΜΗΣ: ${nom}`,
  ]);
}

export const NON_PROCUREMENT_COMMITMENTS = [
  'ΟΔΟΙΠΟΡΙΚΑ ΕΞΟΔΑ ΜΕΤΑΚΙΝΗΣΗΣ ΥΠΑΛΛΗΛΩΝ',
  'ΠΛΗΡΩΜΗ ΛΟΓΑΡΙΑΣΜΩΝ ΗΛΕΚΤΡΙΚΟΥ ΡΕΥΜΑΤΟΣ',
  'ΠΛΗΡΩΜΗ ΛΟΓΑΡΙΑΣΜΩΝ ΥΔΡΕΥΣΗΣ',
  'ΠΛΗΡΩΜΗ ΤΗΛΕΦΩΝΙΚΩΝ ΤΕΛΩΝ',
  'ΑΠΟΖΗΜΙΩΣΗ ΥΠΕΡΩΡΙΑΚΗΣ ΑΠΑΣΧΟΛΗΣΗΣ ΠΡΟΣΩΠΙΚΟΥ',
  'ΕΞΟΔΑ ΔΗΜΟΣΙΕΥΣΗΣ ΠΡΟΚΗΡΥΞΕΩΝ',
  'ΑΠΟΔΟΣΗ ΚΡΑΤΗΣΕΩΝ ΥΠΕΡ ΤΡΙΤΩΝ',
  'ΣΥΝΔΡΟΜΗ ΣΕ ΗΛΕΚΤΡΟΝΙΚΗ ΝΟΜΙΚΗ ΒΑΣΗ',
  'ΕΠΙΧΟΡΗΓΗΣΗ ΣΧΟΛΙΚΩΝ ΕΠΙΤΡΟΠΩΝ',
  'ΤΕΛΗ ΚΥΚΛΟΦΟΡΙΑΣ ΟΧΗΜΑΤΩΝ',
];

export const OTHER_ACTS = [
  'ΕΓΚΡΙΣΗ ΥΠΕΡΩΡΙΑΚΗΣ ΑΠΑΣΧΟΛΗΣΗΣ ΠΡΟΣΩΠΙΚΟΥ',
  'ΣΥΓΚΡΟΤΗΣΗ ΕΠΙΤΡΟΠΗΣ ΠΑΡΑΛΑΒΗΣ ΥΛΙΚΩΝ ΚΑΙ ΥΠΗΡΕΣΙΩΝ',
  'ΟΡΙΣΜΟΣ ΑΝΤΙΔΗΜΑΡΧΩΝ ΚΑΙ ΜΕΤΑΒΙΒΑΣΗ ΑΡΜΟΔΙΟΤΗΤΩΝ',
  'ΧΟΡΗΓΗΣΗ ΑΔΕΙΑΣ ΧΡΗΣΗΣ ΚΟΙΝΟΧΡΗΣΤΟΥ ΧΩΡΟΥ',
  'ΕΓΚΡΙΣΗ ΜΕΤΑΚΙΝΗΣΗΣ ΥΠΑΛΛΗΛΩΝ ΕΚΤΟΣ ΕΔΡΑΣ',
  'ΣΥΓΚΡΟΤΗΣΗ ΕΠΙΤΡΟΠΗΣ ΔΙΑΓΩΝΙΣΜΟΥ',
  'ΑΝΑΘΕΣΗ ΚΑΘΗΚΟΝΤΩΝ ΥΠΕΥΘΥΝΟΥ ΠΡΟΣΤΑΣΙΑΣ ΔΕΔΟΜΕΝΩΝ',
  'ΕΓΚΡΙΣΗ ΠΡΟΓΡΑΜΜΑΤΟΣ ΠΟΛΙΤΙΣΤΙΚΩΝ ΕΚΔΗΛΩΣΕΩΝ',
];

const GREEKLISH: Record<string, string> = {
  α: 'a',
  β: 'v',
  γ: 'g',
  δ: 'd',
  ε: 'e',
  ζ: 'z',
  η: 'i',
  θ: 'th',
  ι: 'i',
  κ: 'k',
  λ: 'l',
  μ: 'm',
  ν: 'n',
  ξ: 'x',
  ο: 'o',
  π: 'p',
  ρ: 'r',
  σ: 's',
  ς: 's',
  τ: 't',
  υ: 'y',
  φ: 'f',
  χ: 'ch',
  ψ: 'ps',
  ω: 'o',
};

/** `Δασικός χάρτης Π.Ε. Λάρισας` → `dasikos-chartis-p-e-larisas`, the way CKAN slugs are made. */
export function slugify(text: string): string {
  const folded = text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  let out = '';
  for (const ch of folded) out += GREEKLISH[ch] ?? (/[a-z0-9]/.test(ch) ? ch : '-');
  return out.replace(/-+/g, '-').replace(/^-|-$/g, '');
}
