// The ingest's embedding stage with the real model in process, this checkout against another (a
// worktree of an earlier commit), in one process, in turns: the demo corpus's documents through
// embedAll (documentText, the embedder's batching) into a fresh vectors cache, page by page as ingest
// sends them. Then, of this checkout's embedder only, the text budget per document (title + summary cut
// to N characters) with its tokens and rate.
//
//   git worktree add --detach ../base <commit> && ln -s "$PWD/node_modules" ../base/
//   node --import tsx bench/embedding-ab.ts --base ../base [--docs 800] [--rounds 2] [--budgets 400,300,250,200] [--batches 32,64]
//
// Rates are documents per wall second and per CPU second of this process (the second is steadier on a
// shared machine). The model folder is PDI_MODEL_DIR or the one scripts/fetch-model.sh fills.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DocumentStore } from '../ingest/state/documents.js';
import { defaultModelDir, embeddingText, type ModelEmbedder } from '../lib/embedding/index.js';
import { demoRecords } from './relevance/corpus.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    docs: { type: 'string', default: '800' },
    rounds: { type: 'string', default: '2' },
    page: { type: 'string', default: '100' },
    budgets: { type: 'string', default: '' },
    batches: { type: 'string', default: '' },
  },
});
const modelDir = process.env.PDI_MODEL_DIR ?? defaultModelDir();
const n = Number(values.docs);
const page = Number(values.page);

type EmbedAll = (embedder: unknown, store: DocumentStore, items: { doc: unknown; contentHash: string }[]) => Promise<unknown>;
interface Variant {
  name: string;
  embedder: unknown;
  embedAll: EmbedAll;
}

async function variant(name: string, root: string, batchSize?: number): Promise<Variant> {
  const embedding = await import(path.resolve(root, 'lib/embedding/index.ts'));
  const stage = await import(path.resolve(root, 'ingest/stages/embed.ts'));
  return { name, embedder: await embedding.ModelEmbedder.load(modelDir, { batchSize }), embedAll: stage.embedAll };
}

const records = (await demoRecords()).filter((_, i) => i % 2 === 0);
const variants = [await variant('this checkout', '.')];
// This checkout at other batch sizes (texts per forward pass; 16 by default).
for (const b of values.batches ? values.batches.split(',').map(Number) : []) variants.unshift(await variant(`this checkout, batch ${b}`, '.', b));
if (values.base) variants.unshift(await variant(`base ${path.basename(values.base)}`, values.base));

/** Documents per wall and CPU second of `fn` over `count` documents. */
async function rate(count: number, fn: () => Promise<void>) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  return {
    docs: count,
    seconds: +seconds.toFixed(1),
    docs_per_s: +(count / seconds).toFixed(1),
    docs_per_cpu_s: +(count / ((used.user + used.system) / 1e6)).toFixed(1),
    load: +os.loadavg()[0].toFixed(1),
  };
}

const rows: Record<string, unknown>[] = [];
for (let round = 0; round < Number(values.rounds); round++) {
  // Each round its own documents, so no run finds another's vectors; every variant the same ones.
  const slice = records.slice((round * n) % records.length, ((round * n) % records.length) + n);
  for (const v of round % 2 ? [...variants].reverse() : variants) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-embedding-ab-'));
    const store = new DocumentStore(path.join(dir, 'vectors.db'));
    const items = slice.map((r) => ({ doc: r.doc, contentHash: r.content_hash }));
    const r = await rate(items.length, async () => {
      for (let i = 0; i < items.length; i += page) await v.embedAll(v.embedder, store, items.slice(i, i + page));
    });
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
    rows.push({ round, variant: v.name, ...r });
    process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
  }
}

// The text budget: title + summary cut to N characters, embedded by this checkout's model.
const model = variants.at(-1)!.embedder as ModelEmbedder;
const tokenizer = (model as unknown as { extractor: { tokenizer: { encode(t: string): number[] } } }).extractor.tokenizer;
const budgets: Record<string, unknown>[] = [];
for (const budget of values.budgets ? values.budgets.split(',').map(Number) : []) {
  const texts = records.slice(0, n).map((r) => embeddingText(r.doc.title, r.doc.summary.trim() ? r.doc.summary : r.doc.content, budget));
  const tokens = texts.reduce((s, t) => s + tokenizer.encode(`query: ${t}`).length, 0) / texts.length;
  const r = await rate(texts.length, async () => {
    for (let i = 0; i < texts.length; i += page) await model.embed(texts.slice(i, i + page));
  });
  budgets.push({ budget_chars: budget, mean_tokens: +tokens.toFixed(1), ...r });
  process.stderr.write(`${JSON.stringify(budgets.at(-1))}\n`);
}
process.stdout.write(`${JSON.stringify({ cores: os.cpus().length, node: process.version, model: model.id, rows, budgets }, null, 2)}\n`);
