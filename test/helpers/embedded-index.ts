// What the embedded engine's own test files share (test/search/search-embedded*.test.ts): a folder
// of index files removed when the test ends, a document of the fields a search reads, and a seeded
// corpus with many ties.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';

/** A new index file's path at each call, in a folder removed when `t` ends. */
export function indexFiles(t: Test): () => string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-search-embedded-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  let files = 0;
  return () => path.join(root, `index-${++files}.sqlite`);
}

/** A document of the given source id, date, title and content, the rest plain. */
export function doc(source_id: string, published_at: string, title: string, content: string, extra: Partial<IndexedDocument> = {}): IndexedDocument {
  return {
    source_id,
    source: source_id.split(':')[0] as SourceName,
    country: 'GR',
    title,
    doc_type: 'decision',
    doc_category: 'x',
    published_at,
    source_url: 'https://example.org',
    language: 'el',
    quality_score: 0.5,
    content,
    summary: '',
    entities: { afm: [], ada: [], names: [] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: null,
    indexed_at: '2025-01-01T00:00:00Z',
    content_hash: 'h',
    original: null,
    embedding: null,
    ...extra,
  };
}

/** The source ids of hits, in order. */
export const ids = (hits: { doc: { source_id: string } }[]) => hits.map((h) => h.doc.source_id);

/** A small Zipf-like corpus whose words repeat a lot, with few distinct publish seconds (many ties). */
export function corpus(random: () => number, n: number, idPrefix = ''): IndexedDocument[] {
  const vocab = Array.from({ length: 40 }, (_, i) => `λ${i}`);
  const word = () => vocab[Math.min(vocab.length - 1, Math.floor(vocab.length * random() ** 2.2))];
  const words = (lo: number, hi: number) => Array.from({ length: lo + Math.floor(random() * (hi - lo)) }, word).join(' ');
  const sources: SourceName[] = ['diavgeia', 'kimdis', 'ted'];
  const seconds = ['2024-01-01T00:00:00Z', '2024-01-01T00:00:01Z', '2024-03-01T12:00:00Z', '2023-07-07T07:07:07Z'];
  return Array.from({ length: n }, (_, i) => {
    const source = sources[Math.floor(random() * sources.length)];
    const title = random() < 0.3 ? words(2, 6).toUpperCase() : words(2, 6);
    return doc(`${source}:${idPrefix}${Math.floor(random() * 1e6).toString(36)}-${i}`, seconds[Math.floor(random() * seconds.length)], title, words(3, 40), {
      quality_score: random(),
    });
  });
}
