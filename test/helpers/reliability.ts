// What the reliability suite (test/reliability, npm run test:reliability) shares: the long-variant
// flag, a request that cannot hang, an engine list (embedded and Elasticsearch), a clock under which no
// key runs out of its daily quota, and a small corpus.
import type { Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { Clock } from '../../lib/clock.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { request, type RequestOptions, type TestApp, type TestResponse } from './app.js';
import { apiTestProvider, makeDoc } from './elasticsearch.js';
import { BUYER, contractDoc, ingestDocs, SUPPLIER } from './report-docs.js';

/** PDI_RELIABILITY_LONG=1: the long variants (more examples, longer runs), outside CI's time budget. */
export const LONG = process.env.PDI_RELIABILITY_LONG === '1';

/** `short` in CI, `long` under PDI_RELIABILITY_LONG=1. */
export function bounded<T>(short: T, long: T): T {
  return LONG ? long : short;
}

/** The client timeout of every request of the suite: past it, the request hung. */
export const CLIENT_TIMEOUT_MS = 15_000;

/** A response, or 'timeout' when none came within CLIENT_TIMEOUT_MS. */
export async function timedRequest(base: string, pathAndQuery: string, opts: RequestOptions = {}): Promise<TestResponse | 'timeout'> {
  const signal = AbortSignal.timeout(CLIENT_TIMEOUT_MS);
  try {
    return await request(base, pathAndQuery, { ...opts, signal });
  } catch (err) {
    if (signal.aborted) return 'timeout';
    throw err;
  }
}

/**
 * What the suite asks of every answer to bad input: no hang, no 5xx, and an error with a
 * `{"detail": string}` body. Returns the failure in words, or null.
 */
export function clearAnswer(res: TestResponse | 'timeout'): string | null {
  if (res === 'timeout') return `no answer within ${CLIENT_TIMEOUT_MS} ms`;
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 200)}`;
  if (res.status >= 400 && (typeof res.body?.detail !== 'string' || res.body.detail === '')) {
    return `status ${res.status} without a {"detail"} body: ${res.text.slice(0, 200)}`;
  }
  return null;
}

export interface Engine {
  name: 'embedded' | 'elasticsearch';
  /** undefined: startTestApp's own embedded engine. */
  open(t: Test): Promise<SearchProvider | undefined>;
}

/** Both engines behind SearchProvider; Elasticsearch is the one scripts/test.sh started. */
export const ENGINES: Engine[] = [
  { name: 'embedded', open: async () => undefined },
  { name: 'elasticsearch', open: apiTestProvider },
];

/**
 * A clock six hours further on at each reading: every request falls on a new quota day within four,
 * so a free key's 5 a day never refuse a fuzzing run's thousands of requests with 429s.
 */
export function quotaFreeClock(start = Date.parse('2030-01-01T00:00:00Z')): Clock {
  let now = start;
  return () => new Date((now += 6 * 3_600_000));
}

/**
 * A small corpus written as ingest writes it (document store, entity index, search index): contracts
 * and decisions naming two entities, an English notice, so listings, search, entity and similar have
 * records to answer with.
 */
export async function seedCorpus(app: TestApp): Promise<IndexedDocument[]> {
  const docs: IndexedDocument[] = [];
  for (let i = 0; i < 12; i++)
    docs.push(contractDoc(`25SYMV00000${String(i).padStart(4, '0')}`, { value: 1000 * (i + 1), published: `2025-0${1 + (i % 9)}-1${i % 10}T08:00:00Z` }));
  for (let i = 0; i < 6; i++) {
    docs.push(
      makeDoc('diavgeia', `Ψ${i}ΑΒΟΡ1Ο-ΓΔ${i}`, {
        title: `Απόφαση ανάθεσης σύμβασης καθαριότητας ${i}`,
        content: `Ο ${BUYER.name} (ΑΦΜ ${BUYER.afm}) αναθέτει στην ${SUPPLIER.name} τη σύμβαση καθαριότητας.`,
        entities: { afm: [BUYER.afm, SUPPLIER.afm], ada: [`Ψ${i}ΑΒΟΡ1Ο-ΓΔ${i}`], names: [BUYER.name, SUPPLIER.name] },
        published_at: `2025-03-0${1 + i}T09:00:00Z`,
      }),
    );
  }
  docs.push(
    makeDoc('ted', '00654321-2025', {
      title: 'Road construction works contract',
      content: 'Contract award notice for road construction in Attica.',
      language: 'en',
      country: 'EU',
    }),
  );
  await ingestDocs(app.documents, app.search, docs);
  return docs;
}
