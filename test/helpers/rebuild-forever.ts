// A process that rebuilds one source (or `all`) and never finishes: it loads one batch, says "loaded"
// on stdout, then waits for ever. Tests kill it there (a rebuild killed midway).
// Arguments: elasticsearch URL PREFIX SCOPE DIMENSION MODEL, or embedded FILE - SCOPE DIMENSION MODEL
import type { SourceName } from '../../index-mappings/sources.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import type { RebuildScope, SearchProvider } from '../../lib/search/provider.js';
import { makeDoc } from './elasticsearch.js';

const [engine, target, prefix, scope, dimension, model] = process.argv.slice(2);
const p: SearchProvider =
  engine === 'embedded'
    ? new EmbeddedProvider({ file: target, dimension: Number(dimension), embeddingModel: model })
    : new ElasticsearchProvider({ url: target, prefix, dimension: Number(dimension), embeddingModel: model });
const source: SourceName = scope === 'all' ? 'kimdis' : (scope as SourceName);
await p.rebuild(
  scope as RebuildScope,
  (async function* () {
    yield Array.from({ length: 20 }, (_, i) => makeDoc(source, `killed${i}`, { title: 'Νέα' }));
    process.stdout.write('loaded\n');
    await new Promise(() => {});
  })(),
);
