// Runs the real `pdi` command in a child process. Its environment is explicit: settings that npm test
// exports for the whole run (ELASTICSEARCH_URL above all) must not leak into a test's CLI run, or it
// would write to another engine than the one the test reads.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { IngestState } from '../../ingest/state/store.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { REPO_ROOT } from './paths.js';

const exec = promisify(execFile);

const ISOLATED = [
  'ELASTICSEARCH_URL',
  'PDI_INDEX_PREFIX',
  'PDI_MODEL_DIR',
  'PDI_EMBED_URL',
  'PDI_EMBED_MODEL',
  'PDI_EMBED_KEY',
  'PDI_INGEST_EVERY',
  'PDI_DEMO',
  'PORT',
];

export function cliEnv(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  // No model from the user's cache, and no fetch of it, unless a test asks (PDI_MODEL_FETCH=1).
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', PDI_MODEL_FETCH: '0' };
  for (const name of ISOLATED) delete env[name];
  return { ...env, ...overrides };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `pdi ...args` with PDI_DATA_DIR=dataDir; never throws, the exit code is in the result. */
export async function pdi(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['bin/pdi.js', ...args], { cwd: REPO_ROOT, env: cliEnv({ PDI_DATA_DIR: dataDir, ...env }) });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Makes `source` held by another live process (a `sleep`), as a run in progress holds it; returns its pid. */
export function holdSource(t: Test, dataDir: string, source: SourceName): number {
  const holder = spawn('sleep', ['60']);
  t.teardown(() => {
    holder.kill();
  });
  const state = new IngestState(IngestState.pathIn(dataDir));
  t.teardown(() => state.close());
  state.db.prepare('INSERT INTO locks (source, pid, acquired_at) VALUES (?, ?, ?)').run(source, holder.pid, new Date().toISOString());
  return holder.pid!;
}
