// Ranking in one home: every number that ranks a hit is declared in index-mappings/ranking.ts, and both
// engines read it from there.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { searchText } from '../../index-mappings/mapping.js';
import * as ranking from '../../index-mappings/ranking.js';
import { DEFAULT_TUNING } from '../../lib/search/embedded.js';
import { buildKnn } from '../../lib/search/elasticsearch/queries.js';
import { REPO_ROOT } from '../helpers/paths.js';

t.test('when the code is read, then each ranking number is declared in index-mappings/ranking.ts and nowhere else', async (t) => {
  const names = Object.keys(ranking);
  t.ok(names.length >= 9, `the knobs were read (${names.join(', ')})`);
  const declared = new RegExp(String.raw`\b(?:const|let|var)\s+(${names.join('|')}|K1|B)\s*=`);
  const found = execFileSync('git', ['ls-files', 'api', 'lib', 'index-mappings', 'ingest', 'cli'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.ts$/.test(f) && f !== 'index-mappings/ranking.ts')
    .filter((f) => fs.existsSync(path.join(REPO_ROOT, f)) && declared.test(fs.readFileSync(path.join(REPO_ROOT, f), 'utf8')));
  t.same(found, []);
});

t.test('when each engine ranks, then it uses the shared numbers: the title written TITLE_WEIGHT times, the graph floors', async (t) => {
  const title = 'Οδικά έργα';
  t.same(
    searchText({ source: 'kimdis', title, content: 'Σήμανση', summary: '', entities: { afm: [], ada: [], names: [] } }).filter((s) => s === title).length,
    ranking.TITLE_WEIGHT,
    'Elasticsearch writes the title TITLE_WEIGHT times',
  );
  t.equal(buildKnn({ vector: [1, 0], limit: 1 }).num_candidates, ranking.KNN_MIN_CANDIDATES, 'Elasticsearch gathers at least KNN_MIN_CANDIDATES');
  t.equal(DEFAULT_TUNING.vectorCandidates, ranking.VECTOR_CANDIDATES, 'the embedded graph is asked for at least VECTOR_CANDIDATES');
  t.same([ranking.TITLE_WEIGHT, ranking.BODY_WEIGHT, ranking.BM25_K1, ranking.BM25_B], [3, 1, 1.2, 0.75], "FTS5's k1 and b, the title three times");
});
