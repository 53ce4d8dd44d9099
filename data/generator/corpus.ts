// Builds the whole demo corpus for a seed and writes it out. Same seed → byte-identical files.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SourceName } from '../../index-mappings/sources.js';
import type { OutFile } from './output.js';
import { Rng } from './prng.js';
import { renderDataGovGr } from './sources/data-gov-gr.js';
import { renderDiavgeia } from './sources/diavgeia.js';
import { renderElstat } from './sources/elstat.js';
import { renderGeodata } from './sources/geodata.js';
import { renderKimdis } from './sources/kimdis.js';
import { renderMitos } from './sources/mitos.js';
import { renderRae } from './sources/rae.js';
import { renderTed } from './sources/ted.js';
import { buildWorld, type World } from './world.js';

export const DEFAULT_SEED = 20261120;

export interface Corpus {
  seed: number;
  world: World;
  files: OutFile[];
  /** Records per source (decisions, contracts, notices, features, services, packages, rows, datasets). */
  counts: Record<SourceName, number>;
}

const RENDERERS: [SourceName, (w: World, rng: Rng) => OutFile[]][] = [
  ['diavgeia', renderDiavgeia],
  ['kimdis', renderKimdis],
  ['ted', renderTed],
  ['data_gov_gr', renderDataGovGr],
  ['mitos', renderMitos],
  ['geodata', renderGeodata],
  ['rae', renderRae],
  ['elstat', renderElstat],
];

export function generateCorpus(seed: number = DEFAULT_SEED): Corpus {
  const root = new Rng(seed);
  const world = buildWorld(root.fork('world'));
  const files: OutFile[] = [];
  const counts = {} as Record<SourceName, number>;
  for (const [source, render] of RENDERERS) {
    const out = render(world, root.fork(`render:${source}`));
    counts[source] = out.reduce((a, f) => a + f.records, 0);
    files.push(...out);
  }
  return { seed, world, files, counts };
}

/** Replaces the eight source folders under `outDir` with the corpus (other files there are left alone). */
export async function writeCorpus(corpus: Corpus, outDir: string): Promise<void> {
  for (const [source] of RENDERERS) await rm(path.join(outDir, source), { recursive: true, force: true });
  for (const f of corpus.files) {
    const target = path.join(outDir, f.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, f.body, 'utf8');
  }
}

export const CORPUS_SOURCES: SourceName[] = RENDERERS.map(([s]) => s);
