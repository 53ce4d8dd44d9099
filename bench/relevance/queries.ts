// The judged queries of test/fixtures/relevance/queries.json, read by the relevance benchmarks and
// their test.
import fs from 'node:fs';

export type Split = 'tune' | 'held-out';

export interface JudgedQuery {
  id: string;
  category: string;
  /** Assigned once and frozen (the fixture's `split` says how): choices are measured on `tune` only. */
  split: Split;
  query: string;
  relevant: string[];
  criterion: string;
}

const FIXTURE = new URL('../../test/fixtures/relevance/queries.json', import.meta.url);

export function judgedQueries(): JudgedQuery[] {
  return (JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { queries: JudgedQuery[] }).queries;
}

/**
 * Whether a document is written in Greek only: every source but TED (its notices carry an English title)
 * and ELSTAT (English series). What an English question finds of these is what crosses the language.
 */
export function isGreekDocument(sourceId: string): boolean {
  const source = sourceId.slice(0, sourceId.indexOf(':'));
  return source !== 'ted' && source !== 'elstat';
}
