// The real API server (api/server.ts) in a child process, for the tests that kill it (SIGKILL), stop
// its engine or fill its disk: its log lines are read as they come, and it is killed at teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Test } from 'tap';
import { cliEnv } from './cli.js';
import { REPO_ROOT } from './paths.js';

const { distStale } = (await import(pathToFileURL(path.join(REPO_ROOT, 'scripts', 'build.mjs')).href)) as { distStale: () => boolean };

/**
 * The node arguments that start the API server: its compiled build (dist/api/server.js, what npm start
 * and the image run) when dist/ is current, as bin/pdi.js chooses for the pdi command, else the sources
 * through tsx. scripts/test.sh builds dist/ before the tests; from the sources a server took three times
 * the CPU to start (tsx in the process and again in each reader thread).
 */
export const SERVER_ARGS: readonly string[] = distStale() ? ['--import', 'tsx', 'api/server.ts'] : ['dist/api/server.js'];

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Every log line so far, parsed (LOG_LEVEL=info unless the env says otherwise). */
  lines: Record<string, any>[];
  /** Resolves with the first log line (from the start) whose msg matches `pattern`. */
  logged(pattern: RegExp): Promise<Record<string, any>>;
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<number | NodeJS.Signals>;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

/** Starts the server (SERVER_ARGS) with PORT=0 on loopback; resolves once it logs "listening". */
export async function startServerProcess(t: Test, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...SERVER_ARGS], {
    cwd: REPO_ROOT,
    env: cliEnv({ PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? 0)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
  });
  const lines: Record<string, any>[] = [];
  const waiters: { pattern: RegExp; resolve: (line: Record<string, any>) => void }[] = [];
  let partial = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    for (const text of parts) {
      let line: Record<string, any>;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.pattern.test(String(line.msg))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  const logged = (pattern: RegExp) => {
    const seen = lines.find((l) => pattern.test(String(l.msg)));
    return seen ? Promise.resolve(seen) : new Promise<Record<string, any>>((resolve) => waiters.push({ pattern, resolve }));
  };
  const listening = await Promise.race([
    logged(/^listening$/),
    exited.then((how) => {
      throw new Error(`the server exited (${how}) before listening: ${stderr}`);
    }),
  ]);
  return {
    child,
    pid: child.pid!,
    url: listening.url,
    lines,
    logged,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
      await exited;
    },
  };
}

/** SIGTERM (a graceful stop: requests drained, quota counts written), resolved once it has exited. */
export async function stopServerProcess(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) process.kill(server.pid, 'SIGTERM');
  await server.exited;
}
