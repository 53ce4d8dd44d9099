// Would another index layout or query shape meet issue 3's Elasticsearch targets? Measures, on
// Elasticsearch alone (no API), the most common term and the two-term query at 10 connections, for:
//   per-source   the production layout (bench/search/api.ts's 8 per-source indices) and query;
//   one-index    the same 1M documents in ONE index, production query;
//   combined     one index, each word matched in `all_text` (copy_to of title, content, summary,
//                entities.names), plus an optional title clause for the boost;
//   combined-bare the same without the title clause (no title boost, which the issue asks for).
// Needs wrk, and ELASTICSEARCH_URL with the per-source corpus loaded by bench/search/api.ts (same
// --docs and --seed). Builds the experiment index `<prefix>-layout-experiment` once (~10 min at 1M).
// Results: docs/benchmarks.md "Session 5". Written for mapping version 4 (run it at 7caf88f): from
// version 5 on, the per-source query already is one field (`search_text`), and the title fields the
// `combined` variant boosts are no longer indexed.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from '@elastic/elasticsearch';
import { metadataOf } from '../../index-mappings/document.js';
import { METADATA_JSON_FIELD } from '../../index-mappings/mapping.js';
import { buildTextQuery } from '../../lib/search/elasticsearch.js';
import { wrkPost } from '../wrk.js';
import { Generator, sourceRanges } from './generate.js';

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    seconds: { type: 'string', default: '8' },
  },
});
const N = Number(args.docs);
const url = process.env.ELASTICSEARCH_URL;
if (!url) throw new Error('ELASTICSEARCH_URL is not set (scripts/elasticsearch.sh start prints it)');
const client = new Client({ node: url, requestTimeout: 600_000 });
const perSource = `bench${N}-docs`;
const oneIndex = `bench${N}-layout-experiment`;
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

async function buildOneIndex(): Promise<void> {
  if (await client.indices.exists({ index: oneIndex })) {
    const { count } = await client.count({ index: oneIndex });
    if (count === N) return;
    await client.indices.delete({ index: oneIndex });
  }
  // The production mapping and analysis, read from a per-source index, plus the combined field.
  const [name] = Object.keys(await client.indices.get({ index: perSource }));
  const live = (await client.indices.get({ index: name }))[name];
  const mappings = live.mappings as { properties: Record<string, { copy_to?: string[]; properties?: Record<string, { copy_to?: string[] }> }> };
  for (const field of ['title', 'content', 'summary']) mappings.properties[field].copy_to = ['all_text'];
  mappings.properties.entities.properties!.names.copy_to = ['all_text'];
  const title = mappings.properties.title as unknown as { analyzer: string; fields: { en: { analyzer: string } } };
  (mappings.properties as Record<string, unknown>).all_text = {
    type: 'text', analyzer: title.analyzer, fields: { en: { type: 'text', analyzer: title.fields.en.analyzer } },
  };
  await client.indices.create({
    index: oneIndex,
    settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1', analysis: live.settings!.index!.analysis },
    mappings: mappings as never,
  });
  const gen = new Generator(N, Number(args.seed));
  let loaded = 0;
  for (const { from, to } of sourceRanges(N)) {
    for await (const batch of gen.batches(from, to, 2000)) {
      const record = (doc: (typeof batch)[number]) => Buffer.from(JSON.stringify(metadataOf(doc))).toString('base64');
      const operations = batch.flatMap((doc) => [{ index: { _index: oneIndex, _id: doc.source_id } }, { ...doc, [METADATA_JSON_FIELD]: record(doc) }]);
      const res = await client.bulk({ operations });
      if (res.errors) throw new Error(JSON.stringify(res.items.find((i) => i.index?.error)));
      loaded += batch.length;
      if (loaded % 100_000 === 0) progress(`${loaded} loaded`);
    }
  }
  await client.indices.putSettings({ index: oneIndex, settings: { refresh_interval: null } as never });
  await client.indices.refresh({ index: oneIndex });
  // As production rebuilds do before their alias swap.
  await client.indices.forcemerge({ index: oneIndex, max_num_segments: 1 });
}

const PROJECTION = { size: 125, _source: false, stored_fields: '_none_', docvalue_fields: [METADATA_JSON_FIELD], track_total_hits: 10_000 };
const combined = (field: string, titleField: string | null, text: string) => ({
  bool: {
    must: [{ match: { [field]: { query: text, operator: 'and' } } }],
    should: titleField ? [{ match: { [titleField]: { query: text, boost: 2 } } }] : [],
  },
});
const QUERIES = [
  // `και` is a Greek stop word: only the English analysis indexes it (as the production query knows).
  { name: 'most common term', text: 'και', field: 'all_text.en', title: 'title.en' },
  { name: 'two-term query', text: 'ανάθεση δήμος', field: 'all_text', title: 'title' },
];


await buildOneIndex();
const results = [];
for (const q of QUERIES) {
  const variants: [string, string, object][] = [
    ['per-source', perSource, buildTextQuery(q.text) as object],
    ['one-index', oneIndex, buildTextQuery(q.text) as object],
    ['combined', oneIndex, combined(q.field, q.title, q.text)],
    ['combined-bare', oneIndex, combined(q.field, null, q.text)],
  ];
  for (const [variant, index, query] of variants) {
    const total = (await client.search({ index, query: query as never, size: 0, track_total_hits: true })).hits.total;
    const row = { query: q.name, variant, total: typeof total === 'object' ? total.value : total, ...wrkPost(`${url}/${index}/_search?request_cache=false`, { ...PROJECTION, query }, Number(args.seconds)) };
    progress(JSON.stringify(row));
    results.push(row);
  }
}
process.stdout.write(`${JSON.stringify({ documents: N, connections: 10, seconds: Number(args.seconds), load_average: os.loadavg(), results }, null, 2)}\n`);
