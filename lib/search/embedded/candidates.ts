// A hit of one table set before the sets' hits are merged: its set, row id and score, and the merged
// order (score, then published_at desc, then source_id asc), which search, kNN and export share.
import { blockOf } from './keys.js';
import type { TableSet } from './table-set.js';
import { compareCodePoints } from './text.js';

export interface Candidate {
  set: TableSet;
  rid: bigint;
  s: number;
  sid?: string;
}

export function sidOf(c: Candidate): string {
  return (c.sid ??= c.set.sourceIdOf(c.rid));
}

/** Score (smaller first: bm25 values and distances), then published_at desc, then source_id asc. Row ids of
 * one table set already sort by the last two; across sets, compare the publish second, then source_id. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.s !== b.s) return a.s - b.s;
  if (a.set === b.set) return a.rid < b.rid ? -1 : a.rid > b.rid ? 1 : 0;
  const ba = blockOf(a.rid);
  const bb = blockOf(b.rid);
  if (ba !== bb) return ba - bb;
  return compareCodePoints(sidOf(a), sidOf(b));
}
