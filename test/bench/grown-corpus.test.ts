// The benchmark corpus grown from the demo (bench/search/grown.ts): the demo's own documents first,
// then copies whose parties, amounts and dates vary consistently in fields and text, at the demo's
// source shares and word rates, with vectors nearest their base's.
import t from 'tap';
import { partyLines } from '../../ingest/sources/parties.js';
import { formatAmount } from '../../ingest/sources/values.js';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { demoRecords } from '../../bench/relevance/corpus.js';
import { GrownCorpus, grownVector } from '../../bench/search/grown.js';

const SEED = 20240611;
const COPIES = 6_000;

const share = (docs: NormalizedDocument[], test: (d: NormalizedDocument) => boolean) => docs.filter(test).length / docs.length;
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, j) => s + x * b[j], 0);

t.test('when a corpus is grown from the demo, then copies vary parties, amounts and dates alike in fields and text, at the demo’s rates', async (t) => {
  const demo = (await demoRecords()).map((r) => r.doc);
  const N = demo.length;
  const grown = new GrownCorpus(demo, N + COPIES, SEED);
  const docs = Array.from({ length: grown.n }, (_, i) => grown.document(i));
  t.same(docs.slice(0, N), demo, 'the demo’s own documents first, unchanged');
  t.same(new GrownCorpus(demo, grown.n, SEED).document(N + 17), docs[N + 17], 'the same (demo, seed, i), the same document');
  t.equal(new Set(docs.map((d) => d.source_id)).size, docs.length, 'ids are unique');

  const copies = docs.slice(N);
  // Per property, the copies that break it (one assertion each, not one per copy).
  const wrong: Record<string, string[]> = { source: [], partyLine: [], afm: [], amount: [], amountText: [], date: [], dateText: [] };
  const check = (ok: boolean, what: string, label: string) => {
    if (!ok) wrong[what].push(label);
  };
  let renamed = 0;
  let moved = 0;
  for (const [k, d] of copies.entries()) {
    const i = N + k;
    const base = demo[grown.parents(i).base];
    const label = `${d.source_id} (of ${base.source_id})`;
    check(d.source === base.source, 'source', label);
    // The text names the parties as the fields do, wherever the base's text did.
    const language = d.source === 'ted' ? 'en' : 'el';
    const baseLines = base.content.split('\n');
    const lines = d.content.split('\n');
    partyLines(base.parties, language).forEach((line, j) => {
      if (baseLines.includes(line)) check(lines.includes(partyLines(d.parties, language)[j]), 'partyLine', `${label}: ${line}`);
    });
    for (const p of d.parties) if (p.afm !== null) check(d.entities.afm.includes(p.afm), 'afm', label);
    if (d.parties.some((p, j) => p.name !== base.parties[j].name)) renamed++;
    // Amounts 0.5–2x, rewritten where the text stated them.
    if (base.amount) {
      const ratio = d.amount!.value / base.amount.value;
      check(ratio >= 0.49 && ratio <= 2.01, 'amount', `${label}: ×${ratio}`);
      if (base.content.includes(formatAmount(base.amount)) && d.amount!.value !== base.amount.value)
        check(d.content.includes(formatAmount(d.amount!)) && !d.content.includes(formatAmount(base.amount)), 'amountText', label);
    }
    // Dates moved back by at most three years, in the text too.
    const back = (Date.parse(base.published_at) - Date.parse(d.published_at)) / 86_400_000;
    check(back >= 0 && back < 3 * 365, 'date', `${label}: ${back} days back`);
    if (back > 0) {
      moved++;
      if (base.content.includes(base.published_at.slice(0, 10))) check(d.content.includes(d.published_at.slice(0, 10)), 'dateText', label);
    }
  }
  for (const [what, labels] of Object.entries(wrong)) t.same(labels.slice(0, 5), [], `${what}: ${labels.length} copies wrong`);
  t.ok(renamed > 0.8 * copies.length, `most copies name other parties (${renamed} of ${copies.length})`);
  t.ok(moved > 0.9 * copies.length, `most copies are moved in time (${moved})`);

  // What the judged questions meet: the sources and the words at the demo's rates.
  for (const source of new Set(demo.map((d) => d.source))) {
    const [a, b] = [share(demo, (d) => d.source === source), share(copies, (d) => d.source === source)];
    t.ok(Math.abs(a - b) < 0.03, `${source}: ${b.toFixed(3)} of the copies, ${a.toFixed(3)} of the demo`);
  }
  for (const word of ['ΚΑΘΑΡΙΟΤΗΤ', 'ΠΡΟΜΗΘΕΙΑ', 'ΣΥΝΤΗΡΗΣΗ']) {
    const has = (d: NormalizedDocument) => `${d.title}\n${d.content}`.toUpperCase().includes(word);
    const [a, b] = [share(demo, has), share(copies, has)];
    t.ok(a > 0 && Math.abs(b - a) < 0.25 * a + 0.01, `${word}: ${b.toFixed(3)} of the copies, ${a.toFixed(3)} of the demo`);
  }
});

t.test('when copies get vectors from the demo’s, then each is a unit vector nearer its base than its donor', async (t) => {
  const demo = Array.from({ length: 50 }, (_, i) => ({ i, source: i % 2 ? 'diavgeia' : 'kimdis' }));
  const docs = demo.map(({ i, source }) => ({ source, doc_category: 'award', parties: [], source_id: `${source}:${i}` }) as unknown as NormalizedDocument);
  const grown = new GrownCorpus(docs, 500, SEED);
  const sample = demo.map(({ i }) => {
    const v = Float32Array.from({ length: 8 }, (_, j) => Math.sin(i * 7 + j));
    const norm = Math.sqrt(dot(v, v));
    return v.map((x) => x / norm);
  });
  t.same(grownVector(grown, sample, 3), sample[3], 'a demo document keeps its own');
  let bases = 0;
  const notUnit: number[] = [];
  const farther: number[] = [];
  for (let i = demo.length; i < grown.n; i++) {
    const v = grownVector(grown, sample, i);
    const { base, donor } = grown.parents(i);
    if (Math.abs(dot(v, v) - 1) > 1e-5) notUnit.push(i);
    if (base !== donor) {
      if (dot(v, sample[base]) < dot(v, sample[donor]) - 1e-6) farther.push(i);
      bases++;
    }
  }
  t.same(notUnit, [], 'unit vectors');
  t.same(farther, [], 'each nearer its base than its donor');
  t.ok(bases > 300, `${bases} copies with a donor`);
});
