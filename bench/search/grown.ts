// The benchmark corpus grown from the demo corpus's real documents (data/demo as the ingest pipeline
// stores it, bench/relevance/corpus.ts demoRecords), so that the judged questions of
// test/fixtures/relevance match documents at the demo's rates at any size. Documents 0..N-1 are the
// demo's own, unchanged: the judged documents are in it under their ids. Document i ≥ N is a seeded copy
// of one of them (its base), of the same source and shares as the demo:
//  - its title, one time in three, is that of another document of its source and category (its donor);
//  - its parties are other parties of the demo of the same role and shape (name and ΑΦΜ together, drawn
//    as often as the demo names them), replaced wherever its text names them;
//  - its amount is 0.5–2x the base's, replaced where the text writes it as the normalizer does;
//  - its dates are moved back by up to three years, in its text too.
// Its ΑΔΑs, CPV codes and region stay the base's. Document i depends only on (demo, seed, i).
import { mulberry32 } from '../../data/generator/prng.js';
import type { NormalizedDocument, Party } from '../../index-mappings/document.js';
import { formatAmount } from '../../ingest/sources/values.js';
import { blend } from '../vectors/sample.js';

const DAY_MS = 86_400_000;
/** How far back a copy's dates move at most. */
const MAX_SHIFT_DAYS = 3 * 365;
/** Names shorter than this are not replaced in the text (they would hit other words). */
const MIN_NAME_CHARS = 4;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const shapeOf = (p: Party) => `${p.role}|${p.name === null ? 0 : 1}|${p.afm === null ? 0 : 1}`;

export class GrownCorpus {
  /** Indices of the demo's documents by source and category: a copy's donors. */
  private readonly alike = new Map<string, number[]>();
  /** Every party the demo names, by role and shape, once per document naming it. */
  private readonly parties = new Map<string, Party[]>();

  constructor(
    private readonly demo: readonly NormalizedDocument[],
    readonly n: number,
    readonly seed: number,
  ) {
    if (demo.length === 0) throw new Error('no demo documents to grow from');
    demo.forEach((d, i) => {
      const key = `${d.source} ${d.doc_category}`;
      this.alike.set(key, [...(this.alike.get(key) ?? []), i]);
      for (const p of d.parties) {
        const list = this.parties.get(shapeOf(p)) ?? [];
        list.push({ role: p.role, name: p.name, afm: p.afm });
        this.parties.set(shapeOf(p), list);
      }
    });
  }

  private random(i: number): () => number {
    return mulberry32((this.seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
  }

  /** The demo documents document i is made of: itself below N. */
  parents(i: number): { base: number; donor: number } {
    if (i < this.demo.length) return { base: i, donor: i };
    const rnd = this.random(i);
    const base = Math.floor(rnd() * this.demo.length);
    const alike = this.alike.get(`${this.demo[base].source} ${this.demo[base].doc_category}`)!;
    return { base, donor: alike[Math.floor(rnd() * alike.length)] };
  }

  document(i: number): NormalizedDocument {
    const { base, donor } = this.parents(i);
    const b = this.demo[base];
    if (i < this.demo.length) return b;
    const rnd = this.random(i);
    rnd();
    rnd(); // the draws of parents()

    // Text replacements, applied in one pass (longest first, so a name inside another is not hit twice).
    const swaps = new Map<string, string>();
    const parties: Party[] = [];
    for (const p of b.parties) {
      const pool = this.parties.get(shapeOf(p))!;
      // A name too short to replace in the text keeps its party as it is.
      const short = p.name !== null && p.name.length < MIN_NAME_CHARS;
      const other = short ? p : pool[Math.floor(rnd() * pool.length)];
      // A name or ΑΦΜ met before (under another role) keeps the replacement the text got.
      if (p.name !== null && other.name !== null && !short && !swaps.has(p.name)) swaps.set(p.name, other.name);
      if (p.afm !== null && other.afm !== null && !swaps.has(p.afm)) swaps.set(p.afm, other.afm);
      const name = p.name === null || short ? p.name : swaps.get(p.name)!;
      parties.push({ role: p.role, name, afm: p.afm === null ? null : swaps.get(p.afm)! });
    }
    const shift = Math.floor(rnd() * MAX_SHIFT_DAYS) * DAY_MS;
    const moved = (iso: string) => new Date(Date.parse(iso) - shift).toISOString().slice(0, 10);
    const published = `${moved(b.published_at)}${b.published_at.slice(10)}`;
    swaps.set(b.published_at.slice(0, 10), published.slice(0, 10));
    const actDate = b.act_date === null ? null : moved(b.act_date);
    if (b.act_date !== null) swaps.set(b.act_date, actDate!);
    let amount = b.amount;
    if (b.amount) {
      amount = { value: Math.round(b.amount.value * 0.5 * 4 ** rnd() * 100) / 100 || 0.01, currency: b.amount.currency };
      swaps.set(formatAmount(b.amount), formatAmount(amount));
    }
    const useDonor = rnd() < 1 / 3;
    const pattern = new RegExp(
      [...swaps.keys()]
        .sort((x, y) => y.length - x.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
    // Digits are not replaced inside longer numbers (an ΑΦΜ inside another number, an amount's tail).
    const rewrite = (text: string) =>
      swaps.size === 0
        ? text
        : text.replace(pattern, (m, at: number, whole: string) =>
            /\d/.test(whole[at - 1] ?? '') || /\d/.test(whole[at + m.length] ?? '') ? m : swaps.get(m)!,
          );
    let title = rewrite(b.title);
    let content = rewrite(b.content);
    let summary = rewrite(b.summary);
    if (useDonor && donor !== base) {
      const next = rewrite(this.demo[donor].title);
      content = content.startsWith(`${title}\n`) ? `${next}${content.slice(title.length)}` : content;
      summary = summary.split(title).join(next);
      title = next;
    }
    const named = (n: string) => (n.length >= MIN_NAME_CHARS ? (swaps.get(n) ?? n) : n);
    return {
      ...b,
      source_id: `${b.source_id}-g${i}`,
      title,
      content,
      summary,
      published_at: published,
      act_date: actDate,
      amount,
      parties,
      entities: {
        afm: [...new Set(b.entities.afm.map((a) => swaps.get(a) ?? a))],
        ada: b.entities.ada,
        names: [...new Set(b.entities.names.map(named))],
      },
    };
  }
}

/**
 * The vector of document i from the real model's vectors of the demo (`sample`, in the demo's order):
 * a demo document's own, or normalize(w·base + (1 − w)·donor) with w in [0.5, 1), nearest its base
 * (bench/vectors/sample.ts derivedVector, of the document's own parents).
 */
export function grownVector(corpus: GrownCorpus, sample: readonly Float32Array[], i: number, out = new Float32Array(sample[0].length)): Float32Array {
  const { base, donor } = corpus.parents(i);
  const a = sample[base];
  const b = sample[donor];
  const w = i < sample.length ? 1 : 0.5 + 0.5 * mulberry32((corpus.seed ^ Math.imul(i + 7, 0x85ebca6b)) >>> 0)();
  return blend(a, b, w, out);
}
