// Run by the read-pool test as its own process: one search through a reader thread, awaited by nothing
// and never closed. The process must stay alive for the answer, print it, then exit by itself.
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { doc } from './embedded-index.js';

const provider = new EmbeddedProvider({ file: process.argv[2], dimension: 2, embeddingModel: 'm', readers: 1 });
await provider.init();
await provider.upsert([doc('diavgeia:A', '2025-01-01T00:00:00Z', 'απόφαση ανάθεσης', 'κείμενο')]);
void provider.search({ text: 'απόφαση', limit: 10, offset: 0 }).then((r) => process.stdout.write(`total ${r.total}\n`));
