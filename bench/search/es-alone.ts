// The three search queries on Elasticsearch alone: the adapter's exact page request (this build's
// buildTextQuery, score-only page of 125, metadata record; total as --track says) sent raw with wrk, 10 connections,
// shard request cache off; no API, no client. For comparing Elasticsearch versions and query shapes.
//   ELASTICSEARCH_URL=… node --import tsx bench/search/es-alone.ts [--docs 1000000] [--seconds 8] [--rounds 2]
//     [--track false,10000]   track_total_hits values to send the page with, each a variant (the
//                             adapter's page counts up to 10,000: EXACT_COUNT_UP_TO)
// Needs wrk, and the corpus loaded by bench/search/api.ts --engine elasticsearch (same --docs). Each round also
// sends the query as it is sent while an index of an older mapping version serves (`with older
// fields`), to price that.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { METADATA_JSON_FIELD } from '../../index-mappings/mapping.js';
import { buildTextQuery } from '../../lib/search/elasticsearch.js';
import { wrkPost } from '../wrk.js';
import { Generator, SURNAMES } from './generate.js';

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    track: { type: 'string', default: 'false' },
  },
});
const tracks = args.track!.split(',').map((v) => (v === 'false' ? false : Number(v)));
const url = process.env.ELASTICSEARCH_URL;
if (!url) throw new Error('ELASTICSEARCH_URL is not set (scripts/elasticsearch.sh start prints it)');
const index = `bench${args.docs}-docs`;
const PAGE = { size: 125, _source: false, stored_fields: '_none_', docvalue_fields: [METADATA_JSON_FIELD] };
const gen = new Generator(Number(args.docs), Number(args.seed));

async function post(pathname: string, body: object): Promise<any> {
  const res = await fetch(`${url}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

const version =
  (await (await fetch(url)).json().catch(() => ({})))?.version?.number ??
  Object.values((await (await fetch(`${url}/_nodes?filter_path=nodes.*.version`)).json()).nodes as Record<string, { version: string }>)[0].version;
const results = [];
for (let round = 1; round <= Number(args.rounds); round++) {
  for (const [name, text] of [
    ['rare term', SURNAMES[700]],
    ['most common term', gen.vocab[0]],
    ['two-term query', 'ανάθεση δήμος'],
  ]) {
    for (const [variant, older] of [
      ['this build', false],
      ['with older fields', true],
    ] as const) {
      const query = buildTextQuery(text, {}, older);
      const { count } = await post(`/${index}/_count`, { query });
      for (const track of tracks) {
        const body = { ...PAGE, track_total_hits: track, query };
        const row = {
          round,
          query: name,
          text,
          variant,
          track_total_hits: track,
          total: count,
          ...wrkPost(`${url}/${index}/_search?request_cache=false`, body, Number(args.seconds)),
        };
        process.stderr.write(`${JSON.stringify(row)}\n`);
        results.push(row);
      }
    }
  }
}
process.stdout.write(
  `${JSON.stringify({ elasticsearch: version, documents: Number(args.docs), connections: 10, load_average: os.loadavg(), results }, null, 2)}\n`,
);
