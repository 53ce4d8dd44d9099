// The document presenters: what clients see of an indexed document.
import t from 'tap';
import { metadataOf } from '../../index-mappings/document.js';
import { searchBody } from '../../api/presenters/document.js';
import type { MetadataDocument } from '../../lib/search/provider.js';

const doc = (id: string, title: string): MetadataDocument =>
  ({
    source_id: `diavgeia:${id}`,
    source: 'diavgeia',
    country: 'GR',
    title,
    doc_type: 'decision',
    doc_category: 'award',
    published_at: id === 'b' ? null : '2024-05-01T10:00:00Z',
    source_url: `https://example.org/${id}`,
    language: 'el',
    quality_score: 0.8,
  }) as MetadataDocument;

t.test('when a search body is built from JSON records, then it is byte for byte the serialised response', async (t) => {
  const docs = [doc('a', 'Σύμβαση "έργου" \\ 𝄞 \u2028'), doc('b', 'Απόφαση')];
  const query = 'σύμβαση "δημόσιο έργο" \\ \u0000';
  const records = docs.map((d) => Buffer.from(JSON.stringify(metadataOf(d))));
  const expected = JSON.stringify({ query, results: docs.map(metadataOf), total: 2, limit: 10, offset: 0 });
  t.equal(searchBody(query, records, 2, 10, 0).toString('utf8'), expected);
  t.equal(searchBody('x', [], 0, 5, 20).toString('utf8'), JSON.stringify({ query: 'x', results: [], total: 0, limit: 5, offset: 20 }));
});
