// What translating English questions costs ask: the real AskService on a data folder with the model's
// vectors, 10 clients at once, asking the relevance set's English questions (kinds english and
// cross-language) round after round, translated as ask translates them (the vocabulary) and not at all
// (a translator that gives no Greek: ask as it was before translation), the two alternating so that both
// meet the same load; and, as a third series in the same rounds, the Greek questions of the set (kinds
// greek and paraphrase), which ask searches in Greek anyway: what a question searched in Greek costs. Every round has a fresh AskService, so every question is embedded (and its
// Greek rendering, translated). Prints p50 and p99 of each and their ratio, with the load average.
//   nice -n 10 node --import tsx bench/ask-translation.ts --data-dir DIR [--rounds 6] [--clients 10]
// DIR: a data folder served by the embedded engine (bench/search/corpus.ts --from demo --docs 100000
// --vectors model, then `pdi reindex`), or ELASTICSEARCH_URL + PDI_INDEX_PREFIX for Elasticsearch.
import { modelEngine } from './model-engine.js';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { AskService } from '../lib/semantic/ask.js';
import { percentile } from './percentile.js';
import { judgedQueries } from './relevance/queries.js';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    rounds: { type: 'string', default: '6' },
    clients: { type: 'string', default: '10' },
  },
});
const dataDir = args['data-dir'];
if (!dataDir) throw new Error('--data-dir is required');
const of = (...kinds: string[]) =>
  judgedQueries()
    .filter((q) => kinds.includes(q.category))
    .map((q) => q.query);
const english = of('english', 'cross-language');
const greek = of('greek', 'paraphrase');
const { model, engine: search, log } = await modelEngine(dataDir);

/** A translator that gives no Greek: ask without translation, everything else the same. */
const none = { translate: async () => ({ groups: [] }) };

type Series = 'translated' | 'untranslated' | 'greek';

async function round(series: Series): Promise<number[]> {
  const translated = series !== 'untranslated';
  const questions = series === 'greek' ? greek : english;
  const ask = new AskService({ search, embedder: model, generator: null, log, translator: translated ? null : none });
  const times: number[] = [];
  let next = 0;
  const client = async () => {
    for (let i = next++; i < questions.length; i = next++) {
      const start = performance.now();
      await ask.ask(questions[i]!, 5, 'any');
      times.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: Number(args.clients) }, client));
  return times;
}

// One round of each first, unmeasured: the engine's caches and the JIT warm up.
await round('translated');
await round('untranslated');
const samples: Record<Series, number[]> = { translated: [], untranslated: [], greek: [] };
const load: number[] = [];
for (let r = 0; r < Number(args.rounds); r++) {
  load.push(os.loadavg()[0]!);
  // Alternating which goes first, so neither always meets the other's leftovers.
  const order: Series[] = r % 2 === 0 ? ['translated', 'untranslated', 'greek'] : ['greek', 'untranslated', 'translated'];
  for (const series of order) samples[series].push(...(await round(series)));
}
await search.close();
const p = (xs: number[], q: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );
const [t50, t99, u50, u99] = [p(samples.translated, 50), p(samples.translated, 99), p(samples.untranslated, 50), p(samples.untranslated, 99)];
process.stdout.write(
  `${JSON.stringify(
    {
      engine: search.engine,
      questions: { english: english.length, greek: greek.length },
      asks: samples.translated.length,
      translated_ms: { p50: +t50.toFixed(1), p99: +t99.toFixed(1) },
      untranslated_ms: { p50: +u50.toFixed(1), p99: +u99.toFixed(1) },
      ratio: { p50: +(t50 / u50).toFixed(2), p99: +(t99 / u99).toFixed(2) },
      greek_questions_ms: { p50: +p(samples.greek, 50).toFixed(1), p99: +p(samples.greek, 99).toFixed(1) },
      load: `${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`,
    },
    null,
    2,
  )}\n`,
);
