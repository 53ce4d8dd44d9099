// The one contract suite every SearchProvider runs (search-embedded.test.ts, search-elasticsearch.test.ts).
// Engine-neutral: it writes through the port, calls refresh() after writes, and asserts only what both
// engines promise. Both stem (Greek and English); the stemming cases use words whose stems the two
// engines' stemmers agree on. Stop words are searched only where both engines find them.
// open() must return a provider whose embedding dimension is CONTRACT_DIMENSION; the suite calls init().
import type { Test } from 'tap';
import { METADATA_FIELDS, type IndexedDocument } from '../../index-mappings/document.js';
import type { SearchHit, SearchProvider, SearchResult } from '../../lib/search/provider.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { sink } from '../../ingest/stages/bulk-sink.js';
import { queryMatcher, SNIPPET_TEXT_CHARS, snippetOf, snippetText } from '../../lib/search/snippet.js';

export const CONTRACT_DIMENSION = 8;

export interface OpenedProvider {
  provider: SearchProvider;
  cleanup(): Promise<void>;
}

// ------------------------------------------------------------------------------------------ fixtures

const axis = (i: number, sign = 1) => Array.from({ length: CONTRACT_DIMENSION }, (_, j) => (j === i ? sign : 0));
const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const mix = (a: number, b: number) => unit(axis(0).map((x, j) => a * x + b * axis(1)[j]));

let serial = 0;
function fx(source_id: string, published_at: string, title: string, content: string, extra: Partial<IndexedDocument> = {}): IndexedDocument {
  serial += 1;
  const source = source_id.split(':')[0] as SourceName;
  return {
    source_id,
    source,
    country: source === 'ted' ? 'EU' : 'GR',
    title,
    doc_type: source === 'ted' ? 'contract_notice' : 'decision',
    doc_category: 'procurement',
    published_at,
    source_url: `https://example.org/${encodeURIComponent(source_id)}`,
    language: /[α-ωΑ-Ω]/.test(title + content) ? 'el' : 'en',
    quality_score: ((serial * 37) % 90) / 100 + 0.1,
    content,
    summary: '',
    entities: { afm: [], ada: [], names: [] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: null,
    indexed_at: `2025-01-${String((serial % 27) + 1).padStart(2, '0')}T10:${String(serial % 60).padStart(2, '0')}:00Z`,
    content_hash: `hash-${source_id}`,
    original: null,
    embedding: null,
    ...extra,
  };
}

const LONG =
  'Η δαπάνη βαρύνει τον κωδικό του προϋπολογισμού του τρέχοντος οικονομικού έτους και θα καλυφθεί από ίδιους πόρους. ' +
  'Ο ανάδοχος υποχρεούται να παραδώσει πλήρη τεχνική τεκμηρίωση, χρονοδιάγραμμα εργασιών, πιστοποιήσεις υλικών και ' +
  'εγγυητική επιστολή καλής εκτέλεσης πριν από την έναρξη των εργασιών στο εργοτάξιο.';

function fixtures(): IndexedDocument[] {
  serial = 0;
  const docs: IndexedDocument[] = [
    // Greek folding: Απόφαση / ΑΠΟΦΑΣΗ / απόφαση, and Δήμος / ΔΗΜΟΣ.
    fx(
      'diavgeia:D01',
      '2024-03-05T08:15:00Z',
      'Απόφαση ανάθεσης για κλάδεμα πρασίνου',
      'Ο Δήμος Ρόδου εγκρίνει την ανάθεση κλαδέματος δέντρων σε κοινόχρηστους χώρους.',
      {
        entities: { afm: ['090000045'], ada: ['ΨΖ4Ω46ΜΤΛ6-1ΑΒ'], names: ['Δήμος Ρόδου'] },
        amount: { value: 12400.5, currency: 'EUR' },
        cpv: ['77211400-6'],
        region: 'Νότιο Αιγαίο',
        sector: 'environment',
        original: { sha256: 'a'.repeat(64), content_type: 'application/pdf' },
      },
    ),
    fx(
      'diavgeia:D02',
      '2024-04-10T11:00:00Z',
      'ΑΠΟΦΑΣΗ ΕΓΚΡΙΣΗΣ ΤΕΧΝΙΚΟΥ ΠΡΟΓΡΑΜΜΑΤΟΣ',
      'Εγκρίνεται το τεχνικό πρόγραμμα του έτους με τα έργα οδοποιίας και ύδρευσης.',
    ),
    fx(
      'kimdis:K01',
      '2024-05-20T09:30:00Z',
      'Σύμβαση καθαρισμού σχολικών κτιρίων',
      'Η σύμβαση υπογράφεται σύμφωνα με την απόφαση του διοικητικού συμβουλίου της σχολικής επιτροπής.',
    ),
    fx(
      'mitos:M01',
      '2023-11-02T07:00:00Z',
      'ΔΗΜΟΣ ΧΑΝΙΩΝ ΕΚΔΟΣΗ ΑΔΕΙΑΣ ΚΑΤΑΛΗΨΗΣ ΠΕΖΟΔΡΟΜΙΟΥ',
      'Διαδικασία για την άδεια κατάληψης κοινόχρηστου χώρου από καταστήματα εστίασης.',
    ),
    // A term in three sources; AND with a second term; an English term.
    fx('diavgeia:D03', '2024-07-01T10:00:00Z', 'Μονάδα αφαλάτωσης στην Τήλο', 'Έγκριση μελέτης για την εγκατάσταση μονάδας στο λιμάνι της Τήλου.', {
      embedding: mix(1, 0.5),
    }),
    fx(
      'kimdis:K02',
      '2024-08-12T12:00:00Z',
      'Προμήθεια εξοπλισμού για το νησί της Καλύμνου',
      'Σύμβαση για μονάδα αφαλάτωσης με αντίστροφη όσμωση δυναμικότητας 500 κυβικών την ημέρα.',
      { embedding: mix(1, 1) },
    ),
    fx('ted:T01', '2024-09-03T06:45:00Z', 'Ελλάδα – Εξοπλισμός νερού', 'Προμήθεια συστήματος αφαλάτωσης για το νησί της Σύμης με δεξαμενές αποθήκευσης.'),
    fx('diavgeia:D04', '2024-02-14T13:20:00Z', 'Αποκατάσταση λιμανιού Σύμης', 'Εργασίες αποκατάστασης του κρηπιδώματος μετά τη θεομηνία.', {
      embedding: axis(0, -1),
    }),
    fx(
      'ted:T02',
      '2024-10-01T08:00:00Z',
      'Desalination plant for the island of Leros',
      'Contract notice: design, build and operation of a seawater plant with a capacity of 1,200 cubic metres a day.',
      { embedding: axis(0) },
    ),
    fx(
      'ted:T03',
      '2024-10-15T08:00:00Z',
      'Supply of water treatment equipment',
      'Supply of desalination membranes and dosing pumps for municipal water utilities.',
      { embedding: axis(1) },
    ),
    // Title boost, within one source so both share BM25 statistics: the title match (D05) is the longer
    // document, so with equal column weights D10 would rank first.
    fx(
      'diavgeia:D05',
      '2024-01-09T09:00:00Z',
      'Κατασκευή κυματοθραύστη λιμένα Πάρου',
      'Η μελέτη περιλαμβάνει βυθομετρικές αποτυπώσεις, γεωτεχνική έρευνα, υπολογισμό κυματισμών και σχέδια διατομών.',
    ),
    fx('diavgeia:D10', '2024-06-20T09:00:00Z', 'Τεχνική έκθεση λιμενικών εργασιών', 'Επισκευή του κυματοθραύστη.'),
    // Phrase: adjacent in K04, apart and reversed in M02.
    fx('kimdis:K04', '2024-04-02T10:00:00Z', 'Συντήρηση οδικού δικτύου Λέρου', 'Ασφαλτόστρωση και σήμανση επαρχιακών δρόμων.', {
      summary: 'Χρηματοδότηση ΕΣΠΑ',
      entities: { afm: [], ada: [], names: ['Οδοποιία Παπαθανασίου ΟΕ', 'Κατασκευαστική Κάσου ΑΕ'] },
    }),
    fx('mitos:M02', '2024-01-20T10:00:00Z', 'Έλεγχος εγκαταστάσεων', 'Ο έλεγχος του δικτύου ύδρευσης γίνεται μαζί με τον έλεγχο του οδικού φωτισμού.'),
    // Prefixes, Greek (with dialytika) and English.
    fx('rae:R01', '2024-05-05T05:00:00Z', 'Άδεια φωτοβολταϊκού σταθμού 5 MW', 'Βεβαίωση παραγωγού για σταθμό στη Λάρισα.'),
    fx('rae:R02', '2024-05-06T05:00:00Z', 'Τροποποίηση βεβαίωσης', 'Επέκταση για φωτοβολταϊκά πάρκα στη Θεσσαλία.'),
    fx('ted:T04', '2024-03-03T03:00:00Z', 'Photovoltaic installation on school roofs', 'Design and installation works.'),
    fx('ted:T05', '2024-03-04T03:00:00Z', 'Energy upgrade of public buildings', 'Rooftop photovoltaics and heat pumps.'),
    fx('mitos:M03', '2023-12-12T12:00:00Z', 'Βεβαίωση μόνιμης κατοικίας', 'Έκδοση βεβαίωσης από το κέντρο εξυπηρέτησης πολιτών.'),
    // Listing edges: exactly at the `since` midnight (excluded) and one second after (included);
    // two documents in the same second, ordered by source_id.
    fx('diavgeia:D06', '2024-06-01T00:00:00Z', 'Πρόσκληση εκδήλωσης ενδιαφέροντος', 'Πρόσκληση για μίσθωση ακινήτου.'),
    fx('diavgeia:D07', '2024-06-01T00:00:01Z', 'Ορισμός επιτροπής παραλαβής', 'Ορίζεται τριμελής επιτροπή.'),
    fx('diavgeia:D09', '2024-06-15T12:00:00Z', 'Ανάληψη υποχρέωσης', 'Δέσμευση πίστωσης για καύσιμα.'),
    fx('diavgeia:D08', '2024-06-15T12:00:00Z', 'Ανάληψη υποχρέωσης', 'Δέσμευση πίστωσης για ανταλλακτικά.'),
  ];
  // Ties: identical documents; three in one second, two in a later one. Inserted out of order.
  const tie = (id: string, at: string) => fx(`kimdis:${id}`, at, 'Συντήρηση χιονοδρομικού κέντρου', 'Εργασίες στους αναβατήρες πριν από τη χειμερινή περίοδο.');
  docs.push(
    tie('K12', '2024-02-01T09:00:00Z'),
    tie('K14', '2024-03-01T09:00:00Z'),
    tie('K10', '2024-02-01T09:00:00Z'),
    tie('K13', '2024-03-01T09:00:00Z'),
    tie('K11', '2024-02-01T09:00:00Z'),
  );
  // Paging: one word in many documents with different weights and dates, across sources.
  const sources: SourceName[] = ['diavgeia', 'kimdis', 'ted', 'mitos'];
  const topics = ['καθαριότητας', 'φύλαξης', 'σίτισης', 'μεταφοράς μαθητών', 'μηχανογράφησης', 'συντήρησης ανελκυστήρων'];
  for (let i = 1; i <= 16; i++) {
    const topic = topics[i % topics.length];
    docs.push(
      fx(
        `${sources[i % 4]}:F${String(i).padStart(2, '0')}`,
        `2023-${String((i % 12) + 1).padStart(2, '0')}-1${i % 10}T08:00:00Z`,
        `Παροχή υπηρεσιών ${topic}`,
        `${'Παροχή υπηρεσιών '.repeat((i % 3) + 1)}${topic} για δώδεκα μήνες. ${i % 2 ? LONG : ''}`,
      ),
    );
  }
  return docs;
}

// ------------------------------------------------------------------------------------------ helpers

const ids = (r: { hits: { doc: { source_id: string } }[] } | SearchHit[]) => ('hits' in r ? r.hits : r).map((h) => h.doc.source_id);
const sorted = (xs: string[]) => [...xs].sort();
/** published_at desc, then source_id asc (code point order; the fixture ids are ASCII). */
const byListingOrder = (a: IndexedDocument, b: IndexedDocument) =>
  Date.parse(b.published_at) - Date.parse(a.published_at) || (a.source_id < b.source_id ? -1 : a.source_id > b.source_id ? 1 : 0);
const withoutEmbedding = ({ embedding: _e, ...rest }: IndexedDocument) => rest;

async function load(provider: SearchProvider, docs: IndexedDocument[]): Promise<void> {
  await provider.init();
  const result = await provider.upsert(docs);
  if (result.failed.length || result.written !== docs.length) {
    throw new Error(`fixture load failed: ${JSON.stringify(result)}`);
  }
  await provider.refresh();
}

async function search(p: SearchProvider, text: string, extra: { source?: SourceName; limit?: number; offset?: number } = {}) {
  return p.search({ text, limit: extra.limit ?? 100, offset: extra.offset ?? 0, filters: { source: extra.source } });
}

async function* batchesOf(docs: IndexedDocument[], size: number): AsyncGenerator<IndexedDocument[]> {
  for (let i = 0; i < docs.length; i += size) yield docs.slice(i, i + size);
}

// ------------------------------------------------------------------------------------------ suite

export function searchContract(t: Test, name: string, open: () => Promise<OpenedProvider>): void {
  t.test(`${name}: reads over the shared fixtures`, async (t) => {
    const { provider: p, cleanup } = await open();
    t.teardown(cleanup);
    const docs = fixtures();
    await load(p, docs);
    const bySource = (s: SourceName) => docs.filter((d) => d.source === s);

    t.test('when a term occurs in three sources, then exactly those documents are found', async (t) => {
      const r = await search(p, 'αφαλάτωσης');
      t.same(sorted(ids(r)), ['diavgeia:D03', 'kimdis:K02', 'ted:T01']);
      t.equal(r.total, 3);
      const en = await search(p, 'desalination');
      t.same(sorted(ids(en)), ['ted:T02', 'ted:T03']);
    });

    t.test('when results come back, then scores do not increase and hits carry no embedding', async (t) => {
      const r = await search(p, 'υπηρεσιών');
      t.ok(r.hits.length >= 10, `many hits (${r.hits.length})`);
      for (let i = 1; i < r.hits.length; i++) t.ok(r.hits[i - 1].score >= r.hits[i].score, `score ${i}`);
      const withVectors = await search(p, 'αφαλάτωσης');
      for (const h of withVectors.hits) t.notOk('embedding' in h.doc, `${h.doc.source_id} has no embedding field`);
    });

    t.test('when the metadata view is asked for, then each hit carries its exact metadata record, in the same order and pages', async (t) => {
      const byId = new Map(docs.map((d) => [d.source_id, d]));
      // At least the record (provider.ts): an engine may return more when that costs it nothing.
      const record = (d: Partial<IndexedDocument>) => Object.fromEntries(METADATA_FIELDS.map((f) => [f, d[f]]));
      for (const text of ['υπηρεσιών', 'Συντήρηση']) {
        const whole = await search(p, text, { limit: 1000 });
        const meta = await p.search({ text, limit: 1000, offset: 0, view: 'metadata' });
        t.equal(meta.total, whole.total, `${text}: total`);
        t.same(ids(meta), ids(whole), `${text}: order`);
        for (const h of meta.hits) {
          const d = byId.get(h.doc.source_id)!;
          t.same(record(h.doc), record(d), `${text}: ${h.doc.source_id} carries its metadata record`);
        }
        const walked: string[] = [];
        for (let offset = 0; offset < whole.total; offset += 4) {
          walked.push(...ids(await p.search({ text, limit: 4, offset, view: 'metadata' })));
        }
        t.same(walked, ids(whole), `${text}: metadata pages walk the same order`);
      }
    });

    t.test(
      'when the snippet view is asked for, then each hit carries its metadata record and its stored snippet text, which marks Greek and Latin words',
      async (t) => {
        const byId = new Map(docs.map((d) => [d.source_id, d]));
        const record = (d: Partial<IndexedDocument>) => Object.fromEntries(METADATA_FIELDS.map((f) => [f, d[f]]));
        for (const text of ['υπηρεσιών', 'Τήλου', 'Tilos', 'desalination']) {
          const whole = await search(p, text, { limit: 1000 });
          const viewed = await p.search({ text, limit: 1000, offset: 0, view: 'snippet' });
          t.same(ids(viewed), ids(whole), `${text}: the same hits in the same order`);
          for (const h of viewed.hits) {
            const d = byId.get(h.doc.source_id)!;
            t.same(record(h.doc), record(d), `${text}: ${d.source_id} carries its metadata record`);
            t.notOk('content' in h.doc, `${text}: ${d.source_id} without its content`);
            t.equal(h.snippetText, snippetText(d.content), `${text}: ${d.source_id} carries its snippet text`);
          }
        }
        const snippet = async (text: string, id: string) => {
          const hit = (await p.search({ text, limit: 10, offset: 0, view: 'snippet' })).hits.find((h) => h.doc.source_id === id);
          return hit && snippetOf(hit.doc.title, hit.snippetText, queryMatcher(text));
        };
        t.match(await snippet('λιμάνι', 'diavgeia:D03'), /στο <mark>λιμάνι<\/mark> της Τήλου/, 'a Greek word');
        t.match(await snippet('Tilos', 'diavgeia:D03'), /της <mark>Τήλου<\/mark>/, 'a Greek name by its Latin spelling');
        t.match(await snippet('desalination', 'ted:T02'), /<mark>[Dd]esalination<\/mark>/, 'an English word');
      },
    );

    t.test('when the term is in one title and another body, then the title match ranks first', async (t) => {
      const r = await search(p, 'κυματοθραύστη');
      t.same(ids(r), ['diavgeia:D05', 'diavgeia:D10']);
      t.ok(r.hits[0].score > r.hits[1].score, 'strictly higher score for the title match');
    });

    t.test('when a source is given, then only that source is searched and counted', async (t) => {
      const r = await search(p, 'αφαλάτωσης', { source: 'kimdis' });
      t.same(ids(r), ['kimdis:K02']);
      t.equal(r.total, 1);
      const none = await search(p, 'αφαλάτωσης', { source: 'elstat' });
      t.same(none, { total: 0, hits: [] });
    });

    t.test('when the same word is typed with or without accents and in capitals, then the hits are the same', async (t) => {
      const forms = ['απόφαση', 'ΑΠΟΦΑΣΗ', 'αποφαση', 'Απόφαση'];
      const results = await Promise.all(forms.map((f) => search(p, f)));
      for (const id of ['diavgeia:D01', 'diavgeia:D02', 'kimdis:K01']) t.ok(ids(results[0]).includes(id), `finds ${id}`);
      for (let i = 1; i < forms.length; i++) t.same(sorted(ids(results[i])), sorted(ids(results[0])), forms[i]);
      const sigma = await Promise.all(['δήμος', 'ΔΗΜΟΣ', 'δημος'].map((f) => search(p, f)));
      for (const id of ['diavgeia:D01', 'mitos:M01']) t.ok(ids(sigma[0]).includes(id), `final sigma finds ${id}`);
      t.same(sorted(ids(sigma[1])), sorted(ids(sigma[0])));
      t.same(sorted(ids(sigma[2])), sorted(ids(sigma[0])));
    });

    t.test('when two terms are given, then only documents with both are found', async (t) => {
      t.same(sorted(ids(await search(p, 'Σύμης'))), ['diavgeia:D04', 'ted:T01']);
      t.same(ids(await search(p, 'αφαλάτωσης Σύμης')), ['ted:T01']);
      t.same(ids(await search(p, 'ΣΥΜΗΣ αφαλατωσης')), ['ted:T01']);
      t.equal((await search(p, 'αφαλάτωσης Λέρου')).total, 0);
    });

    t.test('when a phrase is quoted, then only adjacent words in that order match', async (t) => {
      t.same(ids(await search(p, '"οδικού δικτύου"')), ['kimdis:K04']);
      t.same(sorted(ids(await search(p, 'οδικού δικτύου'))), ['kimdis:K04', 'mitos:M02']);
      t.equal((await search(p, '"δικτύου οδικού"')).total, 0);
    });

    t.test('when a Greek word is typed in another inflection, then the documents with its other forms are found', async (t) => {
      t.same(sorted(ids(await search(p, 'συμβάσεις'))), ['kimdis:K01', 'kimdis:K02'], 'σύμβαση found as συμβάσεις');
      t.same(ids(await search(p, 'ΣΥΜΒΑΣΕΩΝ', { source: 'kimdis' })), ids(await search(p, 'Σύμβαση', { source: 'kimdis' })));
      t.same(ids(await search(p, '"οδικών δικτύων"')), ['kimdis:K04'], 'a phrase in other inflections still needs the words adjacent');
      t.same(sorted(ids(await search(p, 'λιμάνια'))), ['diavgeia:D03', 'diavgeia:D04'], 'λιμάνι, λιμάνια, λιμανιού');
    });

    t.test('when an English word is typed in the plural or singular, then the other form is found', async (t) => {
      t.same(sorted(ids(await search(p, 'installations'))), ['ted:T04']);
      t.same(sorted(ids(await search(p, 'membrane'))), ['ted:T03']);
      t.same(sorted(ids(await search(p, 'plants'))), ['ted:T02']);
      t.same(sorted(ids(await search(p, '"desalination membrane"'))), ['ted:T03']);
    });

    t.test('when a Greek place or name is typed in Latin letters, then the Greek documents are found', async (t) => {
      t.same(ids(await search(p, 'Chania')), ['mitos:M01'], 'ΧΑΝΙΩΝ in a title, ELOT 743');
      t.same(ids(await search(p, 'HANIA')), ['mitos:M01'], 'an informal spelling');
      t.same(ids(await search(p, 'Tilos')), ['diavgeia:D03'], 'another inflection: Τήλο');
      t.same(ids(await search(p, 'Dimos Rodou')), ['diavgeia:D01'], "a party's name");
      t.same(ids(await search(p, '"dimos rodou"')), ['diavgeia:D01'], 'as a phrase');
      t.same(ids(await search(p, '"rodou dimos"')), [], 'a phrase keeps its order');
      t.same(sorted(ids(await search(p, 'Leros'))), ['kimdis:K04', 'ted:T02'], 'the English title and the Greek one');
      t.same(ids(await search(p, 'Rhodes')), ['diavgeia:D01'], 'an English name of a Greek place');
      t.same(ids(await search(p, 'for Chania')), [], 'an English stop word is no Greek word');
    });

    t.test("when a prefix is longer than a word's stem, then it still matches the word as written", async (t) => {
      t.same(sorted(ids(await search(p, 'φωτοβολταϊκού*'))), ['rae:R01']);
      t.same(sorted(ids(await search(p, 'installation*'))), ['ted:T04']);
    });

    t.test('when a phrase would run from the end of the title into its start or into the content, then it does not match', async (t) => {
      t.same(ids(await search(p, '"δικτύου Λέρου"')), ['kimdis:K04'], 'the words are there');
      // Elasticsearch holds the title several times over in one field (ranking.ts TITLE_WEIGHT), then the content.
      t.equal((await search(p, '"Λέρου Συντήρηση"')).total, 0, 'title end, title start');
      t.equal((await search(p, '"Λέρου Ασφαλτόστρωση"')).total, 0, 'title end, content start');
    });

    t.test('when a phrase would run from one of the content, the summary and the names into the next, then it does not match', async (t) => {
      t.same(ids(await search(p, '"Χρηματοδότηση ΕΣΠΑ"')), ['kimdis:K04'], 'within the summary');
      t.same(ids(await search(p, '"Κατασκευαστική Κάσου"')), ['kimdis:K04'], 'within a name');
      t.equal((await search(p, '"δρόμων Χρηματοδότηση"')).total, 0, 'content end, summary start');
      t.equal((await search(p, '"ΕΣΠΑ Οδοποιία"')).total, 0, 'summary end, first name');
      t.equal((await search(p, '"ΟΕ Κατασκευαστική"')).total, 0, "a name's end, the next name");
    });

    t.test("when a name is only among a document's parties, then a search for it finds the document", async (t) => {
      t.same(ids(await search(p, 'Παπαθανασίου')), ['kimdis:K04']);
      t.same(ids(await search(p, '"Οδοποιία Παπαθανασίου"')), ['kimdis:K04']);
    });

    t.test('when a word ends with *, then it matches as a prefix', async (t) => {
      t.same(sorted(ids(await search(p, 'φωτοβολτα*'))), ['rae:R01', 'rae:R02']);
      t.same(sorted(ids(await search(p, 'photovolt*'))), ['ted:T04', 'ted:T05']);
      t.equal((await search(p, 'φωτοβολτα')).total, 0, 'without the star it is a whole word');
    });

    t.test('when a prefix is typed with accents or capitals, then it matches what it matches without them', async (t) => {
      const forms = ['βεβαιω*', 'ΒΕΒΑΙΩ*', 'Βεβαίω*', 'βεβαίω*'.normalize('NFD')];
      const results = await Promise.all(forms.map((f) => search(p, f)));
      t.same(sorted(ids(results[0])), ['mitos:M03', 'rae:R01', 'rae:R02']);
      for (let i = 1; i < forms.length; i++) t.same(sorted(ids(results[i])), sorted(ids(results[0])), forms[i]);
    });

    t.test('when a query is only prefixes, then every hit scores alike and they come newest first', async (t) => {
      const r = await search(p, 'Βεβαίω*');
      t.same(ids(r), ['rae:R02', 'rae:R01', 'mitos:M03'], 'R01 has the prefix in its content only, R02 and M03 in their titles');
      t.equal(new Set(r.hits.map((h) => h.score)).size, 1, 'one score for all');
      t.same(ids(await search(p, 'Βεβαίω*', { limit: 1, offset: 1 })), ['rae:R01'], 'and pages follow that order');
    });

    t.test('when a prefix word carries punctuation, then its words are searched and the last one as a prefix', async (t) => {
      for (const text of ['(φωτοβολτα*', '«φωτοβολτα*', '*φωτοβολτα*', 'φωτοβολτα**']) {
        t.same(sorted(ids(await search(p, text))), ['rae:R01', 'rae:R02'], text);
      }
      t.same(ids(await search(p, '5-MW*')), ['rae:R01'], '5-MW* is 5 and MW*');
      t.same(ids(await search(p, 'Σύμης,αφαλάτ*')), ['ted:T01'], 'Σύμης,αφαλάτ* is Σύμης and αφαλάτ*');
    });

    t.test('when an emoji or an invisible joiner is attached to a word, then it is ignored', async (t) => {
      const plain = sorted(ids(await search(p, 'αφαλάτωσης')));
      t.ok(plain.length > 1);
      for (const text of ['αφαλάτωσης😀', '😀αφαλάτωσης', 'αφαλάτωσης\u{1F44D}\u{1F3FD}', 'αφαλάτωσης\u200b', '\u2063αφαλάτωσης']) {
        t.same(sorted(ids(await search(p, text))), plain, JSON.stringify(text));
      }
      t.same(ids(await search(p, 'αφαλάτωσης\u200dΣύμης')), ['ted:T01'], 'a joiner between two words separates them');
      t.same(ids(await search(p, 'Σύμης😀αφαλάτωσης')), ['ted:T01']);
    });

    t.test('when a query holds a common short word, then it is found however it is typed', async (t) => {
      // Words such as της and από are stop words of Elasticsearch's Greek analysis: the Greek fields
      // drop them, so they are matched through the other analysis, which folds Greek alike.
      const with_ = await Promise.all(['της Σύμης', 'ΤΗΣ ΣΥΜΗΣ', 'τησ συμησ', 'Της σύμης'].map((f) => search(p, f)));
      for (const r of with_) t.same(ids(r), ['ted:T01']);
      const alone = await Promise.all(['από', 'ΑΠΟ', 'απο', 'Από'].map((f) => search(p, f)));
      for (const id of ['mitos:M01', 'mitos:M03', 'kimdis:K10']) t.ok(ids(alone[0]).includes(id), `από finds ${id}`);
      for (let i = 1; i < alone.length; i++) t.same(sorted(ids(alone[i])), sorted(ids(alone[0])), `form ${i}`);
    });

    t.test('when identical documents tie, then the later published comes first, then source_id ascending', async (t) => {
      const r = await search(p, 'χιονοδρομικού');
      t.same(ids(r), ['kimdis:K13', 'kimdis:K14', 'kimdis:K10', 'kimdis:K11', 'kimdis:K12']);
      t.equal(new Set(r.hits.map((h) => h.score)).size, 1, 'all five have the same score');
    });

    t.test('when every page is walked, then the pages equal one big page with no overlap or gap', async (t) => {
      for (const text of ['υπηρεσιών', 'χιονοδρομικού', 'Συντήρηση']) {
        const all = await search(p, text, { limit: 1000 });
        t.ok(all.total >= 5, `${text}: enough hits (${all.total})`);
        t.equal(all.hits.length, all.total);
        const walked: string[] = [];
        for (let offset = 0; offset < all.total; offset += 3) {
          const page = await search(p, text, { limit: 3, offset });
          t.equal(page.total, all.total, `${text}: total at offset ${offset}`);
          t.ok(page.hits.length === Math.min(3, all.total - offset), `${text}: page size at ${offset}`);
          walked.push(...ids(page));
        }
        t.same(walked, ids(all), `${text}: walked pages`);
        t.equal(new Set(walked).size, walked.length, `${text}: no duplicates`);
        const beyond = await search(p, text, { limit: 3, offset: all.total });
        t.same(beyond.hits, [], `${text}: past the end`);
        t.equal(beyond.total, all.total);
      }
    });

    t.test('when garbage is typed, then nothing throws and a well-formed result comes back', async (t) => {
      const garbage = [
        '"',
        '(',
        ')',
        'AND OR',
        'NOT',
        'NEAR(a b)',
        'title:x',
        '*',
        '-',
        '\\',
        '^',
        ':',
        '"""',
        "'",
        '{}[]',
        'AND',
        'a AND',
        '(αφαλάτωσης',
        'αφαλάτωσης)',
        '"αφαλάτωσης',
        'αφαλάτωσης"',
        '-αφαλάτωσης',
        '+αφαλάτωσης^2',
        '😀',
        '😀 αφαλάτωσης 🚢',
        '\u0000',
        '\u200b',
        ' ',
        '',
        'x'.repeat(2000),
        'αφαλάτωσης '.repeat(200),
        '"'.repeat(2000),
        'a* b* c*',
        '**',
        'α*',
        '*α',
        'content:αφαλάτωσης',
        '{title body}: x',
        'x NEAR/2 y',
        '%',
        '_',
        "'; DROP TABLE docs; --",
        'ΆΈΉΊΌΎΏ ϊϋΐΰ',
      ];
      for (const text of garbage) {
        const r = await search(p, text, { limit: 5 });
        t.ok(Number.isInteger(r.total) && r.total >= 0, `total for ${JSON.stringify(text.slice(0, 20))}`);
        t.ok(Array.isArray(r.hits) && r.hits.length <= 5 && r.hits.length <= r.total, `hits for ${JSON.stringify(text.slice(0, 20))}`);
      }
      // Syntax characters around a word are plain text: the word is still found.
      const plain = sorted(ids(await search(p, 'αφαλάτωσης')));
      for (const text of ['(αφαλάτωσης)', '"αφαλάτωσης', '-αφαλάτωσης', 'αφαλάτωσης!', '«αφαλάτωσης»']) {
        t.same(sorted(ids(await search(p, text))), plain, text);
      }
    });

    t.test('when a word has no letter or digit, then it is ignored like the punctuation between words', async (t) => {
      const plain = sorted(ids(await search(p, 'αφαλάτωσης Σύμης')));
      t.same(plain, ['ted:T01']);
      for (const text of [
        'αφαλάτωσης - Σύμης',
        'αφαλάτωσης – Σύμης',
        'αφαλάτωσης | Σύμης',
        'αφαλάτωσης , Σύμης',
        'αφαλάτωσης ( Σύμης )',
        'αφαλάτωσης 😀 Σύμης',
        'Σύμης : αφαλάτωσης',
        '" - " αφαλάτωσης Σύμης',
      ]) {
        t.same(sorted(ids(await search(p, text))), plain, text);
      }
      // Nothing to search for: no hits, even where `*` alone would match everything.
      for (const text of ['*', '**', '- – |', '😀', '" "']) t.equal((await search(p, text)).total, 0, text);
    });

    t.test('when accents are typed as combining marks, then they fold as precomposed ones do', async (t) => {
      for (const word of ['αφαλάτωσης', 'ΑΠΌΦΑΣΗ', 'Τήλο', 'φωτοβολταϊκού']) {
        const decomposed = word.normalize('NFD');
        t.not(decomposed, word);
        const expected = sorted(ids(await search(p, word)));
        t.ok(expected.length > 0, `${word} is found`);
        t.same(sorted(ids(await search(p, decomposed))), expected, `${word} in NFD`);
      }
    });

    t.test('when a prefix has one character, then it is a plain term', async (t) => {
      for (const [prefix, term] of [
        ['α*', 'α'],
        ['5*', '5'],
        ['Σ**', 'Σ'],
      ]) {
        t.same(sorted(ids(await search(p, prefix))), sorted(ids(await search(p, term))), prefix);
      }
      t.ok((await search(p, 'αφαλ*')).total > 0, 'a two-character or longer prefix still is one');
    });

    t.test('when a source is listed, then documents come newest first with source_id breaking ties', async (t) => {
      const expected = bySource('diavgeia')
        .sort(byListingOrder)
        .map((d) => d.source_id);
      const r = await p.list({ source: 'diavgeia', limit: 1000, offset: 0 });
      t.same(ids(r), expected);
      t.equal(r.total, expected.length);
      t.ok(expected.indexOf('diavgeia:D08') + 1 === expected.indexOf('diavgeia:D09'), 'same-second pair in id order');
      const paged: string[] = [];
      for (let offset = 0; offset < r.total; offset += 4) paged.push(...ids(await p.list({ source: 'diavgeia', limit: 4, offset })));
      t.same(paged, expected, 'paged listing');
      t.same(await p.list({ source: 'elstat', limit: 10, offset: 0 }), { total: 0, hits: [] });
    });

    t.test('when since is given, then only documents published after that midnight are listed', async (t) => {
      const cut = Date.parse('2024-06-01T00:00:00Z');
      const expected = bySource('diavgeia')
        .filter((d) => Date.parse(d.published_at) > cut)
        .sort(byListingOrder)
        .map((d) => d.source_id);
      const r = await p.list({ source: 'diavgeia', filters: { since: '2024-06-01' }, limit: 100, offset: 0 });
      t.same(ids(r), expected);
      t.equal(r.total, expected.length);
      t.ok(expected.includes('diavgeia:D07') && !expected.includes('diavgeia:D06'), 'boundary documents');
      const page = await p.list({ source: 'diavgeia', filters: { since: '2024-06-01' }, limit: 1, offset: 1 });
      t.same(ids(page), expected.slice(1, 2));
      t.equal(page.total, expected.length);
    });

    t.test('when a document is fetched, then every field comes back, with its embedding', async (t) => {
      for (const id of ['diavgeia:D01', 'diavgeia:D03', 'mitos:M03']) {
        const want = docs.find((d) => d.source_id === id)!;
        const got = await p.get(id);
        t.ok(got, id);
        if (!got) continue;
        t.same(withoutEmbedding(got), withoutEmbedding(want), id);
        if (want.embedding === null) t.equal(got.embedding ?? null, null, `${id} has no embedding`);
        else {
          t.equal(got.embedding?.length, CONTRACT_DIMENSION);
          t.ok(
            got.embedding!.every((x, i) => Math.abs(x - want.embedding![i]) < 1e-6),
            `${id} embedding`,
          );
        }
      }
      t.equal(await p.get('diavgeia:nope'), null);
    });

    t.test('when neighbours are asked for, then they come by cosine similarity, mapped to 0..1', async (t) => {
      const hits = await p.knn({ vector: axis(0), limit: 5 });
      t.same(ids(hits), ['ted:T02', 'diavgeia:D03', 'kimdis:K02', 'ted:T03', 'diavgeia:D04']);
      const expected = [1, (1 + 1 / Math.sqrt(1.25)) / 2, (1 + Math.SQRT1_2) / 2, 0.5, 0];
      hits.forEach((h, i) => t.ok(Math.abs(h.score - expected[i]) < 1e-4, `score ${i}: ${h.score} ≈ ${expected[i]}`));
      for (const h of hits) t.notOk('embedding' in h.doc);
      const excluded = await p.knn({ vector: axis(0), limit: 2, excludeId: 'ted:T02' });
      t.same(ids(excluded), ['diavgeia:D03', 'kimdis:K02']);
      t.same(ids(await p.knn({ vector: axis(0), limit: 5, filters: { source: 'ted' } })), ['ted:T02', 'ted:T03']);
      t.same(ids(await p.knn({ vector: axis(1), limit: 1 })), ['ted:T03']);
    });

    t.test('when stats are read, then counts, last update and mean quality match the documents', async (t) => {
      const s = await p.stats();
      t.equal(s.total_documents, docs.length);
      for (const source of ['diavgeia', 'kimdis', 'ted', 'mitos', 'rae'] as SourceName[]) {
        const mine = bySource(source);
        const got = s.sources[source];
        t.ok(got, source);
        if (!got) continue;
        t.equal(got.documents, mine.length, `${source} documents`);
        t.equal(Date.parse(got.last_updated ?? ''), Math.max(...mine.map((d) => Date.parse(d.indexed_at))), `${source} last_updated`);
        const mean = mine.reduce((a, d) => a + d.quality_score, 0) / mine.length;
        t.ok(Math.abs((got.avg_quality ?? -1) - mean) < 1e-6, `${source} avg_quality ${got.avg_quality} ≈ ${mean}`);
      }
      t.equal(s.sources.elstat?.documents ?? 0, 0);
    });
  });

  t.test(`${name}: when a document is written again, then it is overwritten by source_id`, async (t) => {
    const { provider: p, cleanup } = await open();
    t.teardown(cleanup);
    const docs = fixtures();
    await load(p, docs);
    const before = await p.stats();
    const d10 = docs.find((d) => d.source_id === 'diavgeia:D10')!;
    const changed = {
      ...d10,
      title: 'Τεχνική έκθεση ξενοδοχειακής μονάδας',
      content: 'Χωρίς λιμενικές εργασίες.',
      published_at: '2025-02-01T00:00:00Z',
      quality_score: 0.99,
    };
    t.same(await p.upsert([changed]), { written: 1, failed: [] });
    await p.refresh();
    t.same(ids(await search(p, 'κυματοθραύστη')), ['diavgeia:D05'], 'old words are gone');
    t.same(ids(await search(p, 'ξενοδοχειακής')), ['diavgeia:D10'], 'new words are found once');
    const after = await p.stats();
    t.equal(after.total_documents, before.total_documents, 'no duplicate');
    t.equal(after.sources.diavgeia?.documents, before.sources.diavgeia?.documents);
    const diavgeia = docs.filter((d) => d.source === 'diavgeia');
    const mean = (diavgeia.reduce((a, d) => a + d.quality_score, 0) - d10.quality_score + 0.99) / diavgeia.length;
    t.ok(Math.abs((after.sources.diavgeia?.avg_quality ?? -1) - mean) < 1e-6, 'mean quality follows the overwrite');
    const listed = await p.list({ source: 'diavgeia', limit: 100, offset: 0 });
    t.equal(listed.hits[0].doc.source_id, 'diavgeia:D10', 'moved to the top by its new date');
    t.equal(ids(listed).filter((id) => id === 'diavgeia:D10').length, 1);
    t.equal((await p.get('diavgeia:D10'))?.title, changed.title);
    const again = await p.upsert([changed, { ...changed, summary: 'δεύτερη εκδοχή' }]);
    t.equal(again.written, 2);
    await p.refresh();
    t.equal((await p.stats()).total_documents, before.total_documents, 'a batch repeating one id leaves one copy');
    t.equal((await p.get('diavgeia:D10'))?.summary, 'δεύτερη εκδοχή', 'the last one wins');
  });

  t.test(
    `${name}: when a content runs past the snippet text's cap, then the snippet view carries its opening, and a word past the cap gets a snippet of that opening`,
    async (t) => {
      const { provider: p, cleanup } = await open();
      t.teardown(cleanup);
      const filler = 'Εισαγωγή κειμένου χωρίς σημασία για την αναζήτηση. ';
      const long = fx('diavgeia:L01', '2025-01-01T10:00:00Z', 'Πρόσκληση', `Η πρόσκληση αφορά ${filler.repeat(40)}Στο τέλος αναφέρεται ο κυματοθραύστης.`);
      await load(p, [long]);
      for (const text of ['πρόσκληση', 'κυματοθραύστης']) {
        const [hit] = (await p.search({ text, limit: 10, offset: 0, view: 'snippet' })).hits;
        t.equal(hit?.doc.source_id, 'diavgeia:L01', `${text}: found, wherever the word is`);
        t.ok(hit.snippetText!.length <= SNIPPET_TEXT_CHARS + 1, `${text}: the text is capped (${hit.snippetText!.length})`);
        t.match(hit.snippetText, /^Η πρόσκληση αφορά Εισαγωγή .*…$/, `${text}: its opening, cut`);
      }
      const [hit] = (await p.search({ text: 'κυματοθραύστης', limit: 10, offset: 0, view: 'snippet' })).hits;
      const snippet = snippetOf(hit.doc.title, hit.snippetText, queryMatcher('κυματοθραύστης'));
      t.match(snippet, /^Η πρόσκληση αφορά Εισαγωγή κειμένου/, 'the opening');
      t.notOk(snippet.includes('<mark>'), 'nothing to mark in it');
    },
  );

  t.test(`${name}: rebuilding a source`, async (t) => {
    const { provider: p, cleanup } = await open();
    t.teardown(cleanup);
    const docs = fixtures();
    await load(p, docs);
    const oldMitos = docs
      .filter((d) => d.source === 'mitos')
      .sort(byListingOrder)
      .map((d) => d.source_id);
    const others = async () =>
      Promise.all((['diavgeia', 'kimdis', 'ted', 'rae'] as SourceName[]).map(async (source) => ids(await p.list({ source, limit: 100, offset: 0 }))));
    const othersBefore = await others();
    const m01 = docs.find((d) => d.source_id === 'mitos:M01')!;
    const next: IndexedDocument[] = [
      { ...m01, title: 'ΔΗΜΟΣ ΧΑΝΙΩΝ ΑΝΑΝΕΩΜΕΝΗ ΔΙΑΔΙΚΑΣΙΑ ΑΔΕΙΑΣ' },
      {
        ...m01,
        source_id: 'mitos:M04',
        published_at: '2024-12-01T00:00:00Z',
        title: 'Έκδοση πιστοποιητικού οικογενειακής κατάστασης',
        content: 'Ηλεκτρονική αίτηση μέσω της ενιαίας ψηφιακής πύλης.',
        embedding: axis(2),
      },
    ];

    t.test('when the batches fail midway, then the old generation keeps serving', async (t) => {
      async function* failing(): AsyncGenerator<IndexedDocument[]> {
        yield next.slice(0, 1);
        throw new Error('upstream went away');
      }
      await t.rejects(p.rebuild('mitos', failing()), /upstream went away/);
      await p.refresh();
      t.same(ids(await p.list({ source: 'mitos', limit: 100, offset: 0 })), oldMitos);
      t.same(ids(await search(p, 'φωτισμού')), ['mitos:M02'], 'old documents are still searchable');
      t.equal((await search(p, 'ΑΝΑΝΕΩΜΕΝΗ')).total, 0, 'nothing of the failed generation shows');
      t.equal((await p.stats()).sources.mitos?.documents, oldMitos.length);
    });

    t.test('when a rebuild completes, then the source holds exactly the new documents', async (t) => {
      let seenMidway: string[] | null = null;
      let foundMidway = -1;
      async function* batches(): AsyncGenerator<IndexedDocument[]> {
        yield next.slice(0, 1);
        // Between batches, readers still see the old generation, whole.
        seenMidway = ids(await p.list({ source: 'mitos', limit: 100, offset: 0 }));
        foundMidway = (await search(p, 'ΑΝΑΝΕΩΜΕΝΗ')).total;
        yield next.slice(1);
      }
      const first = await p.rebuild('mitos', batches());
      await p.refresh();
      t.same(seenMidway, oldMitos, 'midway: the old listing');
      t.equal(foundMidway, 0, 'midway: new words not yet visible');
      t.equal(first.source, 'mitos');
      t.equal(first.documents, 2);
      t.ok(first.index.length > 0);
      t.same(ids(await p.list({ source: 'mitos', limit: 100, offset: 0 })), ['mitos:M04', 'mitos:M01']);
      t.same(ids(await search(p, 'πιστοποιητικού')), ['mitos:M04']);
      t.same(ids(await search(p, 'ΑΝΑΝΕΩΜΕΝΗ')), ['mitos:M01']);
      t.equal((await search(p, 'φωτισμού')).total, 0, 'documents left out of the rebuild are gone');
      t.same(ids(await p.knn({ vector: axis(2), limit: 1, filters: { source: 'mitos' } })), ['mitos:M04'], 'vectors moved too');
      t.equal((await p.stats()).sources.mitos?.documents, 2);
      t.same(await others(), othersBefore, 'other sources untouched');

      const second = await p.rebuild('mitos', batchesOf(next.slice(1), 10));
      await p.refresh();
      t.equal(second.documents, next.slice(1).length, "a second rebuild replaces the first one's generation");
      t.same(ids(await p.list({ source: 'mitos', limit: 100, offset: 0 })), ['mitos:M04']);
    });
  });

  t.test(
    `${name}: when every source is rebuilt under concurrent reads while one source is ingested, then no read fails, each source holds what was loaded plus what was ingested, and all of it is searchable after the swap`,
    async (t) => {
      const { provider: p, cleanup } = await open();
      t.teardown(cleanup);
      const docs = fixtures();
      await load(p, docs);
      // The store's records: every fixture but one of diavgeia's (a document the store no longer holds
      // leaves with the rebuild), each title marked so the new generation shows.
      const dropped = docs.find((d) => d.source === 'diavgeia')!;
      const stored = docs.filter((d) => d !== dropped).map((d) => ({ ...d, title: `${d.title} Ανανέωση`, content_hash: `${d.content_hash}-2` }));
      const expected = new Map<string, number>();
      for (const d of stored) expected.set(d.source, (expected.get(d.source) ?? 0) + 1);
      const ingested: IndexedDocument[] = [];
      let rebuilding = true;
      let reads = 0;
      const readFailures: unknown[] = [];
      const readers = Array.from({ length: 2 }, async () => {
        while (rebuilding) {
          try {
            await p.search({ text: 'Ανανέωση', limit: 10, offset: 0 });
            await p.list({ source: 'kimdis', limit: 10, offset: 0 });
            reads++;
          } catch (err) {
            readFailures.push(err);
          }
          await new Promise((resolve) => setImmediate(resolve));
        }
      });
      // An ingest of ted through the whole rebuild, its swap included: indexed_at is the time of the write.
      const writeFailures: unknown[] = [];
      const writer = (async () => {
        for (let i = 0; rebuilding; i++) {
          const d = fx(`ted:Τ${String(i).padStart(4, '0')}`, '2025-02-01T00:00:00Z', `Προμήθεια ζιρκονίου ${i}`, 'Ράβδοι ζιρκονίου για εργαστήρια.', {
            indexed_at: new Date().toISOString(),
          });
          const r = await sink(p, [d]);
          writeFailures.push(...r.failed);
          if (r.written === 1) ingested.push(d);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      async function* slowly(): AsyncGenerator<IndexedDocument[]> {
        for (const d of stored) {
          // Each batch waits for an ingested document and a read, so the three interleave.
          const [w, r] = [ingested.length, reads];
          while (ingested.length === w || reads === r) await new Promise((resolve) => setImmediate(resolve));
          yield [d];
        }
      }
      const result = await p.rebuild('all', slowly());
      // Reads and writes go on for a moment past the swap.
      const [w, r] = [ingested.length, reads];
      while (ingested.length < w + 2 || reads < r + 2) await new Promise((resolve) => setImmediate(resolve));
      rebuilding = false;
      await Promise.all([writer, ...readers]);
      await p.refresh();
      t.same(readFailures, [], `no read failed (${reads} reads)`);
      t.same(writeFailures, [], 'no write was lost by the sink');
      t.ok(ingested.length > stored.length, `writes ran during the rebuild (${ingested.length})`);
      t.equal(result.source, 'all');
      t.equal(result.bySource.kimdis, expected.get('kimdis'), 'the counts of the swapped generation, per source');
      t.ok((result.bySource.ted ?? 0) > (expected.get('ted') ?? 0), "ted's with what was ingested before the swap");
      expected.set('ted', (expected.get('ted') ?? 0) + ingested.length);
      const stats = await p.stats();
      for (const [source, n] of expected) {
        t.equal(stats.sources[source as SourceName]?.documents, n, `${source}: count`);
        t.equal((await p.list({ source: source as SourceName, limit: 0, offset: 0 })).total, n, `${source}: listed`);
      }
      t.equal((await search(p, 'Ανανέωση')).total, stored.length, 'the new generation serves');
      t.equal((await search(p, 'ζιρκονίου', { source: 'ted', limit: 0 })).total, ingested.length, 'every document ingested during the rebuild is searchable');
      t.equal(await p.get(dropped.source_id), null, 'a document the store no longer holds is gone');
    },
  );
}
