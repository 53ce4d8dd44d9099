// The analysis chain of index-mappings/settings.ts, checked token by token through Elasticsearch's
// _analyze API on an index the provider created (so what is tested is what is deployed).
import t from 'tap';
import { readAlias } from '../../index-mappings/index-names.js';
import { ENGLISH_ANALYZER, ENGLISH_STOP_WORDS, FOLDED_NORMALIZER, GREEK_ANALYZER, GREEK_STOP_WORDS } from '../../index-mappings/settings.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { deleteIndices, elasticsearchUrl, es, randomPrefix } from '../helpers/elasticsearch.js';

t.setTimeout(300_000);

const url = await elasticsearchUrl(t);
const prefix = randomPrefix();
const provider = new ElasticsearchProvider({ url, prefix, dimension: 4, embeddingModel: 'test/none' });
await provider.init();
t.teardown(async () => {
  await provider.close();
  await deleteIndices(url, prefix);
});
const index = readAlias(prefix);

async function tokens(text: string, by: { analyzer: string } | { normalizer: string }): Promise<string[]> {
  const res = await es(url, 'POST', `/${index}/_analyze`, { ...by, text });
  if (res.status !== 200) throw new Error(`_analyze: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.tokens as { token: string }[]).map((x) => x.token);
}
const greek = (text: string) => tokens(text, { analyzer: GREEK_ANALYZER });
const english = (text: string) => tokens(text, { analyzer: ENGLISH_ANALYZER });

t.test('when απόφαση, ΑΠΟΦΑΣΗ and αποφαση are analysed as Greek, then they give the same single token', async (t) => {
  const accented = await greek('απόφαση');
  t.equal(accented.length, 1);
  t.same(await greek('ΑΠΟΦΑΣΗ'), accented);
  t.same(await greek('αποφαση'), accented);
  t.same(await greek('Απόφαση'), accented);
  t.notMatch(accented[0], /[άέήίόύώϊϋΐΰ]/, 'no tonos or dialytika survives');
});

t.test('when συμβάσεις and σύμβαση are analysed as Greek, then they stem to the same token', async (t) => {
  const plural = await greek('συμβάσεις');
  t.equal(plural.length, 1);
  t.same(await greek('σύμβαση'), plural);
  t.same(await greek('ΣΥΜΒΑΣΕΩΝ'), plural);
  t.not(plural[0], 'συμβασεισ', 'the plural ending is stemmed away');
});

t.test('when a word ends in final sigma, then it folds to the same token as with sigma', async (t) => {
  t.same(await greek('διαγωνισμός'), await greek('ΔΙΑΓΩΝΙΣΜΟΣ'));
  const folded = await greek('διαγωνισμός');
  t.notMatch(folded[0], /ς/, 'no final sigma is left');
});

t.test('when Greek text has stop words, then they are dropped', async (t) => {
  t.same(await greek('και η σύμβαση'), await greek('σύμβαση'));
});

t.test("when the spelled-out stop lists go through Elasticsearch's own _greek_ and _english_ sets, then every word is dropped", async (t) => {
  // The query builder relies on these lists being the analysers' (settings.ts); they were copied from
  // Lucene 9.12's GreekAnalyzer and EnglishAnalyzer, and this keeps them honest against the server.
  for (const [set, words] of [
    ['_greek_', GREEK_STOP_WORDS],
    ['_english_', ENGLISH_STOP_WORDS],
  ] as const) {
    const res = await es(url, 'POST', `/${index}/_analyze`, { tokenizer: 'standard', filter: [{ type: 'stop', stopwords: set }], text: words.join(' ') });
    t.same(res.body.tokens, [], set);
  }
  t.same(await greek('Και ΤΗΣ αυτούς Ότι'), [], 'accented and capital forms too');
  t.same(await english('The OF with'), []);
});

t.test('when Latin words with accents are analysed, then both analyzers fold the accents', async (t) => {
  t.same(await greek('Café'), ['cafe']);
  t.same(await english('Café'), ['cafe']);
});

t.test('when Greek words are analysed as English, then they fold as in the Greek analysis and are kept unstemmed', async (t) => {
  // Greek stop words are found through this analysis only (elasticsearch.ts fieldGroupOf).
  t.same(await english('ΤΗΣ της τησ Της'), ['τησ', 'τησ', 'τησ', 'τησ']);
  t.same(await english('ΑΠΌ από απο'), ['απο', 'απο', 'απο']);
  t.same(await english('Συμβάσεις ΠΡΟΪΌΝΤΑ'), ['συμβασεισ', 'προιοντα']);
});

t.test('when English words are analysed as English, then they stem and lose stop words', async (t) => {
  t.same(await english('contracts'), await english('contract'));
  t.same(await english('running'), ['run']);
  t.same(await english("the contractor's offices"), await english('contractor office'));
  t.same(await english('the'), []);
});

t.test('when a name goes through the folded keyword normalizer, then case and accents fold but words stay whole', async (t) => {
  const name = await tokens('Παπαδόπουλος Α.Ε.', { normalizer: FOLDED_NORMALIZER });
  t.same(name, ['παπαδοπουλοσ α.ε.']);
  t.same(await tokens('ΠΑΠΑΔΟΠΟΥΛΟΣ Α.Ε.', { normalizer: FOLDED_NORMALIZER }), name);
  t.same(await tokens('Société Générale', { normalizer: FOLDED_NORMALIZER }), ['societe generale']);
});
