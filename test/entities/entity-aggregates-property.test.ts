// The entity aggregates kept at write time equal a recomputation from the stored documents, written
// here plainly from docs/api.md "Entity resolution", after any sequence of stores, updates (a document
// whose parties, amount, date, source category or ΑΔΑs change moves between keys), corrections and
// rebuilds (another name-key folding recorded). The document store has no removal path: an update that
// drops a key is how a document leaves an entity. Seeded: a failure replays.
import path from 'node:path';
import t from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import type { NormalizedDocument, Party } from '../../index-mappings/document.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { ensureEntityIndex } from '../../ingest/state/entity-index.js';
import { EntityIndex, parseEntityQuery, type EntityQuery } from '../../lib/entities.js';
import { normalizeAda, validAfm } from '../../lib/identifiers.js';
import { nameKey } from '../../lib/names.js';
import { tempDir } from '../helpers/app.js';
import { makeDoc } from '../helpers/elasticsearch.js';

const SEED = 20261201;
const STEPS = 400;
const CHECK_EVERY = 40;
const AFMS = ['090252840', '094311152', '084065149', '090025537', '094014201', '997687965'];
// Spellings that share a key, and names whose words another name holds.
const NAMES = ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'Δήμος Αθηναίων', 'ΤΟΜΕΣ ΑΤΕ', 'Tomes ATE', 'ΑΛΦΑ ΤΕΧΝΙΚΗ ΑΕ', 'ΠΕΡΙΦΕΡΕΙΑ ΚΡΗΤΗΣ', 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ ΚΟΙΝΩΦΕΛΗΣ'];
const ADAS = ['ΩΑΒΓ469Β7Δ-ΤΛ4', 'ΨΘ82ΩΡΦ-7ΑΙ', 'Ω6Η2ΟΡΡ9-Β9Ω', 'ΒΛΛ4ΟΡΡ9-ΞΖ1'];
const SOURCES = ['diavgeia', 'kimdis', 'ted'] as const;
const CATEGORIES = ['award', 'contract', 'payment', 'tender_notice'];

function randomDoc(rnd: () => number, source: string, id: string): NormalizedDocument {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const parties: Party[] = [];
  for (let n = 1 + Math.floor(rnd() * 3); n > 0; n--) {
    parties.push({
      role: pick(['buyer', 'supplier', 'issuer', 'other'] as const),
      name: rnd() < 0.9 ? pick(NAMES) : null,
      afm: rnd() < 0.6 ? pick(AFMS) : null,
    });
  }
  const named = parties.filter((p) => p.name !== null || p.afm !== null);
  // A Diavgeia decision carries its own ΑΔΑ (its source_id) and may name another; others name some.
  const adas = new Set<string>(source === 'diavgeia' ? [id] : []);
  for (let n = Math.floor(rnd() * 3); n > 0; n--) adas.add(pick(ADAS));
  const {
    indexed_at: _i,
    content_hash: _h,
    original: _o,
    embedding: _e,
    ...doc
  } = makeDoc(source as (typeof SOURCES)[number], id, {
    doc_category: pick(CATEGORIES),
    published_at: `202${Math.floor(rnd() * 5)}-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}T10:00:00Z`,
    parties: named,
    entities: {
      afm: [...new Set([...named.map((p) => p.afm).filter((a): a is string => a !== null), ...(rnd() < 0.2 ? [pick(AFMS)] : [])])],
      ada: [...adas],
      names: [...new Set(named.map((p) => p.name).filter((n): n is string => n !== null))],
    },
    amount: rnd() < 0.8 ? { value: Math.round(rnd() * 100_000) / 100, currency: rnd() < 0.9 ? 'EUR' : 'SEK' } : null,
  });
  return doc;
}

interface Plain {
  role: string | null;
  afm: string | null;
  name: string | null;
  nameKey: string | null;
}

/** A document's parties as the index counts them: roles folded to buyer/supplier, other names role-less. */
function plainParties(d: NormalizedDocument): Plain[] {
  const out: Plain[] = d.parties.map((p) => ({
    role: p.role === 'buyer' || p.role === 'issuer' ? 'buyer' : p.role === 'supplier' ? 'supplier' : null,
    afm: p.afm === null ? null : validAfm(p.afm),
    name: p.name,
    nameKey: p.name === null ? null : nameKey(p.name) || null,
  }));
  for (const n of d.entities.names) if (!out.some((p) => p.name === n)) out.push({ role: null, afm: null, name: n, nameKey: nameKey(n) || null });
  return out;
}

const byCount = (m: Map<string, number>, max: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([k]) => k);
const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** The contract value of some documents: awards and contracts in EUR, one procurement per set of documents linked by ΑΔΑs, at its largest. */
function plainValue(docs: NormalizedDocument[]): number {
  const valued = docs.filter((d) => ['award', 'contract'].includes(d.doc_category) && d.amount && d.amount.value > 0 && d.amount.currency === 'EUR');
  const groups: { adas: Set<string>; docs: NormalizedDocument[] }[] = [];
  for (const d of valued) {
    const adas = new Set(d.entities.ada.map(normalizeAda).filter((a): a is string => a !== null));
    const joined = groups.filter((g) => [...adas].some((a) => g.adas.has(a)));
    const group = { adas, docs: [d] };
    for (const g of joined) {
      for (const a of g.adas) group.adas.add(a);
      group.docs.push(...g.docs);
      groups.splice(groups.indexOf(g), 1);
    }
    groups.push(group);
  }
  const cents = groups.reduce((sum, g) => sum + Math.round(Math.max(...g.docs.map((d) => d.amount!.value)) * 100), 0);
  return cents / 100;
}

/** What GET /v1/entity should answer for an ΑΦΜ, an ΑΔΑ or a name the same after folding. */
function expected(docs: NormalizedDocument[], kind: 'afm' | 'ada' | 'name', key: string) {
  const matches: { d: NormalizedDocument; relevance: number; self: Plain[]; parties: Plain[] }[] = [];
  for (const d of docs) {
    const parties = plainParties(d);
    const afms = [...d.entities.afm.map(validAfm), ...parties.map((p) => p.afm)];
    let self: Plain[] = [];
    let relevance = 1;
    if (kind === 'afm') {
      if (!afms.includes(key)) continue;
      self = parties.filter((p) => p.afm === key);
      relevance = self.length > 0 ? 1 : 0.8;
    } else if (kind === 'ada') {
      if (!d.entities.ada.map(normalizeAda).includes(key)) continue;
      relevance = d.source_id === `diavgeia:${key}` ? 1 : 0.8;
    } else {
      self = parties.filter((p) => p.nameKey === key);
      if (self.length === 0) continue;
    }
    matches.push({ d, relevance, self, parties });
  }
  matches.sort(
    (a, b) =>
      b.relevance - a.relevance ||
      (a.d.published_at < b.d.published_at ? 1 : a.d.published_at > b.d.published_at ? -1 : 0) ||
      (a.d.source_id < b.d.source_id ? -1 : 1),
  );
  const sources = new Map<string, number>();
  for (const m of matches) count(sources, m.d.source);
  const names = new Map<string, number>();
  const afms = new Map<string, number>();
  for (const m of matches) {
    for (const p of m.self) {
      if (p.name !== null) count(names, p.name);
      if (p.afm !== null) count(afms, p.afm);
    }
  }
  const cps = new Map<string, { party: string; role: string; documents: number; names: Map<string, number> }>();
  for (const m of matches) {
    const roles = new Set(m.self.map((p) => p.role));
    const seen = new Set<string>();
    for (const p of m.parties) {
      if (p.role === null || m.self.includes(p) || !roles.has(p.role === 'buyer' ? 'supplier' : 'buyer')) continue;
      const party = p.afm ?? (p.nameKey === null ? null : `name:${p.nameKey}`);
      if (party === null || seen.has(`${party} ${p.role}`)) continue;
      seen.add(`${party} ${p.role}`);
      const c = cps.get(`${party} ${p.role}`) ?? { party, role: p.role, documents: 0, names: new Map() };
      c.documents++;
      if (p.name !== null) count(c.names, p.name);
      cps.set(`${party} ${p.role}`, c);
    }
  }
  const cmp = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
  const counterparties = [...cps.values()]
    .map((c) => ({
      name: byCount(c.names, 1)[0] ?? null,
      afm: c.party.startsWith('name:') ? null : c.party,
      role: c.role,
      documents: c.documents,
      party: c.party,
    }))
    .sort((a, b) => b.documents - a.documents || cmp(a.name, b.name) || cmp(a.party, b.party) || cmp(a.role, b.role))
    .slice(0, 50)
    .map(({ party: _p, ...c }) => c);
  const dates = matches.map((m) => m.d.published_at).sort();
  const decision = kind === 'ada' ? matches.find((m) => m.relevance === 1) : undefined;
  return {
    names: kind === 'ada' ? [...new Set((decision?.parties ?? []).map((p) => p.name).filter((n): n is string => n !== null))].slice(0, 20) : byCount(names, 20),
    afm:
      kind === 'afm'
        ? [key]
        : kind === 'ada'
          ? [...new Set((decision?.parties ?? []).filter((p) => p.role === 'buyer' && p.afm !== null).map((p) => p.afm!))]
          : byCount(afms, 20),
    total: matches.length,
    sources: Object.fromEntries([...sources].sort((a, b) => (a[0] < b[0] ? -1 : 1))),
    first_seen: dates[0] ?? null,
    last_seen: dates.at(-1) ?? null,
    total_contract_value: plainValue(matches.map((m) => m.d)),
    counterparties,
    matches: matches.map((m) => [m.d.source_id, m.relevance]),
  };
}

const queries: [EntityQuery, 'afm' | 'ada' | 'name', string][] = [
  ...AFMS.map((a) => [parseEntityQuery(a, 'afm'), 'afm', a] as [EntityQuery, 'afm', string]),
  ...ADAS.map((a) => [parseEntityQuery(a, 'ada'), 'ada', normalizeAda(a)!] as [EntityQuery, 'ada', string]),
  ...NAMES.map((n) => [parseEntityQuery(n, 'name'), 'name', nameKey(n)] as [EntityQuery, 'name', string]),
];

t.test('when random stores, updates, corrections and rebuilds are applied, then the aggregates equal a recomputation from the stored documents', async (t) => {
  const rnd = mulberry32(SEED);
  const store = new DocumentStore(path.join(tempDir(t), 'documents.db'));
  t.teardown(() => store.close());
  const index = new EntityIndex(store.db);
  const ids: { source: string; id: string }[] = [];
  let next = 0;
  const record = (doc: NormalizedDocument) => ({ doc, content_hash: `h${next++}`, original: null, indexed_at: '2026-01-01T00:00:00Z' });
  const ops: Record<string, number> = { add: 0, update: 0, unchanged: 0, correct: 0, rebuild: 0, checks: 0 };
  const stored = () => (store.db.prepare('SELECT doc FROM documents').pluck().all() as string[]).map((d) => JSON.parse(d) as NormalizedDocument);
  for (let step = 1; step <= STEPS; step++) {
    const r = rnd();
    if (r < 0.4 || ids.length === 0) {
      const batch = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
        const source = SOURCES[Math.floor(rnd() * SOURCES.length)]!;
        const id = source === 'diavgeia' ? ADAS[Math.floor(rnd() * ADAS.length)]!.replace(/.$/, String(next % 10)) + next : `D${next}`;
        ids.push({ source, id });
        return randomDoc(rnd, source, id);
      });
      store.save(batch.map(record));
      ops.add!++;
    } else if (r < 0.75) {
      // The same document fetched again, changed in its parties, value, date, category and ΑΔΑs.
      const { source, id } = ids[Math.floor(rnd() * ids.length)]!;
      store.save([record(randomDoc(rnd, source, id))]);
      ops.update!++;
    } else if (r < 0.82) {
      const { source, id } = ids[Math.floor(rnd() * ids.length)]!;
      const doc = JSON.parse(store.db.prepare('SELECT doc FROM documents WHERE source_id = ?').pluck().get(`${source}:${id}`) as string) as NormalizedDocument;
      store.save([record({ ...doc, title: `${doc.title}.` })]);
      ops.unchanged!++;
    } else if (r < 0.95) {
      const { source, id } = ids[Math.floor(rnd() * ids.length)]!;
      const doc = JSON.parse(store.db.prepare('SELECT doc FROM documents WHERE source_id = ?').pluck().get(`${source}:${id}`) as string) as NormalizedDocument;
      store.correct([record({ ...doc, parties: doc.parties.slice(1), entities: { ...doc.entities, names: doc.entities.names.slice(1) } })]);
      ops.correct!++;
    } else {
      // What a new name-key folding (lib/names.ts NAME_KEY_VERSION) leaves: another build recorded.
      store.db.prepare("UPDATE entity_meta SET value = 'older' WHERE name = 'version'").run();
      ensureEntityIndex(store.db);
      ops.rebuild!++;
    }
    if (step % CHECK_EVERY !== 0) continue;
    const docs = stored();
    for (const [query, kind, key] of queries) {
      // A page from the middle: every page is a slice of one order.
      const got = index.resolve(query, { limit: 100, offset: 7 });
      const want = expected(docs, kind, key);
      want.matches = want.matches.slice(7, 107);
      if (want.total === 0 && kind === 'name') continue;
      t.same(
        {
          names: got.names,
          afm: got.afm,
          total: got.total,
          sources: got.sources,
          first_seen: got.first_seen,
          last_seen: got.last_seen,
          total_contract_value: got.total_contract_value,
          counterparties: got.counterparties,
          matches: got.matches.map((m) => [m.source_id, m.relevance]),
        },
        want,
        `step ${step}: ${kind} ${key}`,
      );
    }
    ops.checks!++;
  }
  t.ok(
    Object.values(ops).every((n) => n > 0),
    `every kind of write ran: ${JSON.stringify(ops)}`,
  );
});

t.test('when an ΑΦΜ has more documents than the 10,000 entity resolution once stopped at, then its totals are exact', async (t) => {
  const store = new DocumentStore(path.join(tempDir(t), 'documents.db'));
  t.teardown(() => store.close());
  const AFM = '090252840';
  const N = 12_500;
  const docs: NormalizedDocument[] = [];
  for (let i = 0; i < N; i++) {
    const {
      indexed_at: _i,
      content_hash: _h,
      original: _o,
      embedding: _e,
      ...d
    } = makeDoc(SOURCES[i % 3]!, `big${i}`, {
      doc_category: i % 2 === 0 ? 'award' : 'payment',
      published_at: `20${10 + (i % 15)}-01-01T00:00:00Z`,
      parties: [
        { role: 'buyer', name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: AFM },
        { role: 'supplier', name: `ΠΡΟΜΗΘΕΥΤΗΣ ${i % 70}`, afm: null },
      ],
      entities: { afm: [AFM], ada: [], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', `ΠΡΟΜΗΘΕΥΤΗΣ ${i % 70}`] },
      amount: { value: 1 + (i % 100) / 100, currency: 'EUR' },
    });
    docs.push(d);
  }
  for (let i = 0; i < N; i += 2_500)
    store.save(docs.slice(i, i + 2_500).map((doc) => ({ doc, content_hash: 'h', original: null, indexed_at: '2026-01-01T00:00:00Z' })));
  const got = new EntityIndex(store.db).resolve(parseEntityQuery(AFM), { limit: 5, offset: N - 3 });
  const want = expected(docs, 'afm', AFM);
  t.equal(got.total, N);
  t.same(got.sources, want.sources);
  t.equal(got.total_contract_value, want.total_contract_value, `${want.total_contract_value}`);
  t.same([got.first_seen, got.last_seen], ['2010-01-01T00:00:00Z', '2024-01-01T00:00:00Z']);
  t.same(got.counterparties, want.counterparties.slice(0, 50));
  t.same(
    got.matches.map((m) => m.source_id),
    want.matches.slice(N - 3).map(([id]) => id),
    'the last page, past the old cap',
  );
});
