// The API contract of ask and similar documents, run against each engine by semantic-embedded.test.ts
// and semantic-elasticsearch.test.ts. Vectors are the test app's embedder's (the lexical fallback).
import { createHash } from 'node:crypto';
import type { Test } from 'tap';
import { METADATA_FIELDS, type IndexedDocument } from '../../index-mappings/document.js';
import { documentText } from '../../lib/embedding/index.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import type { SourceName } from '../../index-mappings/sources.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { makeDoc } from '../helpers/elasticsearch.js';

const embedder = new HashingEmbedder();
const SIMILAR_KEYS = [...METADATA_FIELDS, 'similarity'].sort();

/** A document with its own content hash and, unless `vector: false`, its fallback embedding. */
function doc(source: SourceName, id: string, fields: Partial<IndexedDocument>, vector = true): IndexedDocument {
  const d = makeDoc(source, id, { content_hash: createHash('sha256').update(`${source}:${id}`).digest('hex'), ...fields });
  d.embedding = vector ? embedder.embedOne(documentText(d)) : null;
  return d;
}

export function corpus(): IndexedDocument[] {
  const docs: IndexedDocument[] = [];
  for (let i = 0; i < 6; i++) {
    docs.push(
      doc('ted', `0065432${i}-2025`, {
        title: `Road construction works contract ${i}`,
        summary: 'Contract award notice for road construction in Attica.',
        content: 'Contract award notice for road construction in Attica. Asphalt paving of the regional road network.',
        language: 'en',
        country: 'EU',
      }),
    );
  }
  for (let i = 0; i < 8; i++) {
    docs.push(
      doc('diavgeia', `ΚΑΘ${i}ΑΒΓ-ΔΕΖ`, {
        title: `Ανάθεση σύμβασης καθαριότητας σχολικών μονάδων ${i}`,
        summary: 'Απόφαση ανάθεσης υπηρεσιών καθαριότητας σχολείων του δήμου.',
        content: 'Η απόφαση αφορά την ανάθεση υπηρεσιών καθαριότητας στις σχολικές μονάδες του δήμου.',
      }),
    );
  }
  for (let i = 0; i < 5; i++) {
    docs.push(
      doc('kimdis', `25SYMV00000010${i}`, {
        title: `Σύμβαση συντήρησης οδοφωτισμού ${i}`,
        summary: 'Σύμβαση για υπηρεσίες συντήρησης δικτύου οδοφωτισμού.',
        content: 'Σύμβαση για υπηρεσίες συντήρησης του δικτύου οδοφωτισμού του δήμου.',
        doc_type: 'contract',
      }),
    );
  }
  // Ordinary documents, so that the words above are rare, as in a real index (BM25 is per source on
  // the embedded engine, and a word in most documents of a source weighs next to nothing).
  for (const [source, prefix] of [
    ['diavgeia', 'ΕΓΚ'],
    ['kimdis', '25SYMV00000030'],
    ['ted', '0077000'],
  ] as const) {
    for (let i = 0; i < 20; i++) {
      docs.push(
        doc(source, `${prefix}${i}${source === 'ted' ? '-2025' : ''}`, {
          title: `Έγκριση δαπάνης για προμήθεια γραφικής ύλης ${i}`,
          summary: 'Δαπάνη για προμήθεια γραφικής ύλης.',
          content: 'Δαπάνη για προμήθεια γραφικής ύλης και χαρτιού φωτοτυπικού.',
        }),
      );
    }
  }
  // The answer to a question sits in the middle of the content, after unrelated opening sentences.
  docs.push(
    doc('diavgeia', 'ΛΙΜ1ΑΒΓ-ΔΕΖ', {
      title: 'Annual report of the port authority',
      summary: 'Yearly report of the port authority.',
      content:
        'Introduction and general remarks about the organisation and its staff. ' +
        'The harbour dredging works were awarded to Marine Works SA for 2 million euros. ' +
        'Closing remarks and signatures of the board.',
      language: 'en',
    }),
  );
  // Similar documents: a target, a near neighbour, and two exact duplicates of the target.
  const hospital = {
    title: 'Supply of hospital beds for the general hospital of Patras',
    summary: 'Contract for the supply of 120 electric hospital beds.',
    content: 'Contract for the supply of 120 electric hospital beds with mattresses for the general hospital of Patras.',
    language: 'en',
  };
  const target = doc('kimdis', '25SYMV000000200', hospital);
  docs.push(target);
  docs.push(
    doc('kimdis', '25SYMV000000201', {
      ...hospital,
      title: 'Supply of hospital beds for the general hospital of Larisa',
      content: 'Contract for the supply of 120 electric hospital beds with mattresses for the general hospital of Larisa.',
    }),
  );
  docs.push(doc('kimdis', '25SYMV000000202', { ...hospital, title: 'Supply of beds', content_hash: target.content_hash }));
  docs.push(doc('ted', '00999999-2025', hospital));
  // Without vectors: one that shares words with others, one whose words no other document has.
  docs.push(
    doc(
      'diavgeia',
      'ΑΝΑ1ΑΒΓ-ΔΕΖ',
      {
        title: 'Ανάθεση σύμβασης καθαριότητας νηπιαγωγείων',
        summary: 'Υπηρεσίες καθαριότητας σχολικών μονάδων.',
        content: 'Ανάθεση υπηρεσιών καθαριότητας σε νηπιαγωγεία και σχολικές μονάδες.',
      },
      false,
    ),
  );
  docs.push(
    doc(
      'diavgeia',
      'ΜΟΝ1ΑΒΓ-ΔΕΖ',
      {
        title: 'Ξυλόγλυπτα κειμήλια μοναστηριού',
        summary: 'Καταγραφή ξυλόγλυπτων κειμηλίων.',
        content: 'Καταγραφή ξυλόγλυπτων κειμηλίων.',
      },
      false,
    ),
  );
  return docs;
}

/** ΑΦΜ with valid check digits: a supplier of twelve contracts, and one of a single contract. */
const BUSY_SUPPLIER = '094914368';
const ONE_CONTRACT = '090273846';
const DECISION = 'ΩΡΘ1ΑΒΓ-ΔΕΖ';

/**
 * Documents ask finds by the identifiers they carry, in the index and in the entity index: their words
 * are the corpus's most common (stationery), so neither leg ranks them first on their own.
 */
export function namedCorpus(): IndexedDocument[] {
  const stationery = {
    summary: 'Δαπάνη για προμήθεια γραφικής ύλης.',
    content: 'Δαπάνη για προμήθεια γραφικής ύλης και χαρτιού φωτοτυπικού.',
    doc_type: 'contract',
  };
  const busy = { role: 'supplier' as const, name: 'ΓΡΑΦΙΚΗ ΥΛΗ ΠΑΠΑΔΟΠΟΥΛΟΥ ΟΕ', afm: BUSY_SUPPLIER };
  const docs = Array.from({ length: 12 }, (_, i) =>
    doc('kimdis', `25SYMV00000050${String(i).padStart(2, '0')}`, {
      ...stationery,
      title: `Προμήθεια γραφικής ύλης ${i}`,
      published_at: `2025-0${1 + (i % 9)}-${10 + i}T10:00:00Z`,
      parties: [busy],
      entities: { afm: [BUSY_SUPPLIER], ada: [], names: [busy.name] },
    }),
  );
  const one = { role: 'supplier' as const, name: 'ΧΑΡΤΟΠΩΛΕΙΟ ΑΙΓΑΙΟΥ ΑΕ', afm: ONE_CONTRACT };
  docs.push(
    doc('kimdis', '25SYMV0000006000', {
      ...stationery,
      title: 'Προμήθεια χαρτιού',
      parties: [one],
      entities: { afm: [ONE_CONTRACT], ada: [], names: [one.name] },
    }),
    doc('diavgeia', DECISION, { ...stationery, title: 'Έγκριση δαπάνης γραφικής ύλης', entities: { afm: [], ada: [DECISION], names: [] } }),
    ...[1, 2].map((i) =>
      doc('diavgeia', `ΚΩΔ${i}ΑΒΓ-ΔΕΖ`, {
        ...stationery,
        title: `Έγκριση δαπάνης γραφικής ύλης ${i}`,
        content: `${stationery.content}\nCPV: 30192000`,
        cpv: ['30192000'],
        published_at: `2025-0${i}-01T10:00:00Z`,
      }),
    ),
  );
  return docs;
}

/** Greek-only documents an English question finds through its translation: by an official CPV label, and by the lexicon alone. */
export const LIFTS = 'kimdis:25SYMV0000007001';
const MOSQUITOES = 'diavgeia:ΚΟΥ1ΑΒΓ-ΔΕΖ';
export function translatedCorpus(): IndexedDocument[] {
  return [
    doc('kimdis', '25SYMV0000007001', {
      title: 'Συντήρηση ανελκυστήρων του δημαρχείου',
      summary: 'Σύμβαση συντήρησης ανελκυστήρων.',
      content: 'Σύμβαση για τη συντήρηση των ανελκυστήρων του δημαρχείου για ένα έτος.',
      doc_type: 'contract',
    }),
    doc('diavgeia', 'ΚΟΥ1ΑΒΓ-ΔΕΖ', {
      title: 'Ψεκασμοί για τα κουνούπια στις λίμνες του δήμου',
      summary: 'Ανάθεση ψεκασμών.',
      content: 'Ανάθεση ψεκασμών κατά των κουνουπιών στις λίμνες και τα κανάλια του δήμου.',
    }),
  ];
}

const ask = (app: TestApp, key: string, body: unknown) => app.request('/v1/ask', { key, method: 'POST', body });

export function semanticContract(t: Test, engine: string, open: (t: Test) => Promise<SearchProvider>): void {
  t.test(`${engine}: ask and similar API contract`, async (t) => {
    const search = await open(t);
    const app = await startTestApp(t, { search });
    const named = namedCorpus();
    const result = await search.upsert([...corpus(), ...named, ...translatedCorpus()]);
    t.equal(result.failed.length, 0);
    await search.refresh();
    // The entity index, as ingest writes it beside the documents.
    app.documents.save(named.map(({ embedding: _e, ...d }) => ({ doc: d, content_hash: d.content_hash, original: null, indexed_at: d.indexed_at })));
    const ent = app.key('enterprise');
    const pro = app.key('pro');

    t.test('when asking, then the sources answer the question, relevance falls in 0..1, and the answer is the placeholder', async (t) => {
      const res = await ask(app, ent, { question: 'road construction contracts in Attica' });
      t.equal(res.status, 200);
      t.same(Object.keys(res.body).sort(), ['answer', 'context_preview', 'question', 'sources']);
      t.equal(res.body.question, 'road construction contracts in Attica');
      t.equal(res.body.sources.length, 5, 'limit defaults to 5');
      t.equal(res.body.answer, 'Found 5 relevant documents. Generated answers are not yet available.');
      for (const s of res.body.sources) {
        t.same(Object.keys(s).sort(), ['relevance', 'source', 'source_id', 'title']);
        t.ok(s.relevance > 0 && s.relevance <= 1, `relevance ${s.relevance}`);
        t.equal(s.source, 'ted', s.title);
      }
      const relevances = res.body.sources.map((s: { relevance: number }) => s.relevance);
      t.same(
        relevances,
        [...relevances].sort((a, b) => b - a),
        'best first',
      );
    });

    t.test('when asking in Greek with a limit, then that many sources, Greek documents first', async (t) => {
      const res = await ask(app, ent, { question: 'Ποιες συμβάσεις καθαριότητας σχολικών μονάδων ανατέθηκαν;', limit: 3 });
      t.equal(res.status, 200);
      t.equal(res.body.sources.length, 3);
      for (const s of res.body.sources) t.match(s.title, /καθαριότητας/);
      t.equal(res.body.answer, 'Found 3 relevant documents. Generated answers are not yet available.');
    });

    t.test('when a question names an ΑΦΜ, an ΑΔΑ or a party by name, then the documents carrying it lead the sources, the newest first', async (t) => {
      const newest = (afm: string) =>
        named
          .filter((d) => d.parties.some((p) => p.afm === afm))
          .sort((a, b) => (a.published_at < b.published_at ? 1 : -1))
          .map((d) => d.source_id);
      const ids = (res: { body: { sources: { source_id: string; relevance: number }[] } }) => res.body.sources.map((s) => s.source_id);
      const byAfm = await ask(app, ent, { question: `Ποιες αποφάσεις και συμβάσεις αφορούν τον ΑΦΜ ${BUSY_SUPPLIER};`, limit: 10 });
      t.equal(byAfm.status, 200);
      t.same(ids(byAfm), newest(BUSY_SUPPLIER).slice(0, 10), 'ten of its twelve, the newest first');
      t.ok(
        byAfm.body.sources.every((s: { relevance: number }) => s.relevance === 1),
        'each at relevance 1',
      );
      const single = await ask(app, ent, { question: `contracts of VAT number ${ONE_CONTRACT}`, limit: 5 });
      t.same(ids(single).slice(0, 1), newest(ONE_CONTRACT), 'its one contract first');
      const byAda = await ask(app, ent, { question: `What does decision ${DECISION} approve?`, limit: 3 });
      t.equal(ids(byAda)[0], `diavgeia:${DECISION}`);
      const byName = await ask(app, ent, { question: 'Τι προμήθευσε η Γραφική Ύλη Παπαδοπούλου στους δήμους;', limit: 5 });
      t.same(ids(byName), newest(BUSY_SUPPLIER).slice(0, 5), 'a name as written in any case and accent, its legal form left out');
      const byCode = await ask(app, ent, { question: 'office supplies under CPV 30192000-1', limit: 3 });
      t.same(ids(byCode).slice(0, 2), ['diavgeia:ΚΩΔ2ΑΒΓ-ΔΕΖ', 'diavgeia:ΚΩΔ1ΑΒΓ-ΔΕΖ'], 'a CPV code with its check digit');
    });

    t.test('when an English question names what Greek documents hold, then ask finds them through its translation', async (t) => {
      const sources = async (question: string) =>
        (await ask(app, ent, { question, limit: 5 })).body.sources.map((s: { source_id: string }) => s.source_id) as string[];
      t.ok((await sources('Which contracts cover lift maintenance?')).includes(LIFTS), 'by the Greek label of the CPV code "Lift-maintenance services"');
      t.ok((await sources('mosquito spraying on the lakes')).includes(MOSQUITOES), 'by the lexicon alone (mosquito: κουνούπι)');
    });

    t.test('when a search asks for translation, then an English query finds the Greek documents too; without it, search stays exact', async (t) => {
      const searched = async (query: string) => (await app.request(`/v1/search?${query}`, { key: ent })).body;
      const exact = await searched('q=lift%20maintenance');
      t.equal(exact.total, 0, 'no document holds the English words');
      const translated = await searched('q=lift%20maintenance&translate=true&facets=source');
      t.same(
        translated.results.map((r: { source_id: string }) => r.source_id),
        [LIFTS],
      );
      t.match(translated.results[0].snippet, /<mark>/, 'the snippet marks what matched');
      t.same(
        translated.facets.source,
        [{ key: 'kimdis', label: translated.facets.source[0].label, label_el: null, documents: 1 }],
        'facets count the same match',
      );
      t.same((await searched('q=lift%20maintenance&translate=false')).total, 0);
      const refused = await app.request('/v1/search?q=lift&translate=yes', { key: ent });
      t.equal(refused.status, 422);
      t.same(refused.body, { detail: 'translate must be true or false' });
    });

    t.test('when the answer sits mid-document, then context_preview carries that passage, not the opening', async (t) => {
      const res = await ask(app, ent, { question: 'Who got the harbour dredging works?', limit: 5 });
      t.equal(res.status, 200);
      const n = res.body.sources.findIndex((s: { source_id: string }) => s.source_id === 'diavgeia:ΛΙΜ1ΑΒΓ-ΔΕΖ') + 1;
      t.ok(n > 0, 'the report is a source');
      t.match(res.body.context_preview, new RegExp(`(^|\\n\\n)\\[${n}\\] The harbour dredging works were awarded to Marine Works SA`));
      t.notMatch(res.body.context_preview, /Introduction and general remarks/);
    });

    t.test('when a model from /v1/models is named, then it is accepted', async (t) => {
      const models = (await app.request('/v1/models')).body.models.map((m: { id: string }) => m.id);
      const res = await ask(app, ent, { question: 'road works', model: models[1], limit: 1 });
      t.equal(res.status, 200);
    });

    t.test('when a field of the body is bad, then 422 naming it', async (t) => {
      const cases: [unknown, RegExp][] = [
        [{}, /^question is required$/],
        [{ question: null }, /^question is required$/],
        [{ question: 42 }, /^question must be a string$/],
        [{ question: '   ' }, /^question must not be empty$/],
        [{ question: 'x'.repeat(1001) }, /^question must be at most 1000 characters$/],
        [{ question: 'roads', limit: 0 }, /^limit must be an integer from 1 to 20$/],
        [{ question: 'roads', limit: 21 }, /^limit must be an integer from 1 to 20$/],
        [{ question: 'roads', limit: 2.5 }, /^limit must be an integer from 1 to 20$/],
        [{ question: 'roads', limit: '5' }, /^limit must be an integer from 1 to 20$/],
        [{ question: 'roads', model: 'acme/nothing' }, /^model must be one of the ids listed by GET \/v1\/models: /],
        [{ question: 'roads', model: 7 }, /^model must be one of the ids listed by GET \/v1\/models: /],
        [['roads'], /^Request body must be a JSON object with a question$/],
        ['roads', /^Request body must be a JSON object with a question$/],
      ];
      for (const [body, detail] of cases) {
        const res = await ask(app, ent, body);
        t.equal(res.status, 422, JSON.stringify(body).slice(0, 60));
        t.match(res.body.detail, detail, JSON.stringify(body).slice(0, 60));
      }
      const none = await app.request('/v1/ask', { key: ent, method: 'POST' });
      t.equal(none.status, 422);
      t.same(none.body, { detail: 'question is required' });
      const notJson = await app.request('/v1/ask', { key: ent, method: 'POST', rawBody: '{"question":', headers: { 'Content-Type': 'application/json' } });
      t.equal(notJson.status, 400);
    });

    t.test('when a Pro or Free key calls ask or similar, then 403 naming Enterprise', async (t) => {
      for (const key of [pro, app.key('free')]) {
        const a = await ask(app, key, { question: 'roads' });
        t.equal(a.status, 403);
        t.same(a.body, { detail: 'This feature requires an Enterprise subscription' });
        const s = await app.request('/v1/similar/ted:00654320-2025', { key });
        t.equal(s.status, 403);
      }
    });

    t.test('when similar documents are asked for, then neighbours by vector, without the document and its exact duplicates', async (t) => {
      const res = await app.request(`/v1/similar/${encodeURIComponent('kimdis:25SYMV000000200')}`, { key: ent });
      t.equal(res.status, 200);
      t.same(Object.keys(res.body).sort(), ['results', 'source_id', 'total']);
      t.equal(res.body.source_id, 'kimdis:25SYMV000000200');
      t.equal(res.body.total, res.body.results.length);
      t.equal(res.body.results.length, 10, 'limit defaults to 10');
      const ids = res.body.results.map((r: { source_id: string }) => r.source_id);
      t.equal(ids[0], 'kimdis:25SYMV000000201', 'the near neighbour first');
      t.notOk(ids.includes('kimdis:25SYMV000000200'), 'not itself');
      t.notOk(ids.includes('kimdis:25SYMV000000202'), 'not a copy with its content hash');
      t.notOk(ids.includes('ted:00999999-2025'), 'not a copy with its text');
      for (const r of res.body.results) {
        t.same(Object.keys(r).sort(), SIMILAR_KEYS);
        t.ok(r.similarity >= 0 && r.similarity <= 1, `similarity ${r.similarity}`);
      }
      const sims = res.body.results.map((r: { similarity: number }) => r.similarity);
      t.same(
        sims,
        [...sims].sort((a, b) => b - a),
        'most similar first',
      );
      t.ok(sims[0] > 0.8, `near neighbour ${sims[0]}`);
    });

    t.test('when similar takes a limit or the e_procurement alias, then it honours them', async (t) => {
      const res = await app.request(`/v1/similar/${encodeURIComponent('e_procurement:25SYMV000000200')}?limit=3`, { key: ent });
      t.equal(res.status, 200);
      t.equal(res.body.source_id, 'kimdis:25SYMV000000200');
      t.equal(res.body.results.length, 3);
      t.equal(res.body.total, 3);
    });

    t.test('when a document has no vector, then similar falls back to its text', async (t) => {
      const res = await app.request(`/v1/similar/${encodeURIComponent('diavgeia:ΑΝΑ1ΑΒΓ-ΔΕΖ')}?limit=5`, { key: ent });
      t.equal(res.status, 200);
      t.equal(res.body.results.length, 5);
      for (const r of res.body.results) {
        t.match(r.title, /καθαριότητας/);
        t.not(r.source_id, 'diavgeia:ΑΝΑ1ΑΒΓ-ΔΕΖ');
        t.ok(r.similarity > 0 && r.similarity <= 1, `similarity ${r.similarity}`);
      }
    });

    t.test('when nothing is like the document, then 200 with no results', async (t) => {
      const res = await app.request(`/v1/similar/${encodeURIComponent('diavgeia:ΜΟΝ1ΑΒΓ-ΔΕΖ')}`, { key: ent });
      t.equal(res.status, 200);
      t.same(res.body, { source_id: 'diavgeia:ΜΟΝ1ΑΒΓ-ΔΕΖ', results: [], total: 0 });
    });

    t.test('when similar gets a bad limit or an unknown document, then 422 or 404', async (t) => {
      for (const limit of ['0', '101', 'ten', '1.5', '']) {
        const res = await app.request(`/v1/similar/ted:00654320-2025?limit=${limit}`, { key: ent });
        t.equal(res.status, 422, `limit=${limit}`);
        t.same(res.body, { detail: 'limit must be an integer from 1 to 100' }, `limit=${limit}`);
      }
      const blank = await app.request('/v1/similar/%20', { key: ent });
      t.equal(blank.status, 422);
      t.same(blank.body, { detail: 'source_id must not be empty' });
      const unknown = await app.request('/v1/similar/ted:00000000-2099', { key: ent });
      t.equal(unknown.status, 404);
      t.same(unknown.body, { detail: 'Document not found: ted:00000000-2099' });
    });

    t.test('when the index is empty, then ask finds nothing and says so', async (t) => {
      const empty = await startTestApp(t, { search: await open(t) });
      const key = empty.key('enterprise');
      const res = await ask(empty, key, { question: 'road construction' });
      t.equal(res.status, 200);
      t.same(res.body, {
        question: 'road construction',
        answer: 'Found 0 relevant documents. Generated answers are not yet available.',
        sources: [],
        context_preview: '',
      });
    });
  });
}
