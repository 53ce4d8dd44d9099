// The document model, declared once (index-mappings/document.ts DOCUMENT_FIELDS), against the places
// that spell it again: each field's TypeScript type in IndexedDocument (checked by the compiler, below),
// the Elasticsearch mapping (mapping.ts), the embedded engine's `_docs` columns (lib/search/embedded/
// schema.ts, and its side tables, facts.ts) and what each engine searches (searched-text.ts). Each check lists its differences, and is
// shown to name a field dropped from one engine or given another type there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ANALYSIS_FIELD, analysisKeysOf } from '../../index-mappings/analysis.js';
import { DOCUMENT_FIELDS, type FieldSpec, type IndexedDocument } from '../../index-mappings/document.js';
import {
  buildMapping,
  GENERATION_FIELD,
  METADATA_JSON_FIELD,
  SEARCH_LATIN_FIELD,
  SEARCH_TEXT_FIELD,
  searchText,
  SNIPPET_TEXT_FIELD,
} from '../../index-mappings/mapping.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { KEY_KINDS } from '../../lib/search/embedded/facts.js';
import { docText, TEXT_VERSION } from '../../lib/search/embedded/text.js';
import { Database } from '../../lib/sqlite.js';

// ------------------------------------------------------------------ the TypeScript type of each field

/** The value a declaration stands for, null aside. */
type Shape<S> = S extends { array: true } ? Value<S>[] : Value<S>;
type Value<S> = S extends { fields: infer F }
  ? { [K in keyof F]: Shape<F[K]> | (F[K] extends { nullable: true } ? null : never) }
  : S extends { type: 'integer' | 'float' | 'double' }
    ? number
    : S extends { type: 'vector' }
      ? number[]
      : string;
/** Whether a field's type is its declaration's: the same shape, and null or absent exactly when declared nullable. */
type Agrees<T, S> = [NonNullable<T>] extends [Shape<S>]
  ? ((null | undefined) & T extends never ? false : true) extends (S extends { nullable: true } ? true : false)
    ? true
    : false
  : false;
/** The fields of IndexedDocument whose type is not the one declared. */
type Disagreeing = { [K in keyof IndexedDocument]-?: Agrees<IndexedDocument[K], (typeof DOCUMENT_FIELDS)[K]> extends true ? never : K }[keyof IndexedDocument];
// Does not compile when a field disagrees, and the error names it.
const everyFieldAgrees: [Disagreeing] extends [never] ? 'every field agrees' : Disagreeing = 'every field agrees';

// ------------------------------------------------------------------ the checks

type Mapping = Record<string, { type?: string; index?: boolean; properties?: Mapping }>;

/** What the Elasticsearch adapter writes beside the document's own fields (mapping.ts, analysis.ts, generations.ts). */
const ADAPTER_FIELDS = [METADATA_JSON_FIELD, SNIPPET_TEXT_FIELD, SEARCH_TEXT_FIELD, SEARCH_LATIN_FIELD, GENERATION_FIELD, ANALYSIS_FIELD];
/** The mapping type of each declared type; an object is mapped by its properties. */
const MAPPING_TYPE: Record<FieldSpec['type'], string> = {
  keyword: 'keyword',
  text: 'text',
  date: 'date',
  integer: 'integer',
  float: 'float',
  double: 'double',
  object: 'object',
  nested: 'nested',
  vector: 'dense_vector',
};

/** How the mapping's properties differ from the declaration, one line per field. */
function mappingDifferences(properties: Mapping, fields: Record<string, FieldSpec> = DOCUMENT_FIELDS, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    const field = `${prefix}${name}`;
    const mapped = properties[name];
    if (mapped === undefined) {
      out.push(`${field}: not in the mapping`);
      continue;
    }
    const type = mapped.type ?? (mapped.properties ? 'object' : 'none');
    if (type !== MAPPING_TYPE[spec.type]) out.push(`${field}: declared ${spec.type}, mapped ${type}`);
    if (spec.searched && mapped.index !== false) out.push(`${field}: searched through ${SEARCH_TEXT_FIELD}, yet indexed on its own`);
    if (spec.fields) out.push(...mappingDifferences(mapped.properties ?? {}, spec.fields, `${field}.`));
  }
  const adapter = prefix === '' ? ADAPTER_FIELDS : [];
  for (const name of Object.keys(properties)) if (!(name in fields) && !adapter.includes(name)) out.push(`${prefix}${name}: mapped, not in the model`);
  return out;
}

interface Column {
  name: string;
  type: string;
  notnull: number;
}

/**
 * The engine's own `_docs` columns (schema.ts): the row id, its publish block, indexed_at in ms, the token
 * count, and the text a snippet is cut from (derived from the title and content at write time).
 */
const INTERNAL_COLUMNS = ['rid', 'pubkey', 'indexed_ms', 'ntok', 'snippet_text'];

/** The `_docs` column type of a declaration: arrays and objects are JSON text. */
function columnType(spec: FieldSpec): string {
  if (spec.array || spec.fields) return 'TEXT';
  return spec.type === 'integer' ? 'INTEGER' : spec.type === 'float' || spec.type === 'double' ? 'REAL' : 'TEXT';
}

/** How a table set's `_docs` columns (and its vector table) differ from the declaration, one line per field. */
function columnDifferences(columns: Column[], hasVectorTable: boolean): string[] {
  const out: string[] = [];
  for (const [name, spec] of Object.entries<FieldSpec>(DOCUMENT_FIELDS)) {
    if (spec.type === 'vector') {
      if (!hasVectorTable) out.push(`${name}: no vector table`);
      continue;
    }
    const column = columns.find((c) => c.name === name);
    if (column === undefined) out.push(`${name}: not a column of _docs`);
    else if (column.type !== columnType(spec)) out.push(`${name}: declared ${spec.type}, a ${column.type} column`);
    else if (spec.nullable && column.notnull) out.push(`${name}: may be null, yet the column is NOT NULL`);
  }
  for (const { name } of columns) if (!(name in DOCUMENT_FIELDS) && !INTERNAL_COLUMNS.includes(name)) out.push(`${name}: a column, not in the model`);
  return out;
}

/** The side tables' own `_facts` columns (facts.ts): the row id, and the amount's value when in EUR. */
const DERIVED_FACTS = ['rid', 'eur'];

/**
 * How a table set's side tables (facts.ts) differ from the declaration: each `_facts` column a field
 * of the model with its `_docs` type, each `_keys` kind an analysis key a document may have several of
 * (analysisKeysOf) or its ΑΔΑs (the contract-value links).
 */
function sideDifferences(facts: Column[], kinds: readonly string[], doc: IndexedDocument): string[] {
  const out: string[] = [];
  for (const { name, type } of facts) {
    if (DERIVED_FACTS.includes(name)) continue;
    const spec = (DOCUMENT_FIELDS as Record<string, FieldSpec>)[name];
    if (spec === undefined) out.push(`${name}: a fact, not in the model`);
    else if (type !== columnType(spec)) out.push(`${name}: declared ${spec.type}, a ${type} fact`);
  }
  const keyed = [
    ...Object.entries(analysisKeysOf(doc))
      .filter(([, v]) => Array.isArray(v))
      .map(([k]) => k),
    'ada',
  ];
  for (const kind of keyed) if (!kinds.includes(kind)) out.push(`${kind}: not a kind of _keys`);
  for (const kind of kinds) if (!keyed.includes(kind)) out.push(`${kind}: a kind of _keys, not an analysis key`);
  return out;
}

/**
 * A document with a word of its own in each string (`w0`, `w1`…, which neither engine stems), numbers
 * counted up, and `overrides` over it; `words` maps each word to its field (`entities.names`).
 */
function markedDocument(overrides: Partial<IndexedDocument> = {}): { doc: IndexedDocument; words: Map<string, string> } {
  const words = new Map<string, string>();
  let n = 0;
  const value = (spec: FieldSpec, field: string): unknown => {
    if (spec.fields) {
      const one = () => Object.fromEntries(Object.entries(spec.fields!).map(([k, s]) => [k, value(s, `${field}.${k}`)]));
      return spec.array ? [one()] : one();
    }
    if (spec.array) return [value({ ...spec, array: undefined }, field)];
    if (spec.type === 'vector') return [1, 0];
    if (spec.type === 'date') return '2024-05-01T10:00:00Z';
    if (spec.type === 'integer' || spec.type === 'float' || spec.type === 'double') return ++n;
    const word = `w${words.size}`;
    words.set(word, field);
    return word;
  };
  const doc = Object.fromEntries(Object.entries<FieldSpec>(DOCUMENT_FIELDS).map(([k, s]) => [k, value(s, k)]));
  return { doc: { ...(doc as unknown as IndexedDocument), ...overrides }, words };
}

/** The declared searched fields, as paths (`entities.names`). */
function searchedFields(fields: Record<string, FieldSpec> = DOCUMENT_FIELDS, prefix = ''): string[] {
  return Object.entries(fields).flatMap(([name, spec]) => [
    ...(spec.searched ? [`${prefix}${name}`] : []),
    ...(spec.fields ? searchedFields(spec.fields, `${prefix}${name}.`) : []),
  ]);
}

/** The fields whose word is among `tokens`. */
function fieldsFound(words: Map<string, string>, tokens: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const token of tokens) if (words.has(token)) found.add(words.get(token)!);
  return [...found].sort();
}

// ------------------------------------------------------------------ tests

t.test('when IndexedDocument is compiled against the declaration, then every field has the declared type', async (t) => {
  t.equal(everyFieldAgrees, 'every field agrees');
});

t.test(
  'when the Elasticsearch mapping is compared with the declaration, then every field is mapped with its type, and nothing else but what the adapter writes',
  async (t) => {
    const properties = buildMapping(4).properties as Mapping;
    t.same(mappingDifferences(properties), []);

    const dropped = structuredClone(properties);
    delete dropped.region;
    delete dropped.entities.properties!.ada;
    t.same(mappingDifferences(dropped), ['entities.ada: not in the mapping', 'region: not in the mapping'], 'a field dropped from the mapping is named');
    const retyped = structuredClone(properties);
    retyped.tenders_received = { type: 'keyword' };
    retyped.content = { type: 'text' };
    t.same(
      mappingDifferences(retyped),
      ['content: searched through search_text, yet indexed on its own', 'tenders_received: declared integer, mapped keyword'],
      'and a field mapped otherwise',
    );
    t.same(mappingDifferences({ ...properties, snippet: { type: 'text' } }), ['snippet: mapped, not in the model'], 'and a field only the mapping has');
  },
);

t.test(
  'when a table set of the embedded engine is compared with the declaration, then every field is a column of its type, its side tables hold fields and analysis keys, and a document reads back as written',
  async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-document-model-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'index.sqlite');
    const provider = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
    const { doc } = markedDocument({ source_id: 'kimdis:1', source: 'kimdis', act_date: '2024-04-30' });
    t.same(await provider.upsert([doc]), { written: 1, failed: [] });
    t.same(await provider.get(doc.source_id), doc, 'every field, with its type, as written');
    await provider.close();

    const db = new Database(file, { readonly: true });
    const [set] = db
      .prepare(`SELECT substr(name, 1, length(name) - 5) FROM sqlite_schema WHERE type = 'table' AND name GLOB 's_kimdis_*_docs'`)
      .pluck()
      .all() as string[];
    const columns = db.prepare('SELECT name, type, "notnull" FROM pragma_table_info(?)').all(`${set}_docs`) as Column[];
    const hasVectorTable = db.prepare(`SELECT count(*) FROM sqlite_schema WHERE name = ?`).pluck().get(`${set}_vectors`) === 1;
    const facts = db.prepare('SELECT name, type, "notnull" FROM pragma_table_info(?)').all(`${set}_facts`) as Column[];
    db.close();
    t.same(columnDifferences(columns, hasVectorTable), []);
    t.same(sideDifferences(facts, KEY_KINDS, doc), [], 'the side tables: facts of the model, the analysis keys');
    t.same(
      sideDifferences(
        [...facts.map((c) => (c.name === 'region' ? { ...c, type: 'INTEGER' } : c)), { name: 'vendor', type: 'TEXT', notnull: 0 }],
        ['buyer', 'cpv', 'ada', 'vendor'],
        doc,
      ),
      [
        'region: declared keyword, a INTEGER fact',
        'vendor: a fact, not in the model',
        'supplier: not a kind of _keys',
        'party: not a kind of _keys',
        'cpv_division: not a kind of _keys',
        'cpv_group: not a kind of _keys',
        'vendor: a kind of _keys, not an analysis key',
      ],
      'a fact of another type or not in the model, and a key kind missing or unknown, are named',
    );

    t.same(
      columnDifferences(
        columns.filter((c) => c.name !== 'sector'),
        false,
      ),
      ['sector: not a column of _docs', 'embedding: no vector table'],
      'a field dropped from the table set is named',
    );
    const retyped = columns.map((c) => (c.name === 'quality_score' ? { ...c, type: 'TEXT' } : c.name === 'region' ? { ...c, notnull: 1 } : c));
    t.same(
      columnDifferences(retyped, true),
      ['quality_score: declared float, a TEXT column', 'region: may be null, yet the column is NOT NULL'],
      'and a column of another type, or refusing a null the model allows',
    );
    t.same(
      columnDifferences([...columns, { name: 'snippet', type: 'TEXT', notnull: 0 }], true),
      ['snippet: a column, not in the model'],
      'and a column only the engine has',
    );
  },
);

t.test('when each engine builds the text it searches, then it holds exactly the fields declared searched', async (t) => {
  const { doc, words } = markedDocument({ source: 'kimdis' });
  const declared = searchedFields().sort();
  t.same(declared, ['content', 'cpv_labels_el', 'cpv_labels_en', 'entities.names', 'summary', 'title']);
  t.same(
    fieldsFound(
      words,
      searchText(doc).flatMap((v) => v.split(/\s+/)),
    ),
    declared,
    `Elasticsearch's ${SEARCH_TEXT_FIELD}`,
  );
  const text = docText(doc, TEXT_VERSION);
  t.same(fieldsFound(words, [...text.title, ...text.body]), declared, "the embedded engine's FTS5 columns");
  t.same(fieldsFound(words, ['w0', 'w1']), [words.get('w0'), words.get('w1')].sort(), 'a field is found by its word');
});
