// Generates the demo corpus: raw upstream response bodies for the eight sources, replayed by `npm start`
// through the real ingest pipeline. Deterministic: the same seed gives byte-identical files.
//   node --import tsx data/generate.ts [--out DIR] [--seed N]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED, generateCorpus, writeCorpus } from './generator/corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv: string[]): { out: string; seed: number } {
  let out = path.join(HERE, 'demo');
  let seed = DEFAULT_SEED;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'Usage: node --import tsx data/generate.ts [--out DIR] [--seed N]\n' +
          `  --out DIR   where to write <source>/<NNN>-<what>.json (default ${path.relative(process.cwd(), out) || out})\n` +
          `  --seed N    unsigned 32-bit seed (default ${DEFAULT_SEED})\n`,
      );
      process.exit(0);
    } else if (arg === '--out') {
      const v = argv[++i];
      if (!v) throw new Error('--out needs a directory');
      out = path.resolve(v);
    } else if (arg === '--seed') {
      const v = argv[++i];
      if (!v || !/^\d+$/.test(v) || Number(v) > 0xffffffff) throw new Error('--seed must be an integer from 0 to 4294967295');
      seed = Number(v);
    } else {
      throw new Error(`unknown argument: ${arg} (try --help)`);
    }
  }
  return { out, seed };
}

async function main(): Promise<void> {
  const { out, seed } = parseArgs(process.argv.slice(2));
  const corpus = generateCorpus(seed);
  await writeCorpus(corpus, out);
  const bytes = corpus.files.reduce((a, f) => a + Buffer.byteLength(f.body), 0);
  const total = Object.values(corpus.counts).reduce((a, n) => a + n, 0);
  process.stdout.write(`seed ${seed} → ${out}\n`);
  for (const [source, n] of Object.entries(corpus.counts)) {
    const files = corpus.files.filter((f) => f.path.startsWith(`${source}/`)).length;
    process.stdout.write(`  ${source.padEnd(12)} ${String(n).padStart(5)} records in ${files} files\n`);
  }
  process.stdout.write(`  ${'total'.padEnd(12)} ${String(total).padStart(5)} records, ${corpus.files.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`generate: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
