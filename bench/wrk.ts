// Reading wrk's output, for the benchmarks that drive it.

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
