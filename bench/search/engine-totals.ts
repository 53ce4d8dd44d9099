// How far the two engines agree on how many documents a query finds: prints, for each query, the
// totals of the embedded engine and of Elasticsearch over the same corpus, then how many agree
// exactly and within 10%. Load the demo corpus into both first (same PDI_MODEL_DIR, or none):
//   PDI_DATA_DIR=/tmp/emb npx pdi demo
//   PDI_DATA_DIR=/tmp/es ELASTICSEARCH_URL=… npx pdi demo
//   PDI_DATA_DIR=/tmp/emb ELASTICSEARCH_URL=… node --import tsx bench/search/engine-totals.ts
import { loadConfig } from '../../lib/config.js';
import { createEmbedder } from '../../lib/embedding/index.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { embeddedIndexPath } from '../../lib/search/index.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import type { SourceName } from '../../index-mappings/sources.js';

const config = loadConfig();
if (!config.elasticsearchUrl) throw new Error('set ELASTICSEARCH_URL');
const embedder = await createEmbedder({ modelDir: config.modelDir });
const embedded = new EmbeddedProvider({ file: embeddedIndexPath(config.dataDir), dimension: embedder.dimension, embeddingModel: embedder.id });
const es = new ElasticsearchProvider({ url: config.elasticsearchUrl, prefix: config.indexPrefix, dimension: embedder.dimension, embeddingModel: embedder.id });

/** Greek in several inflections, English singular and plural, phrases, prefixes, names, Latin-script place names. */
const QUERIES: [string, SourceName?][] = [
  ['σύμβαση', 'diavgeia'],
  ['σύμβαση'],
  ['συμβάσεις'],
  ['συμβάσεων'],
  ['δήμου'],
  ['δήμος'],
  ['δήμων'],
  ['απόφαση'],
  ['αποφάσεις'],
  ['προμήθεια'],
  ['προμήθειας'],
  ['υπηρεσιών'],
  ['ανάθεση'],
  ['αναθέσεις'],
  ['έργου'],
  ['έργα'],
  ['μελέτη'],
  ['μελέτης'],
  ['κατασκευή'],
  ['συντήρηση'],
  ['καθαριότητας'],
  ['πρόσληψη'],
  ['προσωπικού'],
  ['ηλεκτρικής ενέργειας'],
  ['άδεια'],
  ['άδειες'],
  ['δήμου Αθηναίων'],
  ['Δήμος Θεσσαλονίκης'],
  ['Περιφέρεια Κρήτης'],
  ['νοσοκομείο'],
  ['νοσοκομείου'],
  ['σχολικών κτιρίων'],
  ['"τεχνικές προδιαγραφές"'],
  ['"δημόσιο συμφέρον"'],
  ['"οδικού δικτύου"'],
  ['προμηθ*'],
  ['συμβάσ*'],
  ['υπηρεσ* καθαρ*'],
  ['contract'],
  ['contracts'],
  ['service'],
  ['services'],
  ['supply'],
  ['supplies'],
  ['hospital'],
  ['hospitals'],
  ['works'],
  ['construction works'],
  ['"public procurement"'],
  ['medical equipment'],
  ['cleaning services'],
  ['energy'],
  ['buildings'],
  ['Thessaloniki'],
  ['Heraklion'],
  ['Athens'],
  ['Dimos Athinaion'],
  ['Patras'],
  ['Piraeus'],
  ['Crete'],
];

const summary = { exact: 0, within10: 0 };
console.log('embedded\telasticsearch\tquery');
for (const [text, source] of QUERIES) {
  const total = async (p: SearchProvider) => (await p.search({ text, filters: { source }, limit: 0, offset: 0 })).total;
  const [a, b] = [await total(embedded), await total(es)];
  if (a === b) summary.exact += 1;
  if (Math.abs(a - b) <= 0.1 * Math.max(a, b)) summary.within10 += 1;
  console.log(`${a}\t${b}\t${text}${source ? ` (source=${source})` : ''}`);
}
console.log(`${QUERIES.length} queries: ${summary.exact} equal totals, ${summary.within10} within 10%`);
await embedded.close();
await es.close();
