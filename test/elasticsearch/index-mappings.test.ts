// The index contract as Elasticsearch receives it. A change to settings or mapping shows up as a
// snapshot diff to review (and, if existing indices cannot take it, a MAPPING_VERSION bump).
// Regenerate after a deliberate change: npx tap --snapshot test/elasticsearch/index-mappings.test.ts
import t from 'tap';
import { ANALYSIS_FIELD, analysisKeysOf, GROUPING_FIELDS, PARTY_FIELD } from '../../index-mappings/analysis.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { indexMeta, physicalIndexName, physicalIndexPattern, readAlias, timeStamp, legacyIndexPatterns } from '../../index-mappings/index-names.js';
import { buildMapping } from '../../index-mappings/mapping.js';
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
  const m = buildMapping(4, { ...indexMeta('some/model', 4) });
  t.same(m._meta, { mapping_version: MAPPING_VERSION, embedding_dimension: 4, embedding_model: 'some/model' });
});

t.test(
  'when the analysis keys are compared with the mapping, then each is mapped, every field a grouping or the party filter reads is a keyword, and the mapping is strict',
  async (t) => {
    // A complete IndexedDocument: the compiler fails this test when document.ts gains a field. That every
    // field of it is mapped with its declared type is test/house/document-model.test.ts's.
    const doc: Required<IndexedDocument> = {
      source_id: 'ted:1',
      source: 'ted',
      country: 'EU',
      title: '',
      doc_type: '',
      doc_category: '',
      published_at: '',
      source_url: '',
      language: 'en',
      quality_score: 0,
      content: '',
      summary: '',
      entities: { afm: [], ada: [], names: [] },
      parties: [],
      procedure_type: null,
      tenders_received: null,
      act_date: null,
      amount: { value: 1, currency: 'EUR' },
      cpv: [],
      region: null,
      sector: null,
      indexed_at: '',
      content_hash: '',
      original: { sha256: '', content_type: '' },
      embedding: null,
      cpv_labels_en: [],
      cpv_labels_el: [],
    };
    const props = buildMapping(4).properties as Record<string, { properties?: Record<string, unknown> }>;
    // Every analysis key is mapped, and every field a grouping or the party filter reads is a keyword.
    t.same(Object.keys(props[ANALYSIS_FIELD].properties!).sort(), Object.keys(analysisKeysOf(doc as IndexedDocument)).sort());
    const keyword = (field: string) => field.split('.').reduce((node: any, part) => node?.properties?.[part] ?? node?.[part], { properties: props })?.type;
    for (const field of [...Object.values(GROUPING_FIELDS), PARTY_FIELD]) t.equal(keyword(field), 'keyword', field);
    t.equal(buildMapping(4).dynamic, 'strict');
  },
);

t.test('when index names are built, then they follow <prefix>-docs-m<version>-<stamp>, one index for every source', async (t) => {
  t.equal(readAlias('pdi'), 'pdi-docs');
  t.equal(physicalIndexName('pdi', 'init'), `pdi-docs-m${MAPPING_VERSION}-init`);
  t.equal(timeStamp(new Date('2025-01-02T03:04:05.678Z')), '20250102t030405678');
  t.match(physicalIndexName('pdi'), new RegExp(`^pdi-docs-m${MAPPING_VERSION}-\\d{8}t\\d{9}$`));
  t.equal(physicalIndexPattern('pdi'), 'pdi-docs-m*');
  t.ok(legacyIndexPatterns('pdi').includes('pdi-docs-kimdis-m*'), 'the per-source indices of older builds');
});

t.test('when shards and replicas are configured, then a new index takes them; by default one shard and a replica once a second node holds it', async (t) => {
  t.match(buildSettings().index, { number_of_shards: 1, auto_expand_replicas: '0-1' });
  const set = buildSettings({ shards: 3, replicas: 2 }).index as Record<string, unknown>;
  t.match(set, { number_of_shards: 3, number_of_replicas: 2 });
  t.notOk('auto_expand_replicas' in set, 'an explicit replica count is not auto-expanded');
});
