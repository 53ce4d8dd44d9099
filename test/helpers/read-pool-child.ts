// Run by the read-pool test as its own process: one search through a reader thread, awaited by nothing
// and never closed. The process must stay alive for the answer, print it, then exit by itself.
import { EmbeddedProvider } from '../../lib/search/embedded.js';

const provider = new EmbeddedProvider({ file: process.argv[2], dimension: 2, embeddingModel: 'm', readers: 1 });
await provider.init();
await provider.upsert([
  {
    source_id: 'diavgeia:A',
    source: 'diavgeia',
    country: 'GR',
    title: 'απόφαση ανάθεσης',
    doc_type: 'decision',
    doc_category: 'x',
    published_at: '2025-01-01T00:00:00Z',
    source_url: 'https://example.org',
    language: 'el',
    quality_score: 0.5,
    content: 'κείμενο',
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
  },
]);
void provider.search({ text: 'απόφαση', limit: 10, offset: 0 }).then((r) => process.stdout.write(`total ${r.total}\n`));
