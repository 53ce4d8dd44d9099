// A process that rebuilds one source of an Elasticsearch prefix and never finishes: it loads one
// batch, says "loaded" on stdout, then waits for ever. Tests kill it there (a rebuild killed midway).
// Arguments: URL PREFIX SOURCE DIMENSION MODEL
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { makeDoc } from './elasticsearch.js';

const [url, prefix, source, dimension, model] = process.argv.slice(2);
const p = new ElasticsearchProvider({ url, prefix, dimension: Number(dimension), embeddingModel: model });
await p.rebuild(source as SourceName, (async function* () {
  yield Array.from({ length: 20 }, (_, i) => makeDoc(source as SourceName, `killed${i}`, { title: 'Νέα' }));
  process.stdout.write('loaded\n');
  await new Promise(() => {});
})());
