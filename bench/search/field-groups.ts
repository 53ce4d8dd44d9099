// Checks the claim behind buildTextQuery's field groups (docs/search-engines.md "Each word in the
// fields of its script"): on the benchmark corpus, looking a word up only in the fields of its script
// gives the same total as looking it up in every text field, for a spread of queries. Prints both
// totals, how many of the top 10 are shared (scores change by design), and each form's latency.
//   ELASTICSEARCH_URL=… node --import tsx bench/search/field-groups.ts [--docs 1000000]
// Needs the corpus bench/search/api.ts loads (indices prefixed `bench<docs>`).
import { parseArgs } from 'node:util';
import { readAlias } from '../../index-mappings/index-names.js';
import { TEXT_QUERY_FIELDS } from '../../index-mappings/mapping.js';
import { buildTextQuery } from '../../lib/search/elasticsearch.js';
import { Generator } from './generate.js';

const { values: args } = parseArgs({ options: { docs: { type: 'string', default: '1000000' }, seed: { type: 'string', default: '20240611' } } });
const url = process.env.ELASTICSEARCH_URL;
if (!url) throw new Error('set ELASTICSEARCH_URL');
const endpoint = `${url}/${readAlias(`bench${args.docs}`)}/_search?request_cache=false`;

/** The query as it was before field groups: every word in every text field. */
const allFields = (q: string) => ({
  bool: {
    must: [{ simple_query_string: { query: q, fields: TEXT_QUERY_FIELDS, default_operator: 'and', flags: 'PHRASE|PREFIX|WHITESPACE', lenient: true } }],
    filter: [],
  },
});

const vocab = new Generator(Number(args.docs), Number(args.seed)).vocab;
const queries = [
  'και',
  'the',
  'ανάθεση δήμος',
  'σύμβαση',
  'ΣΥΜΒΑΣΕΙΣ',
  'contract',
  'contracts',
  'supply services',
  '"public procurement"',
  '"ανάθεση της"',
  'της σύμβασης',
  'for hospital',
  'Λεοντέλλης',
  'δημοτικός',
  'δήμου Αθηναίων',
  'σύμβαση contract',
  'μελέτη 2024',
  'συμβάσ*',
];
for (let i = 0; i < 60; i += 3) queries.push(vocab[(i * 7) % vocab.length], `${vocab[(i * 13) % vocab.length]} ${vocab[(i * 31 + 5) % vocab.length]}`);

async function run(query: unknown): Promise<{ total: number; top: string[]; ms: number }> {
  const started = performance.now();
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, size: 10, track_total_hits: true, _source: false, sort: ['_score', { published_at: 'desc' }, { source_id: 'asc' }] }),
  });
  const body = (await res.json()) as { hits: { total: { value: number }; hits: { _id: string }[] } };
  return { total: body.hits.total.value, top: body.hits.hits.map((h) => h._id), ms: performance.now() - started };
}

let differing = 0;
const time = { all: 0, grouped: 0 };
for (const q of queries) {
  const before = await run(allFields(q));
  const after = await run(buildTextQuery(q));
  time.all += before.ms;
  time.grouped += after.ms;
  if (before.total !== after.total) differing++;
  const shared = after.top.filter((id) => before.top.includes(id)).length;
  console.log(`${before.total === after.total ? 'same' : 'DIFFERENT'}  ${before.total} / ${after.total}  top-10 shared ${shared}  ${q}`);
}
console.log(
  `${queries.length} queries, ${differing} with different totals; exact-count time all fields ${time.all.toFixed(0)} ms, grouped ${time.grouped.toFixed(0)} ms`,
);
if (differing > 0) process.exitCode = 1;
