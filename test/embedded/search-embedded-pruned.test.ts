// Pruned ranking on the embedded engine (lib/search/embedded/pruned.ts): on random queries over a seeded
// random corpus, every page equals exhaustive FTS5 ranking (ids, order and scores), for searches (terms
// ANDed, frequent and rare mixed, phrases, a source filter, a date window, pages past the first) and for
// more-like-this (ask's text leg: words ORed), before and after overwrites that drift the statistics
// the lists were cut at.
import t from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import type { SearchHit, SearchResult } from '../../lib/search/provider.js';
import { doc, indexFiles } from '../helpers/embedded-index.js';

const newFile = indexFiles(t);

const SOURCES: SourceName[] = ['diavgeia', 'kimdis', 'ted'];
// Zipfian: a few words in most documents, a long tail in few. Digits keep the words unstemmed.
const VOCAB = Array.from({ length: 120 }, (_, i) => `λ${i}`);

function corpus(random: () => number, n: number, prefix: string): IndexedDocument[] {
  const word = () => VOCAB[Math.min(VOCAB.length - 1, Math.floor(VOCAB.length * random() ** 3))];
  const words = (lo: number, hi: number) => Array.from({ length: lo + Math.floor(random() * (hi - lo)) }, word).join(' ');
  return Array.from({ length: n }, (_, i) => {
    const source = SOURCES[Math.floor(random() * SOURCES.length)];
    const day = 1 + Math.floor(random() * 28);
    // Drawn in the order the corpus was always drawn in, so that the seed gives the same documents.
    const title = words(2, 8);
    const published = `2024-02-${String(day).padStart(2, '0')}T00:00:0${Math.floor(random() * 3)}Z`;
    const content = words(5, 60);
    return doc(`${source}:${prefix}${i}`, published, title, content, { summary: random() < 0.3 ? words(1, 5) : '' });
  });
}

const rows = (hits: SearchHit[]) => JSON.stringify(hits.map((h) => [h.doc.source_id, h.score]));
const same = (a: SearchResult, b: SearchResult) => a.total === b.total && rows(a.hits) === rows(b.hits);

/** A query of 2–4 items: frequent words, rare ones, and now and then a phrase of two words. */
function randomQuery(random: () => number): string {
  const pick = () => VOCAB[Math.floor(VOCAB.length * random() ** (random() < 0.7 ? 2 : 0.7))];
  const items: string[] = [];
  const n = 2 + Math.floor(random() * 3);
  for (let i = 0; i < n; i++) items.push(random() < 0.12 ? `"${pick()} ${pick()}"` : pick());
  return items.join(' ');
}

for (const tuning of [
  { hotMinDf: 30, hotListSize: 10, hotListMax: 16 },
  { hotMinDf: 30, hotListSize: 40, hotListMax: 70 },
]) {
  t.test(`when queries of several words are ranked with lists of ${tuning.hotListSize}, then every page equals exhaustive ranking`, async (t) => {
    const random = mulberry32(20261127 + tuning.hotListSize);
    const pruned = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning });
    const plain = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning: { hotMinDf: Number.POSITIVE_INFINITY } });
    t.teardown(async () => {
      await pruned.close();
      await plain.close();
    });
    const both = async (docs: IndexedDocument[]) => {
      for (const p of [pruned, plain]) t.equal((await p.upsert(docs)).written, docs.length);
    };
    const docs = corpus(random, 2400, 'd');
    await both(docs);
    await pruned.optimize();
    t.ok(pruned.counters.listsBuilt > 20, `lists built (${pruned.counters.listsBuilt})`);

    let alikeProved = 0;
    const compare = async (round: string) => {
      const before = pruned.counters.pruned;
      let differing = 0;
      let queries = 0;
      for (let i = 0; i < 450; i++) {
        // One in three: frequent words only, the queries whose every match FTS5 would score.
        const text = i % 3 ? randomQuery(random) : Array.from({ length: 2 + Math.floor(random() * 2) }, () => VOCAB[Math.floor(random() * 16)]).join(' ');
        const source = random() < 0.3 ? SOURCES[Math.floor(random() * SOURCES.length)] : undefined;
        const limit = [1, 5, 10, 20][Math.floor(random() * 4)];
        const offset = random() < 0.8 ? 0 : Math.floor(random() * 15);
        // A published_at window now and then (the corpus spans February 2024).
        const day = () => `2024-02-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`;
        const since = random() < 0.2 ? day() : undefined;
        const until = random() < 0.2 ? day() : undefined;
        const q = { text, source, limit, offset, since, until };
        const [a, b] = [await pruned.search(q), await plain.search(q)];
        queries += 1;
        if (!same(a, b)) {
          differing += 1;
          if (differing < 4) t.fail(`${round}: ${JSON.stringify(q)}: ${a.total}/${b.total} ${rows(a.hits).slice(0, 200)} vs ${rows(b.hits).slice(0, 200)}`);
        }
      }
      const searches = pruned.counters.pruned - before;
      for (let i = 0; i < 150; i++) {
        const text = Array.from({ length: 2 + Math.floor(random() * 12) }, () => VOCAB[Math.floor(random() * VOCAB.length)]).join(' ');
        const q = { text, limit: [3, 10, 30][Math.floor(random() * 3)] };
        const [a, b] = [await pruned.moreLikeThis(q), await plain.moreLikeThis(q)];
        queries += 1;
        if (rows(a) !== rows(b)) {
          differing += 1;
          if (differing < 4) t.fail(`${round}: more like ${JSON.stringify(q)}: ${rows(a).slice(0, 200)} vs ${rows(b).slice(0, 200)}`);
        }
      }
      t.equal(differing, 0, `${round}: ${queries} queries, no differences`);
      const alike = pruned.counters.pruned - before - searches;
      alikeProved += alike;
      t.ok(searches >= 5, `${round}: pages proved by the bounds (searches ${searches}, more like this ${alike})`);
    };
    await compare('after the load');
    t.equal(plain.counters.pruned, 0, 'the reference ranks every match');

    // Overwrites with longer texts: the average length drifts from the one the lists were cut at, and
    // documents leave and join lists.
    const rewrites = docs
      .filter(() => random() < 0.3)
      .map((d, i) => {
        const fresh = corpus(random, 1, 'x')[0];
        return { ...d, title: fresh.title, content: `${fresh.content} ${fresh.content} ${i % 2 ? fresh.content : ''}` };
      });
    await both(rewrites);
    await compare('after overwrites');
    t.ok(alikeProved >= 5, `more-like-this pages proved by the bounds (${alikeProved})`);
  });
}
