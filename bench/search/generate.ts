// A seeded generator of synthetic procurement documents for the search benchmarks, shaped like the corpus
// measured in docs/machine-limits.md §3: ~2,500 ranked terms drawn Zipf (s = 1) — Greek procurement nouns
// with their inflections, adjective stems × endings, verbs and function words, English tender words,
// municipality names, numbers and CPV-like codes; titles of 8–12 words, 30% of them in unaccented
// capitals; bodies of 70–90 words with a unique ΑΔΑ code, a protocol number and a contractor surname
// (735 synthetic surnames, Zipf). Document i depends only on (seed, i), so any range can be generated
// on its own (one source's share for a rebuild) and the same (n, seed) always gives the same corpus.
import { mulberry32 } from '../../data/generator/prng.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';

// ------------------------------------------------------------------------------------------ vocabulary

const FUNCTION_WORDS = (
  'και της του για την των με στο σε από το η ο οι τα τον στην στη στις στους που ως κατά μετά ' +
  'προς έως επί ή δεν να θα είναι ότι αυτό όπως χωρίς μέσω εντός λόγω ένα μία όλων μεταξύ σύμφωνα'
).split(' ');

const NOUNS = `προμήθεια προμήθειας προμήθειες προμηθειών σύμβαση σύμβασης συμβάσεις συμβάσεων δήμος δήμου δήμο δήμων
απόφαση απόφασης αποφάσεις αποφάσεων έργο έργου έργα έργων ανάθεση ανάθεσης αναθέσεις αναθέσεων διαγωνισμός διαγωνισμού
διαγωνισμό διαγωνισμών προϋπολογισμός προϋπολογισμού προϋπολογισμό δαπάνη δαπάνης δαπάνες δαπανών υπηρεσία υπηρεσίας
υπηρεσίες υπηρεσιών παροχή παροχής μελέτη μελέτης μελέτες μελετών εργασία εργασίας εργασίες εργασιών συντήρηση
συντήρησης κατασκευή κατασκευής αναβάθμιση αναβάθμισης ανάδοχος αναδόχου αναδόχων προσφορά προσφοράς προσφορές
προσφορών πληρωμή πληρωμής πληρωμές ένταλμα εντάλματος εντάλματα τιμολόγιο τιμολογίου τιμολόγια επιτροπή επιτροπής
επιτροπές περιφέρεια περιφέρειας υπουργείο υπουργείου νοσοκομείο νοσοκομείου νοσοκομεία σχολείο σχολείου σχολεία
οδός οδού οδών δίκτυο δικτύου δίκτυα ύδρευση ύδρευσης αποχέτευση αποχέτευσης καθαριότητα καθαριότητας φύλαξη φύλαξης
σίτιση σίτισης μεταφορά μεταφοράς μεταφορές εξοπλισμός εξοπλισμού υλικό υλικού υλικά υλικών αναλώσιμα αναλωσίμων
καύσιμα καυσίμων οχήματα οχημάτων λογισμικό λογισμικού ηλεκτροφωτισμός ηλεκτροφωτισμού ασφαλτόστρωση
ασφαλτόστρωσης πρόσκληση πρόσκλησης διακήρυξη διακήρυξης κατακύρωση κατακύρωσης έγκριση έγκρισης ανάληψη ανάληψης
υποχρέωση υποχρέωσης υποχρεώσεων πίστωση πίστωσης πιστώσεων χρηματοδότηση χρηματοδότησης πρόγραμμα προγράμματος
προγράμματα πράξη πράξης πρακτικό πρακτικού άδεια άδειας άδειες μίσθωση μίσθωσης ακίνητο ακινήτου κτίριο κτιρίου
κτίρια κτιρίων πάρκο πάρκου σταθμός σταθμού ενέργεια ενέργειας αποκατάσταση αποκατάστασης παράταση παράτασης
τροποποίηση τροποποίησης παραλαβή παραλαβής συμβούλιο συμβουλίου κοινότητα κοινότητας φορέας φορέα φορέων πολίτες
πολιτών θέση θέσης θέσεις προσωπικό προσωπικού πρόσληψη πρόσληψης μισθοδοσία μισθοδοσίας αποζημίωση αποζημίωσης
επιχορήγηση επιχορήγησης δημοπρασία δημοπρασίας εγγύηση εγγύησης εκτέλεση εκτέλεσης χρονοδιάγραμμα τεκμηρίωση
πιστοποίηση πιστοποίησης φάκελος φακέλου δικαιολογητικά δικαιολογητικών προθεσμία προθεσμίας ένσταση ένστασης
προσφυγή προσφυγής αξιολόγηση αξιολόγησης κριτήριο κριτηρίου κριτήρια τιμή τιμής ποσό ποσού ποσοστό ΦΠΑ κωδικός
κωδικού λογαριασμός λογαριασμού ταμείο ταμείου οικονομικό έτος έτους`.split(/\s+/);

const ADJECTIVE_STEMS = `δημοτικ τεχνικ οικονομικ ηλεκτρονικ ηλεκτρολογικ μηχανολογικ περιβαλλοντικ κοινωνικ ιατρικ
νοσηλευτικ σχολικ αθλητικ πολιτιστικ τουριστικ αγροτικ οδικ λιμενικ ενεργειακ ψηφιακ πυροσβεστικ στρατιωτικ
αστυνομικ υγειονομικ φαρμακευτικ χημικ βιολογικ γεωργικ δασικ υδραυλικ αποχετευτικ ηλεκτρομηχανολογικ συμβουλευτικ
διοικητικ νομικ λογιστικ τακτικ συνοπτικ αναλυτικ γεωτεχνικ τοπογραφικ στατικ θερμικ ακουστικ ηλιακ`.split(/\s+/);
const ADJECTIVE_ENDINGS = ['ός', 'ού', 'ό', 'ή', 'ής', 'ές', 'ών', 'ά', 'οί', 'ούς'];

const VERBS = `εγκρίνει εγκρίνεται αναθέτει ανατίθεται ορίζει ορίζεται καθορίζει διαθέτει δεσμεύει πληρώνει υποβάλλει
υποβάλλονται προκηρύσσει κατακυρώνει αποφασίζει συγκροτεί τροποποιεί παρατείνει εκτελείται παραδίδεται περιλαμβάνει
προβλέπεται απαιτείται ισχύει καλύπτεται βαρύνει εκδίδεται διενεργείται αποστέλλεται δημοσιεύεται ανακοινώνει
προσκαλεί ενημερώνει εξετάζει ελέγχει παραλαμβάνει βεβαιώνει υπογράφει συνάπτει ακυρώνει`.split(/\s+/);

const ENGLISH = `the of and for to in on with by a an is be will shall are or as at from its this that which
supply supplies services service works work contract contracts notice notices award awarded tender tenders
procurement framework agreement agreements lot lots construction maintenance equipment software hardware medical
hospital hospitals school schools road roads water waste management energy electricity fuel vehicles vehicle cleaning
security catering transport consulting design study studies installation repair upgrade network system systems digital
public municipal regional national authority ministry municipality region open procedure restricted negotiated
competitive dialogue criteria price quality value estimated total duration months years deadline receipt requests
participate documents available address internet electronic submission language greek english information additional
review body court appeal date dispatch contracting official name postal town postal code country contact telephone
email fax url main activity general scope object title description classification cpv type place performance nuts
code options renewal variants accepted funds union european project programme financed conditions deposits guarantees
required legal economic financial standing technical professional ability selection minimum level standards may
number maximum envisaged operators objective rules award method lowest offer most economically advantageous
weighting factor cost life cycle time limit unlock opening persons authorised attend session tenderers conclusion
subcontracting share proportion framework dynamic purchasing auction electronic catalogue invoicing ordering payment
recurrent estimated timing further notices published previous publication concerning same procedure joint central
purchasing body involved award contract concluded winner awarded small medium enterprise group consortium value initial
lowest highest considered subcontracted likely country origin product community non community date conclusion
offers received number tenders small medium enterprises other member states third countries electronically bid
computer printer paper furniture clothing uniforms food meals cleaning products chemicals laboratory reagents
pharmaceuticals vaccines ambulances buses trucks cars tyres spare parts asphalt concrete steel cement pipes cables
lighting lamps generators transformers solar photovoltaic panels wind turbines boilers heating cooling ventilation
elevators lifts fire detection alarm cameras surveillance guarding insurance legal advisory audit accounting
translation printing publishing advertising training courses education research development innovation
telecommunications mobile internet data centre cloud hosting licences licensing support helpdesk maintenance repair
inspection testing certification survey mapping cadastral geospatial architectural engineering supervision project
management coordination health safety environmental impact assessment rehabilitation restoration renovation
extension demolition excavation earthworks drainage sewerage irrigation desalination treatment plant reservoir dam
bridge tunnel railway port airport marina harbour coastal protection flood prevention landscaping parks playgrounds
sports facilities swimming pool stadium theatre museum library archive cultural heritage tourism promotion events`.split(/\s+/);

const MUNICIPALITIES = `Αθηναίων Θεσσαλονίκης Πατρέων Ηρακλείου Λαρισαίων Βόλου Ιωαννιτών Χανίων Τρικκαίων Σερρών
Καλαμάτας Κομοτηνής Ρόδου Αλεξανδρούπολης Ξάνθης Κατερίνης Αγρινίου Καβάλας Χαλκιδέων Λαμιέων Βέροιας Δράμας
Κοζάνης Κέρκυρας Καρδίτσας Ρεθύμνης Πειραιώς Περιστερίου Καλλιθέας Γλυφάδας Αχαρνών Νίκαιας Ηλιούπολης Ζωγράφου
Αιγάλεω Χαλανδρίου Αμαρουσίου Κηφισιάς Παλλήνης Μεγαρέων Ελευσίνας Λαυρεωτικής Σαρωνικού Κορινθίων Άργους Ναυπλιέων
Τρίπολης Σπάρτης Πύργου Αμαλιάδας Μεσολογγίου Ναυπάκτου Πρέβεζας Άρτας Ηγουμενίτσας Καστοριάς Φλώρινας Έδεσσας
Γιαννιτσών Κιλκίς Πολυγύρου Νάουσας Γρεβενών Μετεώρων Φαρσάλων Αλμυρού Σκιάθου Σκοπέλου Καρύστου Λιβαδειάς Θηβαίων
Άμφισσας Καρπενησίου Ζακύνθου Κεφαλονιάς Λευκάδας Ιθάκης Χίου Μυτιλήνης Σάμου Σύρου Νάξου Πάρου Μυκόνου Θήρας
Άνδρου Τήνου Μήλου Κω Καλύμνου Λέρου Πάτμου Σητείας Αγίου Νικολάου Ιεράπετρας Φαιστού Μαλεβιζίου Χερσονήσου
Αποκορώνου Πλατανιά Κισσάμου Σφακίων Ορεστιάδας Σουφλίου Διδυμοτείχου Αβδήρων Τοπείρου Μαρωνείας Ιάσμου Παγγαίου
Νέστου Θάσου Δοξάτου Προσοτσάνης Νιγρίτας Σιντικής Ηράκλειας Βισαλτίας Αμφίπολης Ωραιοκάστρου Καλαμαριάς Πυλαίας
Θερμαϊκού Θέρμης Δέλτα Χαλκηδόνος Κορδελιού Παύλου Μελά Νεάπολης Συκεών Αμπελοκήπων Μενεμένης`.split(/\s+/);
const PLACES_LATIN = `Athens Thessaloniki Patras Heraklion Larissa Volos Ioannina Chania Trikala Serres Kalamata
Komotini Rhodes Alexandroupolis Xanthi Katerini Agrinio Kavala Chalkida Lamia Veria Drama Kozani Corfu Karditsa
Rethymno Piraeus Peristeri Kallithea Glyfada Acharnes Nikaia Elefsina Corinth Argos Nafplio Tripoli Sparti Pyrgos
Messolonghi Nafpaktos Preveza Arta Igoumenitsa Kastoria Florina Edessa Kilkis Naoussa Grevena Skiathos Livadia Thebes
Zakynthos Kefalonia Lefkada Chios Mytilene Samos Syros Naxos Paros Mykonos Santorini Andros Tinos Milos Kos Kalymnos
Leros Patmos Sitia Ierapetra Orestiada Thasos Attica Macedonia Thrace Epirus Thessaly Peloponnese Crete Aegean Ionian`.split(/\s+/);

const SURNAME_ROOTS = `Παπαδ Γεωργ Νικολ Δημητρ Ιωανν Κωνσταντιν Αθανασ Χριστ Βασιλ Αντων Μιχαηλ Ευαγγελ Σταυρ Σπυρ
Πετρ Αλεξ Θεοδωρ Μαρκ Στεφαν Παναγ Ηλι Αναστασ Καραγιανν Οικονομ Μακρ Ζαχαρ Λαμπρ Τσακ Ραπτ Φωτ Κυριακ Σωτηρ
Μαυρ Λιακ Τζαν Ρουσ Μπουρ Σαρ Γκικ Χατζη Κοντ Καλ Πολυχρον Ξενακ Ανδρε Μανωλ Λεοντ Σιδερ Φραγκ Μελετ`.split(/\s+/);
const SURNAME_SUFFIXES = ['όπουλος', 'ίδης', 'άκης', 'άτος', 'ίου', 'έας', 'ιάδης', 'ούδης', 'άκος', 'ίτης', 'έλλης', 'άρης', 'όγλου', 'άς', 'ιώτης'];

/** The 735 contractor surnames, drawn Zipf; the rare benchmark term comes from the tail. */
export const SURNAMES: string[] = SURNAME_ROOTS.flatMap((r) => SURNAME_SUFFIXES.map((s) => r + s)).slice(0, 735);

function numbers(): string[] {
  const out: string[] = [];
  for (let i = 1; i <= 600; i++) out.push(String(i));
  for (let y = 2010; y <= 2025; y++) out.push(String(y));
  for (let i = 0; i < 150; i++) out.push(String(30000000 + ((i * 7919 * 104729) % 60000000)).slice(0, 8)); // CPV-like
  for (let i = 0; i < 400; i++) out.push(String(1000 + ((i * 6151) % 98000))); // amounts
  return out;
}

/** Terms pinned at given ranks, so the benchmark queries have known frequencies, as docs/machine-limits.md's. */
export const PINNED: Record<number, string> = {
  1: 'και',
  2: 'της',
  3: 'του',
  4: 'για',
  5: 'την',
  6: 'προμήθεια',
  7: 'των',
  8: 'σύμβαση',
  9: 'με',
  10: 'δήμου',
  // ranks 35 and 37: each in ~26% of documents, both in ~7% (docs/machine-limits.md "two-term AND, mid": 69k at 1M)
  35: 'ανάθεση',
  37: 'δήμος',
  // rank 300: ~3.5% each; with the surname below, a selective two-term pair
  300: 'καθαριότητας',
};

function hash(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be59b, 0xc2b2ae35);
  h ^= h >>> 13;
  h = Math.imul(h, 0x27d4eb2f);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The ranked vocabulary: pinned terms at their ranks, everything else in a seeded shuffle. */
export function vocabulary(seed: number): string[] {
  const adjectives = ADJECTIVE_STEMS.flatMap((s) => ADJECTIVE_ENDINGS.map((e) => s + e));
  const pool = [...new Set([...FUNCTION_WORDS, ...NOUNS, ...adjectives, ...VERBS, ...ENGLISH, ...MUNICIPALITIES, ...PLACES_LATIN, ...numbers()])].filter(
    (w) => !Object.values(PINNED).includes(w),
  );
  const rnd = mulberry32(seed);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  const ranked: string[] = [];
  for (let rank = 1; pool.length || PINNED[rank]; rank++) ranked.push(PINNED[rank] ?? pool.shift()!);
  return ranked;
}

/** Draws ranks 0..n-1 with P(r) ∝ 1/(r+1)^s. */
class Zipf {
  private readonly cdf: Float64Array;
  constructor(n: number, s = 1.0) {
    this.cdf = new Float64Array(n);
    let sum = 0;
    for (let r = 0; r < n; r++) this.cdf[r] = sum += 1 / (r + 1) ** s;
    for (let r = 0; r < n; r++) this.cdf[r] /= sum;
  }
  draw(u: number): number {
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const caps = (w: string) => w.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase();

/** Share of the corpus per source (diavgeia dominates, as upstream). Contiguous index ranges. */
export const SOURCE_SHARES: [SourceName, number][] = [
  ['diavgeia', 0.45],
  ['kimdis', 0.25],
  ['ted', 0.12],
  ['data_gov_gr', 0.05],
  ['mitos', 0.04],
  ['rae', 0.04],
  ['geodata', 0.03],
  ['elstat', 0.02],
];

export function sourceRanges(n: number): { source: SourceName; from: number; to: number }[] {
  let from = 0;
  return SOURCE_SHARES.map(([source, share], i) => {
    const to = i === SOURCE_SHARES.length - 1 ? n : from + Math.round(n * share);
    const range = { source, from, to };
    from = to;
    return range;
  });
}

const ADA_CHARS = 'ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ0123456789';
const START = Date.parse('2019-01-01T00:00:00Z') / 1000;
const SPAN = Date.parse('2025-07-01T00:00:00Z') / 1000 - START;

export class Generator {
  readonly vocab: string[];
  private readonly capsVocab: string[];
  private readonly words: Zipf;
  private readonly surnames = new Zipf(SURNAMES.length);
  private readonly ranges: { source: SourceName; from: number; to: number }[];

  constructor(
    readonly n: number,
    readonly seed: number,
  ) {
    this.vocab = vocabulary(seed);
    this.capsVocab = this.vocab.map(caps);
    this.words = new Zipf(this.vocab.length);
    this.ranges = sourceRanges(n);
  }

  /** A unique ΑΔΑ-like code for document i: 8 characters from i, a hyphen, 3 more. */
  private ada(i: number, rnd: () => number): string {
    let code = '';
    let x = i;
    for (let k = 0; k < 5; k++, x = Math.floor(x / ADA_CHARS.length)) code += ADA_CHARS[x % ADA_CHARS.length];
    for (let k = 0; k < 3; k++) code += ADA_CHARS[Math.floor(rnd() * ADA_CHARS.length)];
    return `${code}-${ADA_CHARS[Math.floor(rnd() * 24)]}${ADA_CHARS[Math.floor(rnd() * ADA_CHARS.length)]}${ADA_CHARS[Math.floor(rnd() * ADA_CHARS.length)]}`;
  }

  sourceOf(i: number): SourceName {
    return this.ranges.find((r) => i >= r.from && i < r.to)!.source;
  }

  document(i: number): IndexedDocument {
    const rnd = mulberry32(hash(this.seed, i));
    const source = this.sourceOf(i);
    const upper = rnd() < 0.3;
    const title: string[] = [];
    for (let k = 8 + Math.floor(rnd() * 5); k > 0; k--) {
      const r = this.words.draw(rnd());
      title.push(upper ? this.capsVocab[r] : this.vocab[r]);
    }
    if (!upper) title[0] = title[0][0].toUpperCase() + title[0].slice(1);
    const body: string[] = [];
    for (let k = 70 + Math.floor(rnd() * 21); k > 0; k--) body.push(this.vocab[this.words.draw(rnd())]);
    const surname = SURNAMES[this.surnames.draw(rnd())];
    const ada = this.ada(i, rnd);
    const protocol = 1 + Math.floor(rnd() * 200_000);
    const at = body.length >> 1;
    body.splice(at, 0, `αρ. πρωτ. ${protocol}, ΑΔΑ ${ada}, ανάδοχος ${caps(surname)} Α.Ε.`);
    const published = new Date((START + Math.floor(rnd() * SPAN)) * 1000).toISOString().replace('.000Z', 'Z');
    return {
      source_id: `${source}:${ada}`,
      source,
      country: source === 'ted' ? 'EU' : 'GR',
      title: title.join(' '),
      doc_type: 'decision',
      doc_category: 'procurement',
      published_at: published,
      source_url: `https://example.org/${source}/${i}`,
      language: 'el',
      quality_score: Math.round(rnd() * 1000) / 1000,
      content: body.join(' ') + '.',
      summary: '',
      entities: { afm: [], ada: [ada], names: [`${caps(surname)} Α.Ε.`] },
      parties: [],
      procedure_type: null,
      tenders_received: null,
      act_date: null,
      amount: null,
      cpv: [],
      region: null,
      sector: null,
      indexed_at: published,
      content_hash: `bench-${this.seed}-${i}`,
      original: null,
      embedding: null,
    };
  }

  /** Documents [from, to) in batches. */
  async *batches(from: number, to: number, size = 5000): AsyncGenerator<IndexedDocument[]> {
    for (let i = from; i < to; i += size) {
      const batch: IndexedDocument[] = [];
      for (let j = i; j < Math.min(to, i + size); j++) batch.push(this.document(j));
      yield batch;
    }
  }
}
