// Pruned ranking (lib/search/embedded/pruned.ts) against exhaustive ranking, on the index that
// bench/search/embedded.ts builds: the query shapes whose target is at most 3x a rare-term search (a rare term, two frequent words ANDed,
// a question of several words, a phrase with a word, ask's best-match text leg), calls interleaved one
// by one so that both sides see the same machine load. The exhaustive side is the same file with the
// common-term lists off (`hotMinDf: Infinity`), which is how every query of several words was ranked
// before pruning. Each pair of answers is checked equal.
//
//   npx tsx bench/search/embedded.ts --docs 300000 --iterations 20    # builds the index once
//   npx tsx bench/search/pruned.ts --docs 300000 [--iterations 40]
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import type { SearchHit } from '../../lib/search/provider.js';
import { FUSION_DEPTH } from '../../index-mappings/ranking.js';
import { percentile } from '../percentile.js';
import { SURNAMES } from './generate.js';

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    dir: { type: 'string', default: process.env.PDI_BENCH_DIR || path.join(os.tmpdir(), 'pdi-bench') },
    iterations: { type: 'string', default: '40' },
  },
});
const file = path.join(args.dir!, `embedded-${args.docs}-${args.seed}.sqlite`);
if (!existsSync(file)) throw new Error(`${file} is missing: build it with bench/search/embedded.ts --docs ${args.docs} first`);
const ITERATIONS = Number(args.iterations);
const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
const round = (x: number) => Math.round(x * 100) / 100;

type Call = (p: EmbeddedProvider) => Promise<{ total: number | null; hits: SearchHit[] }>;
const search =
  (text: string): Call =>
  async (p) =>
    p.search({ text, limit: 100, offset: 0 });
const moreLike =
  (text: string): Call =>
  async (p) => ({ total: null, hits: await p.moreLikeThis({ text, limit: FUSION_DEPTH }) });

const QUESTION = 'Ποιες συμβάσεις καθαριότητας ανέθεσε ο δήμος και με ποιον προϋπολογισμό;';
const shapes: { name: string; call: Call }[] = [
  { name: `rare term \`${SURNAMES[700]}\``, call: search(SURNAMES[700]) },
  { name: 'two frequent words `ανάθεση δήμος`', call: search('ανάθεση δήμος') },
  { name: 'two frequent words `προμήθεια σύμβαση`', call: search('προμήθεια σύμβαση') },
  { name: 'several words `ανάθεση σύμβασης καθαριότητας δήμου`', call: search('ανάθεση σύμβασης καθαριότητας δήμου') },
  { name: 'phrase and a word `"σύμβαση προμήθειας" δήμος`', call: search('"σύμβαση προμήθειας" δήμος') },
  { name: 'phrase `"σύμβαση προμήθειας"`', call: search('"σύμβαση προμήθειας"') },
  { name: `ask's text leg (more like this, ${FUSION_DEPTH}) of a question`, call: moreLike(QUESTION) },
];

const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: round(percentile(s, 50)), p99: round(percentile(s, 99)) };
};
const key = (r: { total: number | null; hits: SearchHit[] }) => JSON.stringify([r.total, r.hits.map((h) => [h.doc.source_id, h.score])]);

async function main(): Promise<void> {
  const pruned = new EmbeddedProvider({ file, dimension: 384, embeddingModel: 'pdi/hashing-384' });
  const exhaustive = new EmbeddedProvider({ file, dimension: 384, embeddingModel: 'pdi/hashing-384', tuning: { hotMinDf: Number.POSITIVE_INFINITY } });
  await pruned.init();
  await exhaustive.init();
  const loadBefore = load();
  const rows: object[] = [];
  for (const { name, call } of shapes) {
    const a = await call(pruned);
    const b = await call(exhaustive);
    if (key(a) !== key(b)) throw new Error(`${name}: pruned and exhaustive answers differ`);
    const times = { pruned: [] as number[], exhaustive: [] as number[] };
    const before = pruned.counters.pruned;
    for (let i = 0; i < ITERATIONS; i++) {
      // Alternate which side goes first: the second call of a pair finds the pages the first one read.
      const pair = [
        ['pruned', pruned],
        ['exhaustive', exhaustive],
      ] as const;
      for (const [side, p] of i % 2 ? [...pair].reverse() : pair) {
        const t0 = performance.now();
        await call(p);
        times[side].push(performance.now() - t0);
      }
    }
    const row = {
      shape: name,
      total: a.total,
      sets_pruned_per_call: round((pruned.counters.pruned - before) / ITERATIONS),
      pruned_ms: summary(times.pruned),
      exhaustive_ms: summary(times.exhaustive),
    };
    rows.push(row);
    process.stderr.write(`${JSON.stringify(row)}\n`);
  }
  console.log(
    JSON.stringify({ file, documents: Number(args.docs), iterations: ITERATIONS, load_average: { before: loadBefore, after: load() }, rows }, null, 2),
  );
  await pruned.close();
  await exhaustive.close();
}

await main();
