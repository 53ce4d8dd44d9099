// Load for the reliability tests: many requests at once over plain node:http (one connection each,
// no pool limit), each answer timed. A request the server never answers (killed) ends with status 0.
import http from 'node:http';

export interface Hit {
  status: number;
  body: string;
  /** performance.now() when the answer (or the failure) came. */
  at: number;
  ms: number;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

export function hit(
  base: string,
  pathAndQuery: string,
  key: string | undefined,
  opts: { method?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<Hit> {
  const started = performance.now();
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve) => {
    const done = (status: number, body: string) => {
      const at = performance.now();
      resolve({ status, body, at, ms: at - started });
    };
    const req = http.request(
      `${base}${pathAndQuery}`,
      {
        method: opts.method ?? 'GET',
        agent,
        headers: {
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => done(res.statusCode ?? 0, body));
        res.on('error', () => done(0, body));
      },
    );
    req.on('error', () => done(0, ''));
    if (opts.timeoutMs) req.setTimeout(opts.timeoutMs, () => req.destroy());
    req.end(payload);
  });
}

/** Counts of each status in `hits`. */
export function statusCounts(hits: Hit[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const h of hits) counts[h.status] = (counts[h.status] ?? 0) + 1;
  return counts;
}

/**
 * A process's resident set in MiB, from /proc (Linux): `rss` whole, `anon` its anonymous part (heaps,
 * SQLite's page caches: what a leak grows; the rest is mapped files and shared memory).
 */
export async function residentMiB(pid: number): Promise<{ rss: number; anon: number }> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: kb('VmRSS') / 1024, anon: kb('RssAnon') / 1024 };
}
