// One generated upstream response body and where it goes under the output directory.
export interface OutFile {
  /** `<source>/<NNN>-<what>.json`, relative to the output directory. */
  path: string;
  body: string;
  /** How many records the body holds (for the manifest and docs). */
  records: number;
}

export function seq(n: number): string {
  return String(n).padStart(3, '0');
}

/** Compact JSON, as the APIs send it. */
export function json(value: unknown): string {
  return JSON.stringify(value);
}
