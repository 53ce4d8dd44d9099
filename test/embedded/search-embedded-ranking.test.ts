// Ranking on the embedded engine: prefixes, ties and row-id order, and pages read from the common-term
// lists or from a ranking kept for the next page that equal FTS5's own ranking exactly. Random queries
// over the pruned path are search-embedded-pruned's.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { HotLists } from '../../lib/search/embedded/hot-lists.js';
import { corpus, doc, ids, indexFiles } from '../helpers/embedded-index.js';

const newFile = indexFiles(t);

t.test('when a query is only prefixes, then hits come newest first at a constant score', async (t) => {
  const p = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm' });
  t.teardown(() => p.close());
  await p.upsert([
    doc('ted:a', '2024-01-01T00:00:00Z', 'προμήθεια προμήθεια προμήθεια', 'προμήθεια'),
    doc('kimdis:b', '2024-03-01T00:00:00Z', 'Άλλο', 'προμηθευτής'),
    doc('ted:c', '2024-03-01T00:00:00Z', 'Άλλο', 'προμηθειών'),
    doc('ted:d', '2024-02-01T00:00:00Z', 'Άσχετο', 'τίποτα'),
  ]);
  const r = await p.search({ text: 'ΠΡΟΜΗΘ*', limit: 10, offset: 0 });
  t.same(ids(r.hits), ['kimdis:b', 'ted:c', 'ted:a']);
  t.same(
    r.hits.map((h) => h.score),
    [1, 1, 1],
  );
  t.same(ids((await p.search({ text: 'προμηθ*', limit: 1, offset: 1 })).hits), ['ted:c']);
  t.same(ids((await p.search({ text: 'προμηθ* άλλο', limit: 10, offset: 0 })).hits).sort(), ['kimdis:b', 'ted:c'], 'mixed: ranked, ANDed');
});

t.test('when many documents share one publish second, then row ids are renumbered and order holds', async (t) => {
  const lines: string[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  const p = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', logger });
  t.teardown(() => p.close());
  const at = '2024-05-05T05:05:05Z';
  // Each id sorts between "a" and the previous one, so every insert bisects the same, shrinking gap.
  const sids = ['a', 'b', ...Array.from({ length: 60 }, (_, k) => `a${'1'.repeat(k)}2`)];
  for (const [i, sid] of sids.entries()) {
    await p.upsert([doc(`kimdis:${sid}`, at, `Κοινός τίτλος λέξη${i}`, 'κοινό κείμενο')]);
  }
  t.ok(
    lines.some((l) => l.includes('renumbered a publish-second block')),
    'a renumbering happened',
  );
  const expected = sids.map((s) => `kimdis:${s}`).sort();
  const listed = await p.list({ source: 'kimdis', limit: 100, offset: 0 });
  t.same(ids(listed.hits), expected, 'listing in source_id order');
  t.same(ids((await p.search({ text: 'κοινό', limit: 100, offset: 0 })).hits), expected, 'equal scores in source_id order');
  for (const [i, sid] of sids.entries()) {
    const r = await p.search({ text: `λέξη${i}`, limit: 5, offset: 0 });
    if (r.total !== 1 || r.hits[0].doc.source_id !== `kimdis:${sid}`) t.fail(`λέξη${i} finds ${ids(r.hits)}`);
  }
  t.equal((await p.stats()).total_documents, sids.length);
});

t.test('when identical documents sit in two sources with identical statistics, then the tie goes to source_id', async (t) => {
  const p = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm' });
  t.teardown(() => p.close());
  const corpus = (source: string) => [
    doc(`${source}:1`, '2024-01-01T00:00:00Z', 'Σύμβαση καθαριότητας', 'κτίρια'),
    doc(`${source}:2`, '2024-01-02T00:00:00Z', 'Σύμβαση καθαριότητας', 'κτίρια'),
    doc(`${source}:3`, '2024-01-01T00:00:00Z', 'Άλλο θέμα', 'τίποτα'),
  ];
  await p.upsert([...corpus('ted'), ...corpus('diavgeia')]);
  const r = await p.search({ text: 'καθαριότητας', limit: 10, offset: 0 });
  t.same(ids(r.hits), ['diavgeia:2', 'ted:2', 'diavgeia:1', 'ted:1']);
});

t.test('when the average length drifts after a list was cut, then pages read from it stay exact', async (t) => {
  const listed = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning: { hotMinDf: 1, hotListSize: 250, hotListMax: 400 } });
  const plain = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning: { hotMinDf: Number.POSITIVE_INFINITY } });
  t.teardown(async () => {
    await listed.close();
    await plain.close();
  });
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 50}`).join(' ');
  // At today's average length, short documents with the word once in the title (A) beat long ones that
  // repeat it 6 times (B); once long documents without the word pile up, B wins by far.
  const docs = [
    ...Array.from({ length: 100 }, (_, i) => doc(`ted:A${String(i).padStart(3, '0')}`, '2024-01-01T00:00:00Z', 'ζήτα', filler(3))),
    ...Array.from({ length: 100 }, (_, i) => doc(`ted:B${String(i).padStart(3, '0')}`, '2024-01-01T00:00:00Z', 'άλλο', `${'ζήτα '.repeat(6)}${filler(250)}`)),
    ...Array.from({ length: 100 }, (_, i) => doc(`ted:C${i}`, '2024-01-01T00:00:00Z', 'τίποτα', filler(4))),
  ];
  for (const p of [listed, plain]) await p.upsert(docs);
  await listed.optimize();
  const page = async (p: EmbeddedProvider) => ids((await p.search({ text: 'ζήτα', limit: 5, offset: 0 })).hits);
  t.same(await page(listed), await page(plain), 'before the drift');
  t.match((await page(plain))[0], /^ted:A/, 'short documents first at first');
  const long = Array.from({ length: 300 }, (_, i) => doc(`ted:L${i}`, '2024-01-01T00:00:00Z', 'μακρύ', filler(6000)));
  for (const p of [listed, plain]) await p.upsert(long);
  const before = listed.counters.fromList;
  t.match((await page(plain))[0], /^ted:B/, 'long repeated documents first after the drift');
  t.same(await page(listed), await page(plain), 'after the drift');
  t.equal(listed.counters.fromList, before + 1, 'served from the list (read in full)');
});

// Small lists: most pages need the whole list or fall back to FTS5. Larger lists: pages are certified
// from a prefix of the list read in cost order.
for (const tuning of [
  { hotMinDf: 5, hotListSize: 12, hotListMax: 20 },
  { hotMinDf: 5, hotListSize: 90, hotListMax: 130 },
])
  t.test(`when terms are ranked from their lists (${tuning.hotListSize}), then results equal FTS5 ranking exactly, at every depth`, async (t) => {
    const random = mulberry32(20240611);
    const listed = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning });
    const plain = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning: { hotMinDf: Number.POSITIVE_INFINITY } });
    t.teardown(async () => {
      await listed.close();
      await plain.close();
    });
    const both = async (docs: IndexedDocument[]) => {
      for (const p of [listed, plain]) t.equal((await p.upsert(docs)).written, docs.length);
    };
    const docs = corpus(random, 600);
    for (let i = 0; i < 300; i += 50) await both(docs.slice(i, i + 50));
    await listed.optimize(); // lists for every frequent term, then maintained through the writes below
    for (let i = 300; i < docs.length; i += 50) await both(docs.slice(i, i + 50));
    t.ok(listed.counters.listsBuilt > 20, `lists built (${listed.counters.listsBuilt})`);

    const compare = async (round: string) => {
      const terms = Array.from({ length: 40 }, (_, i) => `λ${i}`);
      let mismatches = 0;
      for (const term of terms) {
        for (const source of [undefined, 'kimdis'] as (SourceName | undefined)[]) {
          for (const [offset, limit] of [
            [0, 5],
            [0, 12],
            [3, 7],
            [10, 10],
            [11, 1],
            [25, 10],
            [200, 50],
            [0, 1000],
          ]) {
            const q = { text: term.toUpperCase(), source, offset, limit };
            const [a, b] = [await listed.search(q), await plain.search(q)];
            const same =
              a.total === b.total &&
              JSON.stringify(a.hits.map((h) => [h.doc.source_id, h.score])) === JSON.stringify(b.hits.map((h) => [h.doc.source_id, h.score]));
            if (!same) {
              mismatches += 1;
              if (mismatches < 4) t.fail(`${round}: ${JSON.stringify(q)}: ${a.total}/${b.total} ${ids(a.hits).slice(0, 5)} vs ${ids(b.hits).slice(0, 5)}`);
            }
          }
        }
      }
      t.equal(mismatches, 0, `${round}: no differences`);
    };
    const fromListBefore = listed.counters.fromList;
    await compare('after the load');
    t.ok(listed.counters.fromList - fromListBefore > 200, `served from lists (${listed.counters.fromList - fromListBefore})`);
    t.equal(plain.counters.fromList, 0, 'the reference never uses lists');

    // Overwrites: new text, new dates, and a drift of the average length (longer documents).
    const rewrites = docs
      .filter(() => random() < 0.3)
      .map((d) => {
        const fresh = corpus(random, 1)[0];
        return { ...d, title: fresh.title, content: `${fresh.content} ${fresh.content}`, published_at: fresh.published_at };
      });
    for (let i = 0; i < rewrites.length; i += 40) await both(rewrites.slice(i, i + 40));
    await compare('after overwrites');
    await compare('after lazy list rebuilds');
    t.equal(HotLists.replicaMismatches, 0, 'FTS5 scores reproduced bit for bit');
  });

t.test(
  'when a client pages on past the first page, then the next pages come from the ranking kept, equal to a fresh ranking, until the index changes',
  async (t) => {
    const file = newFile();
    const tuning = { hotMinDf: Number.POSITIVE_INFINITY };
    const paging = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm', tuning });
    const threads = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm', tuning, readers: 2 });
    t.teardown(async () => {
      await paging.close();
      await threads.close();
    });
    await paging.upsert(corpus(mulberry32(7), 600));
    /** The same page from a provider that has kept nothing. */
    const fresh = async (q: Parameters<EmbeddedProvider['search']>[0]) => {
      const p = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm', tuning });
      try {
        return await p.search(q);
      } finally {
        await p.close();
      }
    };
    const same = (a: { total: number; hits: { doc: { source_id: string }; score: number }[] }, b: typeof a) =>
      a.total === b.total && JSON.stringify(a.hits.map((h) => [h.doc.source_id, h.score])) === JSON.stringify(b.hits.map((h) => [h.doc.source_id, h.score]));

    for (const text of ['λ0', 'λ1 λ2', 'λ1*']) {
      const limit = 7;
      const { total } = await fresh({ text, limit: 1, offset: 0 });
      t.ok(total > 100, `${text}: ${total} matches`);
      const ranked = paging.counters.rankedByFts;
      const kept = paging.counters.fromRanking;
      let pages = 0;
      let differing = 0;
      for (let offset = 0; offset < total; offset += limit) {
        pages += 1;
        const q = { text, limit, offset };
        if (!same(await paging.search(q), await fresh(q))) differing += 1;
      }
      t.equal(differing, 0, `${text}: every page equals a fresh ranking`);
      const fromRanking = paging.counters.fromRanking - kept;
      t.ok(fromRanking >= pages - 8, `${text}: ${fromRanking} of ${pages} pages came from a kept ranking`);
      t.ok(paging.counters.rankedByFts - ranked < 8 * 3, `${text}: ranked by FTS5 only as the pages went deeper`);
    }

    const q = { text: 'λ0', limit: 7, offset: 14 };
    await paging.search({ ...q, offset: 7 });
    const kept = paging.counters.fromRanking;
    await paging.upsert([doc('ted:newest', '2030-01-01T00:00:00Z', 'λ0 λ0 λ0', 'λ0 λ0')]);
    const after = await paging.search(q);
    t.equal(paging.counters.fromRanking, kept, 'a write in between: ranked afresh');
    t.ok(same(after, await fresh(q)), 'and the page includes the write');

    // Through the reader threads, as the API runs it: each thread keeps its own rankings.
    let fromThreads = 0;
    for (let offset = 7; offset < 300; offset += 7) {
      const page = { text: 'λ3', limit: 7, offset };
      if (!same(await threads.search(page), await fresh(page))) t.fail(`threads: ${JSON.stringify(page)} differs`);
      fromThreads = threads.counters.fromRanking;
    }
    t.ok(fromThreads > 20, `threads: ${fromThreads} pages from kept rankings`);
    await paging.upsert([doc('ted:newer', '2031-01-01T00:00:00Z', 'λ3 λ3 λ3', 'λ3 λ3')]);
    for (const offset of [14, 21, 28]) {
      const page = { text: 'λ3', limit: 7, offset };
      t.ok(same(await threads.search(page), await fresh(page)), `threads: a write by another connection shows on the page at ${offset}`);
    }
  },
);
