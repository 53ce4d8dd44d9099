// The API as the benchmarks run it: api/server.ts in a child process on a free loopback port, over a
// prepared data folder (no demo corpus, no model), with enterprise keys to rotate over.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { accountsDbPath, openDatabase } from '../api/db/database.js';
import { KeyStore } from '../api/db/keys.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** Creates `count` enterprise keys in the data folder: 1,000 requests a day each, so use them in turn. */
export function createBenchKeys(dataDir: string, count = 500): string[] {
  const db = openDatabase(accountsDbPath(dataDir));
  try {
    const store = new KeyStore(db);
    return Array.from({ length: count }, (_, i) => store.create(`bench-${i % 10}`, 'enterprise').key);
  } finally {
    db.close();
  }
}

/** A loopback port free now. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

export interface BenchApi {
  port: number;
  url: string;
  /** The server's process id (its memory can be read in /proc). */
  pid: number;
  stop(): void;
}

/**
 * Starts the API of `serverDir` (default this checkout; another worktree measures another revision)
 * with PDI_DATA_DIR=dataDir plus `env`, and resolves once it answers. It is stopped when this process
 * exits, also when a benchmark fails half-way. Its stdout goes to our stderr: stdout carries results.
 */
export async function startBenchApi(dataDir: string, env: Record<string, string>, serverDir = ROOT): Promise<BenchApi> {
  const port = await freePort();
  const server = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
    cwd: serverDir,
    // No model unless the caller names one (the semantic benchmarks need the one the index was built with).
    env: { ...process.env, PDI_MODEL_DIR: '', ...env, PDI_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PDI_DEMO: '0', LOG_LEVEL: 'error' },
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  const stop = () => server.kill('SIGTERM');
  process.on('exit', stop);
  const url = `http://127.0.0.1:${port}`;
  for (
    let i = 0;
    !(await fetch(`${url}/v1/models`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 300) throw new Error(`the API of ${serverDir} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, url, pid: server.pid!, stop };
}
