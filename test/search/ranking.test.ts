// Ranking in one home: every number that ranks a hit is declared in index-mappings/ranking.ts, both
// engines read it from there, and it does what it says: BM25_K1 and BM25_B are FTS5's own (the engine's
// replica gives FTS5's scores), and a title word weighs TITLE_WEIGHT body words.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { searchText } from '../../index-mappings/mapping.js';
import { Database } from '../../lib/sqlite.js';
import * as ranking from '../../index-mappings/ranking.js';
import { DEFAULT_TUNING } from '../../lib/search/embedded.js';
import { avgdl, bm25Score, decodeAverages, idf } from '../../lib/search/embedded/bm25.js';
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
  t.ok(
    buildKnn({ vector: [1, 0], limit: 2 * ranking.KNN_MIN_CANDIDATES }).num_candidates! >= 2 * ranking.KNN_MIN_CANDIDATES,
    'and never fewer than it is asked for',
  );
  t.equal(DEFAULT_TUNING.vectorCandidates, ranking.VECTOR_CANDIDATES, 'the embedded graph is asked for at least VECTOR_CANDIDATES');
});

/** An FTS5 table as the embedded engine's (schema.ts: title and body, `ascii`), rows of space-separated words; its rowid → bm25() for `term`. */
function fts5Scores(rows: [title: string, body: string][], term: string) {
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE f USING fts5 (title, body, tokenize = 'ascii')");
  const insert = db.prepare('INSERT INTO f (rowid, title, body) VALUES (?, ?, ?)');
  rows.forEach(([title, body], i) => insert.run(i + 1, title, body));
  const score = `bm25(f, ${ranking.TITLE_WEIGHT.toFixed(1)}, ${ranking.BODY_WEIGHT.toFixed(1)})`;
  const scores = new Map(
    (db.prepare(`SELECT rowid, ${score} AS s FROM f WHERE f MATCH ?`).all(term) as { rowid: number; s: number }[]).map((r) => [r.rowid, r.s]),
  );
  return { db, scores, totals: decodeAverages(db.prepare('SELECT block FROM f_data WHERE id = 1').pluck().get() as Buffer) };
}

t.test("when FTS5 ranks with the title and body weights, then the engine's replica with BM25_K1 and BM25_B gives its scores bit for bit", async (t) => {
  const rows: [string, string][] = [
    ['road works', 'resurfacing of the road and the road signs'],
    ['lighting', 'street lighting and road lighting equipment, installed'],
    ['school cleaning', 'cleaning of the schools of the region for twelve months'],
    ['road', 'road'],
    ['bridge repair', 'a long text about a bridge that names no other term at all, word after word after word'],
  ];
  const { db, scores, totals } = fts5Scores(rows, 'road');
  t.teardown(() => db.close());
  const containing = rows.filter(([title, body]) => `${title} ${body}`.split(' ').includes('road')).length;
  t.equal(scores.size, containing);
  for (const [rowid, fts5] of scores) {
    const [title, body] = rows[rowid - 1]!;
    const count = (s: string) => s.split(' ').filter((w) => w === 'road').length;
    const f = ranking.TITLE_WEIGHT * count(title) + ranking.BODY_WEIGHT * count(body);
    const tokens = `${title} ${body}`.split(' ').length;
    t.equal(bm25Score(idf(db, totals.rows, containing), f, tokens, avgdl(totals)), fts5, `row ${rowid}`);
  }
});

t.test(
  'when a word is in one title and in another body of the same length, then the title ranks first, and its weight is TITLE_WEIGHT body words',
  async (t) => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    const repeated = Array(ranking.TITLE_WEIGHT).fill('road').join(' ');
    const { db, scores } = fts5Scores(
      [
        ['road', filler(ranking.TITLE_WEIGHT + 2)],
        ['bridge', `road ${filler(ranking.TITLE_WEIGHT + 1)}`],
        ['bridge', `${repeated} ${filler(2)}`],
        ['tunnel', filler(8)],
      ],
      'road',
    );
    t.teardown(() => db.close());
    t.ok(scores.get(1)! < scores.get(2)!, 'the title match scores better (bm25() is negative, smaller is better)');
    t.equal(scores.get(1), scores.get(3), 'a title word counts as TITLE_WEIGHT of the same word in the body');
  },
);
