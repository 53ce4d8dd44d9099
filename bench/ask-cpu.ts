// Where ask's CPU goes: the question's embedding (tokenizer + ONNX), the engine (kNN and the best-match
// text leg) and ask's own work (fusion, passages, the answer's JSON), over a burst of asks run one at a
// time through the real AskService on a data folder with the model's vectors: the judged questions of
// the relevance set, each round.
//   nice -n 10 node --import tsx bench/ask-cpu.ts --data-dir DIR [--rounds 3] [--profile]
// DIR: `pdi demo` run with PDI_MODEL_DIR set; ELASTICSEARCH_URL + PDI_INDEX_PREFIX: that engine (its
// JVM's CPU is not this process's, so only the client side of the engine is counted there).
// Each embedder and engine call is bracketed by process.cpuUsage() (every thread of the process: the
// ONNX runtime's and the reader threads' too); ask's own work is the rest of each ask's CPU. Asks run
// one at a time, so the brackets never overlap. Every round has a fresh AskService: its cache of
// question vectors starts empty, so every question is embedded. `--profile` adds one round under the
// V8 profiler and prints the main thread's heaviest functions outside the embedder and the engine.
import { modelEngine } from './model-engine.js';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import type { Embedder } from '../lib/embedding/embedder.js';
import type { SearchProvider } from '../lib/search/provider.js';
import { AskService } from '../lib/semantic/ask.js';
import { judgedQueries } from './relevance/queries.js';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    profile: { type: 'boolean', default: false },
  },
});
const dataDir = args['data-dir'];
if (!dataDir) throw new Error('--data-dir is required');
const questions = judgedQueries().map((q) => q.query);
const { model, engine, log } = await modelEngine(dataDir);

const cpu = { embedding: 0, engine: 0 };
const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const embedder: Embedder = {
  id: model.id,
  dimension: model.dimension,
  fallback: model.fallback,
  async embed(texts, kind) {
    const start = cpuNow();
    try {
      return await model.embed(texts, kind);
    } finally {
      cpu.embedding += cpuNow() - start;
    }
  },
};
// knn and moreLikeThis run together: the bracket opens with the first and closes with the last.
let inEngine = 0;
let engineStart = 0;
const search = new Proxy(engine, {
  get(target, prop, receiver) {
    const value = Reflect.get(target, prop, receiver);
    if (prop !== 'knn' && prop !== 'moreLikeThis') return typeof value === 'function' ? value.bind(target) : value;
    return async (...a: unknown[]) => {
      if (inEngine++ === 0) engineStart = cpuNow();
      try {
        return await (value as (...x: unknown[]) => Promise<unknown>).apply(target, a);
      } finally {
        if (--inEngine === 0) cpu.engine += cpuNow() - engineStart;
      }
    };
  },
}) as SearchProvider;

/** One round: every question asked once by a fresh service, and its answer serialized as the route does. */
async function round(): Promise<number> {
  const asking = new AskService({ search, embedder, generator: null, log });
  const start = cpuNow();
  for (const q of questions) {
    const result = await asking.ask(q, 5, 'none');
    JSON.stringify({ ...result, sources: result.sources.map(({ source_id, source, title, relevance }) => ({ source_id, source, title, relevance })) });
  }
  return cpuNow() - start;
}

await round(); // warm-up: JIT, SQLite's page cache, the model's first batches
cpu.embedding = cpu.engine = 0;
const rounds = Number(args.rounds);
const wallStart = performance.now();
let total = 0;
for (let i = 0; i < rounds; i++) total += await round();
const wallMs = performance.now() - wallStart;
const asks = rounds * questions.length;
const own = total - cpu.embedding - cpu.engine;
const share = (x: number) => Math.round((1000 * x) / total) / 10;
const perAsk = (x: number) => Math.round(x / asks / 100) / 10;

const result: Record<string, unknown> = {
  engine: engine.engine,
  embedder: model.id,
  asks,
  cpu_ms_per_ask: { total: perAsk(total), embedding: perAsk(cpu.embedding), engine: perAsk(cpu.engine), own: perAsk(own) },
  cpu_share_percent: { embedding: share(cpu.embedding), engine: share(cpu.engine), own: share(own) },
  wall_ms_per_ask: Math.round((10 * wallMs) / asks) / 10,
  load_average: (await import('node:os')).loadavg().map((l) => Math.round(l * 100) / 100),
};

if (args.profile) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  await round();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  result.main_thread_profile = heaviest(profile);
}
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
await engine.close();
(model as { dispose?: () => Promise<void> }).dispose?.();

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * The main thread's samples by function (self time), those under the embedder (transformers.js, ONNX)
 * and the engine (lib/search) set apart: what is left is ask's own work and the plumbing around it.
 */
function heaviest(profile: { nodes: ProfileNode[]; samples?: number[] }) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const under = (id: number, test: (url: string) => boolean) => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (test(byId.get(at)!.callFrame.url)) return true;
    return false;
  };
  const kindOf = (id: number) => {
    if (under(id, (u) => /@xenova|onnxruntime|model-embedder/.test(u))) return 'embedding';
    if (under(id, (u) => /lib\/search\//.test(u))) return 'engine';
    const name = byId.get(id)!.callFrame.functionName;
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') return name;
    return 'own';
  };
  const kinds = new Map<string, number>();
  const own = new Map<string, number>();
  const samples = profile.samples ?? [];
  for (const id of samples) {
    const kind = kindOf(id);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    if (kind !== 'own') continue;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(lib|node_modules|bench|api)\//, '$1/')}:${lineNumber + 1}`;
    own.set(key, (own.get(key) ?? 0) + 1);
  }
  const pct = (n: number) => Math.round((1000 * n) / samples.length) / 10;
  return {
    samples: samples.length,
    percent_by_kind: Object.fromEntries([...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, pct(n)])),
    own_top: [...own]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([k, n]) => `${pct(n)}% ${k}`),
  };
}
