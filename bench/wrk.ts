// Driving wrk and reading its output, for the benchmarks.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * POSTs one JSON body to `url` (an Elasticsearch `_search`, say) from 10 connections: 2 s of warm-up,
 * then `seconds` measured. Needs wrk (apt-get install wrk).
 */
export function wrkPost(url: string, body: object, seconds: number) {
  const file = path.join(os.tmpdir(), `pdi-wrk-body-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(body));
  const script = path.join(path.dirname(new URL(import.meta.url).pathname), 'post-body.lua');
  const env = { ...process.env, BENCH_BODY_FILE: file };
  execFileSync('wrk', ['-t1', '-c10', '-d2s', '-s', script, url], { env });
  const out = execFileSync('wrk', ['-t1', '-c10', `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8', env });
  return { requests_per_second: wrkRequestsPerSecond(out), p50_ms: wrkPercentile(out, 50), p99_ms: wrkPercentile(out, 99) };
}

/** Requests per second from wrk's summary. */
export function wrkRequestsPerSecond(out: string): number {
  return parseFloat(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]);
}

/**
 * A percentile from wrk's "Latency Distribution" block (`     99%    1.02s`), in ms, or null with the
 * raw output on stderr. Anchored to the start of a line: the thread-stats table above it has
 * "+/- Stdev" cells like `85.99%`, which an unanchored /99%\s+(\S+)/ matched, taking the next line's
 * first word (NaN, printed as null).
 */
export function wrkPercentile(out: string, p: number): number | null {
  const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
  const value = m ? parseFloat(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm'] : NaN;
  if (!Number.isFinite(value)) {
    const line = out.split('\n').find((l) => l.includes(`${p}%`)) ?? '(no line with that percentile)';
    process.stderr.write(`could not parse the ${p}th percentile from wrk: ${JSON.stringify(line)}\n${out}\n`);
    return null;
  }
  return +value.toFixed(2);
}
