// The first start's model fetch: scripts/fetch-model.sh run in the background, its stages logged a line
// each, with only the variables it needs. It needs a Python 3 that can make a venv (the converter's
// numpy + onnx are installed into one, from pinned wheels: scripts/model/requirements.txt).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectPath } from '../paths.js';
import type { EmbedderLogger } from './index.js';

/** The sentence logged (once a start) when the model cannot be fetched for want of Python. */
export const NO_PYTHON_WARNING =
  'install python3 and python3-venv (Debian: apt-get install python3-venv) to get semantic search: ' +
  'the embedding model is fetched and converted with them at the first start; meanwhile semantic search runs on the lexical fallback';

/** What fetch-model.sh checks before it calls a folder complete. */
export function modelComplete(dir: string): boolean {
  const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx', 'onnx/model.onnx', 'pdi-model.json'];
  return files.every((f) => (fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.size ?? 0) > 0);
}

/** Why `python` cannot fetch the model (not found, or no venv with pip: Debian's python3 without python3-venv), or null. */
export function pythonProblem(python: string): string | null {
  const probe = spawnSync(python, ['-c', 'import venv, ensurepip'], { stdio: 'ignore', timeout: 20_000 });
  if (probe.error) return `${python} was not found (PDI_PYTHON names another)`;
  return probe.status === 0 ? null : `${python} has no venv module with ensurepip`;
}

export interface FetchModelOptions {
  cacheDir: string;
  python: string;
  log: EmbedderLogger;
  /** Ends the script (the server stops); its work folder is removed by its own trap. */
  signal?: AbortSignal;
}

/**
 * What the fetch needs of the server's environment: the shell's, the locale, and what pip reads (its
 * own settings, proxies, CA bundles). Nothing else reaches pip and the converter: not the API's keys
 * (PDI_*_KEY, PDI_ADMIN_TOKEN), SMTP_URL, ELASTICSEARCH_URL or anything the operator set for the server.
 */
const FETCH_VARIABLES =
  /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|PIP_[A-Z0-9_]+|(HTTPS?|FTP|ALL|NO)_PROXY|(https?|ftp|all|no)_proxy|SSL_CERT_(FILE|DIR)|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE)$/;

/** The environment scripts/fetch-model.sh runs with: FETCH_VARIABLES of `env`, and its own settings. */
export function fetchEnvironment(env: NodeJS.ProcessEnv, opts: { cacheDir: string; python: string }): NodeJS.ProcessEnv {
  const kept = Object.fromEntries(Object.entries(env).filter(([name, value]) => value !== undefined && FETCH_VARIABLES.test(name)));
  return { ...kept, PDI_CACHE_DIR: opts.cacheDir, PDI_PYTHON: opts.python, PDI_FORCE_FETCH: '0' };
}

/** Runs scripts/fetch-model.sh; resolves with the model folder it prints, rejects with its last lines. */
export function fetchModel(opts: FetchModelOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [projectPath('scripts', 'fetch-model.sh')], {
      env: fetchEnvironment(process.env, opts),
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, so that a stop ends pip and the converter too, not the shell alone.
      detached: true,
    });
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
    };
    opts.signal?.addEventListener('abort', kill, { once: true });
    let stdout = '';
    // The script's own lines are its stages; pip's (warnings, errors) are kept for a failure's message.
    const others: string[] = [];
    // The script's last stage: where it stops, its reason (`needs unzip`, `pip download … failed`).
    let lastStage = '';
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const stage = /^fetch-model\.sh: (.*)$/.exec(line)?.[1];
        if (stage !== undefined) {
          lastStage = stage;
          opts.log.info({ stage }, `embedding model fetch: ${stage}`);
        } else if (line.trim()) others.push(line.trim());
        if (others.length > 10) others.shift();
      }
    });
    child.on('error', (err) => reject(err));
    child.on('close', (code) => {
      opts.signal?.removeEventListener('abort', kill);
      if (opts.signal?.aborted) return reject(new Error('stopped'));
      const dir = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && dir) resolve(dir);
      else {
        const why = [lastStage, ...others.slice(-3)].filter((l) => l !== '').join(' / ');
        reject(new Error(`scripts/fetch-model.sh exited with ${code}${why ? `: ${why}` : ''}`));
      }
    });
  });
}
