// The index contract as Elasticsearch receives it. A change to settings or mapping shows up as a
// snapshot diff to review (and, if existing indices cannot take it, a MAPPING_VERSION bump).
// Regenerate after a deliberate change: npx tap --snapshot test/unit/index-mappings.test.ts
import t from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import {
  indexMeta,
  physicalIndexName,
  physicalIndexPattern,
  readAlias,
  timeStamp,
  writeAlias,
} from '../../index-mappings/index-names.js';
import { buildMapping, METADATA_JSON_FIELD, SEARCH_TEXT_FIELD } from '../../index-mappings/mapping.js';
import { buildSettings } from '../../index-mappings/settings.js';
import { MAPPING_VERSION } from '../../index-mappings/version.js';

t.test('when the settings and mapping are compiled, then they match the reviewed snapshot', async (t) => {
  t.matchSnapshot({ settings: buildSettings(), mappings: buildMapping(384) }, 'index body for a 384-dimension embedder');
});

t.test('when the mapping is built for an embedder, then the vector field takes its dimension', async (t) => {
  const props = buildMapping(768).properties as Record<string, { dims?: number; type?: string; similarity?: string }>;
  t.equal(props.embedding.type, 'dense_vector');
  t.equal(props.embedding.dims, 768);
  t.equal(props.embedding.similarity, 'cosine');
  for (const bad of [0, -1, 1.5, Number.NaN, 5000]) t.throws(() => buildMapping(bad), RangeError, `dimension ${bad}`);
});

t.test('when _meta is passed, then it is merged over the version and dimension', async (t) => {
  const m = buildMapping(4, { ...indexMeta('ted', 'some/model', 4) });
  t.same(m._meta, { mapping_version: MAPPING_VERSION, embedding_dimension: 4, source: 'ted', embedding_model: 'some/model' });
});

t.test('when an indexed document is compared with the mapping, then every field is mapped and nothing else but the metadata record and the search text', async (t) => {
  // A complete IndexedDocument: the compiler fails this test when document.ts gains a field.
  const doc: Required<IndexedDocument> = {
    source_id: 'ted:1', source: 'ted', country: 'EU', title: '', doc_type: '', doc_category: '',
    published_at: '', source_url: '', language: 'en', quality_score: 0, content: '', summary: '',
    entities: { afm: [], ada: [], names: [] }, amount: { value: 1, currency: 'EUR' }, cpv: [], region: null,
    sector: null, indexed_at: '', content_hash: '', original: { sha256: '', content_type: '' }, embedding: null,
  };
  const props = buildMapping(4).properties as Record<string, { properties?: Record<string, unknown> }>;
  // metadata_json and search_text are written by the adapter from the document's own fields (mapping.ts).
  t.same(Object.keys(props).sort(), [...Object.keys(doc), METADATA_JSON_FIELD, SEARCH_TEXT_FIELD].sort());
  t.same(Object.keys(props.entities.properties!).sort(), Object.keys(doc.entities).sort());
  t.same(Object.keys(props.amount.properties!).sort(), Object.keys(doc.amount!).sort());
  t.same(Object.keys(props.original.properties!).sort(), Object.keys(doc.original!).sort());
  t.equal(buildMapping(4).dynamic, 'strict');
});

t.test('when index names are built, then they follow <prefix>-docs-<source>-m<version>-<stamp>', async (t) => {
  t.equal(readAlias('pdi'), 'pdi-docs');
  t.equal(writeAlias('pdi', 'data_gov_gr'), 'pdi-docs-data_gov_gr');
  t.equal(physicalIndexName('pdi', 'kimdis', 'init'), `pdi-docs-kimdis-m${MAPPING_VERSION}-init`);
  t.equal(timeStamp(new Date('2025-01-02T03:04:05.678Z')), '20250102t030405678');
  t.match(physicalIndexName('pdi', 'ted'), new RegExp(`^pdi-docs-ted-m${MAPPING_VERSION}-\\d{8}t\\d{9}$`));
  t.equal(physicalIndexPattern('pdi'), 'pdi-docs-*-m*');
});
