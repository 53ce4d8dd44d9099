// Records in the repository: every source's raw upstream bodies as the demo generator (data/generate.ts,
// data/generator/) writes them into data/demo, so that each parser is tested on a clone with nothing
// beside it. The upstream fixtures in ../shared/fixtures add to these where they are.
import fs from 'node:fs';
import path from 'node:path';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';
import type { SourceModule } from '../../ingest/sources/types.js';
import { REPO_ROOT } from './paths.js';

export interface DemoBody {
  file: string;
  /** The body as the upstream sends it, and as JSON (every demo body is JSON). */
  body: string;
  json: any;
  /** What `pdi ingest --from` gives parse() for this file. */
  contentType: string;
  /** Its records through the module's parse and normalize, in the order parse gives them. */
  docs: NormalizedDocument[];
}

/** The demo bodies of `source`, each parsed and its records normalized as `pdi ingest --from data/demo/<source>` does. */
export function demoBodies(source: SourceName, module: SourceModule): DemoBody[] {
  const dir = path.join(REPO_ROOT, 'data', 'demo', source);
  return fs
    .readdirSync(dir)
    .sort()
    .map((file) => {
      const body = fs.readFileSync(path.join(dir, file), 'utf8');
      const contentType = module.replayContentType?.(file) ?? 'application/json';
      return { file, body, json: JSON.parse(body), contentType, docs: module.parse(body, contentType).map((r) => module.normalize(r.record)) };
    });
}

/** An instant as the documents write it: ISO 8601 UTC, seconds precision. */
export const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
