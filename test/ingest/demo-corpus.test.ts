// The demo corpus (data/demo, made by data/generate.ts): deterministic, in each upstream's raw envelope,
// with valid identifiers, enough records, and the cross-source links the demo relies on. When a source's
// ingest module exists, every demo file must also go through its parse and normalize without a failure.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { DEFAULT_SEED, generateCorpus, writeCorpus, CORPUS_SOURCES } from '../../data/generator/corpus.js';
import { REPO_ROOT } from '../helpers/paths.js';

const DEMO = path.join(REPO_ROOT, 'data', 'demo');

/** Minimum records per source (documents downstream) and overall. */
const TARGETS: Record<string, number> = {
  diavgeia: 1200,
  kimdis: 700,
  ted: 400,
  rae: 300,
  mitos: 150,
  geodata: 150,
  data_gov_gr: 60,
  elstat: 8,
};
const TOTAL_TARGET = 3000;
const FIRST_DAY = Date.UTC(2023, 0, 1);
const LAST_DAY = Date.UTC(2026, 10, 21);

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Written independently of the generator: d8 == (Σ d_i·2^(8−i)) mod 11 mod 10, never 000000000. */
function afmValid(afm: string): boolean {
  if (!/^\d{9}$/.test(afm) || afm === '000000000') return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(afm[i]) * 2 ** (8 - i);
  return (sum % 11) % 10 === Number(afm[8]);
}

function stripEl(id: string): string {
  return id.startsWith('EL') ? id.slice(2) : id;
}

function sha(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const source of readdirSync(dir).sort()) {
    const sub = path.join(dir, source);
    for (const f of readdirSync(sub).sort()) {
      out.set(
        `${source}/${f}`,
        createHash('sha256')
          .update(readFileSync(path.join(sub, f)))
          .digest('hex'),
      );
    }
  }
  return out;
}

function files(source: string): { name: string; body: string; json: Json }[] {
  const dir = path.join(DEMO, source);
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const body = readFileSync(path.join(dir, name), 'utf8');
      return { name, body, json: JSON.parse(body) };
    });
}

t.test('when the corpus is generated twice with the same seed, then the files are byte-identical', async (t) => {
  const a = mkdtempSync(path.join(os.tmpdir(), 'demo-a-'));
  const b = mkdtempSync(path.join(os.tmpdir(), 'demo-b-'));
  t.teardown(() => {
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  });
  await writeCorpus(generateCorpus(DEFAULT_SEED), a);
  await writeCorpus(generateCorpus(DEFAULT_SEED), b);
  const ha = sha(a);
  const hb = sha(b);
  t.ok(ha.size > 100, `${ha.size} files written`);
  t.same([...hb.entries()], [...ha.entries()], 'same names, same SHA-256');
  const other = generateCorpus(DEFAULT_SEED + 1);
  t.not(other.files[0].body, generateCorpus(DEFAULT_SEED).files[0].body, 'another seed gives another corpus');
});

t.test('when the committed data/demo is compared with a fresh generation, then it is up to date', async (t) => {
  t.ok(existsSync(DEMO), 'data/demo exists (run: node --import tsx data/generate.ts)');
  const committed = sha(DEMO);
  const fresh = new Map(generateCorpus(DEFAULT_SEED).files.map((f) => [f.path, createHash('sha256').update(f.body).digest('hex')]));
  t.same([...committed.keys()].sort(), [...fresh.keys()].sort(), 'same file list');
  const stale = [...fresh].filter(([p, h]) => committed.get(p) !== h).map(([p]) => p);
  t.same(stale, [], 'no file differs from the generator output');
});

t.test('when the entity pool is built, then every AFM passes the check digit and is unique', async (t) => {
  const pool = generateCorpus(DEFAULT_SEED).world.pool;
  t.ok(pool.bodies.length >= 55, `${pool.bodies.length} public bodies`);
  t.ok(pool.contractors.length >= 110, `${pool.contractors.length} contractors`);
  const afms = [...pool.bodies.map((b) => b.afm), ...pool.contractors.map((c) => c.afm)];
  t.same(
    afms.filter((a) => !afmValid(a)),
    [],
    'no invalid AFM',
  );
  t.equal(new Set(afms).size, afms.length, 'AFMs unique');
  t.equal(new Set(pool.contractors.map((c) => c.name)).size, pool.contractors.length, 'contractor names unique');
});

t.test('when the files are read, then each source has its upstream envelope and enough records', async (t) => {
  const counts: Record<string, number> = {};
  t.same(
    readdirSync(DEMO)
      .filter((d) => !d.startsWith('.'))
      .sort(),
    [...CORPUS_SOURCES].sort(),
    'one folder per source',
  );

  counts.diavgeia = 0;
  for (const f of files('diavgeia')) {
    t.match(f.name, /^\d{3}-search-\d{8}-p\d+\.json$/);
    const { decisions, info } = f.json;
    t.ok(Array.isArray(decisions) && info && typeof info.query === 'string', `${f.name}: {decisions, info}`);
    t.equal(info.actualSize, decisions.length, `${f.name}: actualSize`);
    t.ok(decisions.length <= info.size && info.total >= decisions.length, `${f.name}: size/total`);
    for (const d of decisions) {
      if (typeof d.issueDate !== 'number' || typeof d.submissionTimestamp !== 'number' || typeof d.publishTimestamp !== 'number') {
        t.fail(`${d.ada}: timestamps must be epoch ms`);
      }
    }
    counts.diavgeia += decisions.length;
  }

  counts.kimdis = 0;
  for (const f of files('kimdis')) {
    const p = f.json;
    t.same(
      Object.keys(p),
      ['content', 'totalElements', 'totalPages', 'first', 'last', 'numberOfElements', 'size', 'number', 'empty'],
      `${f.name}: Spring page`,
    );
    t.equal(p.numberOfElements, p.content.length, `${f.name}: numberOfElements`);
    t.equal(p.last, p.number === p.totalPages - 1, `${f.name}: last`);
    counts.kimdis += p.content.length;
  }

  counts.ted = 0;
  const tedFiles = files('ted');
  for (const [i, f] of tedFiles.entries()) {
    const r = f.json;
    t.ok(Array.isArray(r.notices) && typeof r.totalNoticeCount === 'number' && r.timedOut === false, `${f.name}: search v3 response`);
    t.equal(r.iterationNextToken === null, i === tedFiles.length - 1, `${f.name}: token null only on the last page`);
    for (const n of r.notices) {
      if (
        !n['buyer-country']?.includes('GRC') ||
        !Array.isArray(n['organisation-name-buyer']?.ell) ||
        typeof n['notice-title']?.ell !== 'string' ||
        typeof n['notice-title']?.eng !== 'string'
      ) {
        t.fail(`${n['publication-number']}: Greek buyer with ell/eng title`);
      }
    }
    counts.ted += r.notices.length;
  }
  t.equal(counts.ted, tedFiles[0].json.totalNoticeCount, 'TED: totalNoticeCount matches');

  counts.rae = 0;
  for (const f of files('rae')) {
    const fc = f.json;
    t.equal(fc.type, 'FeatureCollection', `${f.name}: FeatureCollection`);
    t.equal(fc.numberReturned, fc.features.length, `${f.name}: numberReturned`);
    t.ok(fc.numberMatched === fc.totalFeatures && fc.numberMatched >= fc.features.length, `${f.name}: numberMatched/totalFeatures`);
    for (const feat of fc.features) {
      const ring = feat.geometry.coordinates[0][0];
      const [lon, lat] = ring[0];
      if (
        feat.geometry.type !== 'MultiPolygon' ||
        lon < 19 ||
        lon > 30 ||
        lat < 34 ||
        lat > 42 ||
        JSON.stringify(ring[0]) !== JSON.stringify(ring[ring.length - 1])
      ) {
        t.fail(`${feat.id}: closed MultiPolygon in EPSG:4326 over Greece`);
      }
      for (const k of [
        'aa',
        'company',
        'thesh',
        'kal_dhmos',
        'kal_dhm_enothta',
        'kal_perif_enothta',
        'kal_perifereia',
        'power_mw',
        'imerominia',
        'imerominia_ekdosis_adeias',
        'katastash_descr',
      ]) {
        if (!(k in feat.properties)) t.fail(`${feat.id}: property ${k}`);
      }
    }
    counts.rae += fc.features.length;
  }

  counts.mitos = 0;
  for (const f of files('mitos')) {
    const { data, success } = f.json;
    t.ok(
      success === true && data?.title?.el && data?.title?.en && data?.last_updated && data?.metadata?.process?.org_owner?.title,
      `${f.name}: services-extended body`,
    );
    t.ok(Array.isArray(data.metadata.process_rules) && data.metadata.process_rules.length > 0, `${f.name}: process_rules`);
    counts.mitos += 1;
  }

  counts.geodata = 0;
  for (const f of files('geodata')) {
    const r = f.json;
    t.ok(r.success === true && typeof r.help === 'string' && typeof r.result?.count === 'number', `${f.name}: CKAN envelope`);
    for (const p of r.result.results) {
      if (!p.id || !p.name || !p.title || !p.organization?.title || !Array.isArray(p.resources) || !Array.isArray(p.tags)) t.fail(`${p.id}: package fields`);
    }
    counts.geodata += r.result.results.length;
  }

  counts.data_gov_gr = 0;
  const periodField = ['referencedate', 'date', 'start_time', 'year'];
  for (const f of files('data_gov_gr')) {
    t.match(f.name, /^(mdg_emvolio|efet_inspections|sailing_traffic|mcp_forest_fires|internet_traffic)([_-].*)?\.json$/, `${f.name}: named after its dataset`);
    t.ok(Array.isArray(f.json) && f.json.length > 0, `${f.name}: bare array`);
    const periods = new Set(f.json.map((row: Json) => String(row[periodField.find((k) => k in row) ?? 'x']).slice(0, 10)));
    counts.data_gov_gr += periods.size;
  }

  counts.elstat = 0;
  for (const f of files('elstat')) {
    const d = f.json;
    t.ok(d.version === '2.0' && d.class === 'dataset' && d.source === 'ESTAT', `${f.name}: JSON-stat 2.0 dataset`);
    t.equal(d.id.length, d.size.length, `${f.name}: id/size`);
    t.same(Object.keys(d.dimension.geo.category.index), ['EL'], `${f.name}: geo=EL`);
    const cells = d.size.reduce((a: number, n: number) => a * n, 1);
    t.ok(
      Object.keys(d.value).every((k) => Number(k) < cells),
      `${f.name}: value indices within size`,
    );
    counts.elstat += 1;
  }

  for (const [source, min] of Object.entries(TARGETS)) t.ok(counts[source] >= min, `${source}: ${counts[source]} ≥ ${min}`);
  const total = Object.values(counts).reduce((a, n) => a + n, 0);
  t.ok(total >= TOTAL_TARGET, `total ${total} ≥ ${TOTAL_TARGET}`);
});

t.test('when identifiers and dates are checked, then they have the upstream formats and stay in range', async (t) => {
  const decisions: Json[] = files('diavgeia').flatMap((f) => f.json.decisions);
  const adas = decisions.map((d) => d.ada);
  t.same(
    adas.filter((a) => !/^[0-9Α-Ω]{4,10}-[0-9Α-Ω]{3}$/.test(a)),
    [],
    'ADA format',
  );
  t.equal(new Set(adas).size, adas.length, 'ADAs unique');
  t.same(
    decisions
      .filter((d) => d.url !== `https://diavgeia.gov.gr/luminapi/api/decisions/${d.ada}` || d.documentUrl !== `https://diavgeia.gov.gr/doc/${d.ada}`)
      .map((d) => d.ada),
    [],
    'url/documentUrl',
  );
  t.same(
    decisions.filter((d) => d.issueDate < FIRST_DAY || d.submissionTimestamp > LAST_DAY || d.issueDate > d.submissionTimestamp).map((d) => d.ada),
    [],
    'dates within 2023-01..2026-11, issued before posted',
  );
  const types = new Set(decisions.map((d) => d.decisionTypeId));
  for (const ty of ['Δ.1', 'Β.2.1', 'Β.2.2', 'Β.1.3', 'Δ.2.1', 'Δ.2.2', 'Α.2']) t.ok(types.has(ty), `has ${ty}`);

  const contracts: Json[] = files('kimdis').flatMap((f) => f.json.content);
  const refs = contracts.map((c) => c.referenceNumber);
  t.same(
    refs.filter((r) => !/^\d{2}(REQ|PROC|AWRD|SYMV|PAY)\d{9}$/.test(r)),
    [],
    'ADAM format',
  );
  t.equal(new Set(refs).size, refs.length, 'ADAMs unique');
  const allAdams = contracts.flatMap((c) => [c.auctionRefNo, ...c.paymentRefNo, ...(c.noticeReferenceNumber ? [c.noticeReferenceNumber] : [])]);
  t.same(
    allAdams.filter((r) => !/^\d{2}(REQ|PROC|AWRD|SYMV|PAY)\d{9}$/.test(r)),
    [],
    'other ADAMs',
  );
  t.same(
    contracts.filter((c) => Date.parse(c.submissionDate + 'Z') > LAST_DAY || Date.parse(c.contractSignedDate) < FIRST_DAY).map((c) => c.referenceNumber),
    [],
    'contract dates in range',
  );

  const notices: Json[] = files('ted').flatMap((f) => f.json.notices);
  const pubs = notices.map((n) => n['publication-number']);
  t.same(
    pubs.filter((p) => !/^\d{8}-\d{4}$/.test(p)),
    [],
    'TED publication-number NNNNNNNN-YYYY',
  );
  t.equal(new Set(pubs).size, pubs.length, 'publication numbers unique');
  t.same(
    notices.flatMap((n) => n['classification-cpv']).filter((c: string) => !/^\d{8}$/.test(c)),
    [],
    'TED CPVs are 8 digits',
  );
  const types2 = new Set(notices.map((n) => n['notice-type']));
  t.ok(types2.has('cn-standard') && types2.has('can-standard'), 'contract and award notices');

  const afms = new Set<string>();
  for (const d of decisions) {
    const e = d.extraFieldValues;
    for (const p of e.person ?? []) afms.add(p.afm);
    for (const s of e.sponsor ?? []) afms.add(s.sponsorAFMName.afm);
    if (e.org) afms.add(e.org.afm);
  }
  for (const c of contracts) {
    afms.add(c.organizationVatNumber);
    for (const m of c.contractingDataDetails.contractingMembersDataList) afms.add(m.vatNumber);
  }
  for (const n of notices) for (const id of [...(n['buyer-identifier'] ?? []), ...(n['winner-identifier'] ?? [])]) afms.add(stripEl(id));
  t.same(
    [...afms].filter((a) => !afmValid(a)),
    [],
    `all ${afms.size} AFMs in the corpus pass the check digit`,
  );
  const cpvs = new Set<string>([
    ...decisions.flatMap((d) => d.extraFieldValues.cpv ?? []),
    ...contracts.flatMap((c) => c.objectDetailsList.flatMap((o: Json) => o.cpvs.map((x: Json) => x.key))),
  ]);
  t.same(
    [...cpvs].filter((c) => !/^\d{8}-\d$/.test(c)),
    [],
    'CPV codes NNNNNNNN-N in Diavgeia and KIMDIS',
  );
});

t.test('when KIMDIS contracts cite ADAs, then they exist in Diavgeia and name the same contractor', async (t) => {
  const decisions = new Map<string, Json>(
    files('diavgeia')
      .flatMap((f) => f.json.decisions)
      .map((d: Json) => [d.ada, d]),
  );
  const contracts: Json[] = files('kimdis').flatMap((f) => f.json.content);
  let cited = 0;
  let awards = 0;
  let paid = 0;
  const payees = new Set<string>();
  for (const d of decisions.values()) {
    if (d.decisionTypeId === 'Β.2.2') for (const s of d.extraFieldValues.sponsor) payees.add(`${d.organizationId}|${s.sponsorAFMName.afm}`);
  }
  for (const c of contracts) {
    const related = [c.decisionRelatedAda, c.contractRelatedADA.number1, c.contractRelatedADA.number2, c.contractRelatedADA.number3]
      .filter((a): a is string => typeof a === 'string')
      .map((a) => a.trim());
    for (const ada of related) {
      cited += 1;
      if (!decisions.has(ada)) t.fail(`${c.referenceNumber} cites unknown ADA ${ada}`);
    }
    const award = [c.decisionRelatedAda?.trim(), c.contractRelatedADA.number3]
      .map((a) => (a ? decisions.get(a) : undefined))
      .find((d) => d && (d.decisionTypeId === 'Δ.1' || d.decisionTypeId === 'Δ.2.2'));
    if (!award) continue;
    awards += 1;
    const members = c.contractingDataDetails.contractingMembersDataList.map((m: Json) => m.vatNumber).sort();
    t.same(award.extraFieldValues.person.map((p: Json) => p.afm).sort(), members, `${c.referenceNumber}: award names the contractor`);
    t.equal(award.organizationId, c.organization.key, `${c.referenceNumber}: same organisation`);
    if (payees.has(`${c.organization.key}|${members[0]}`)) paid += 1;
  }
  t.ok(cited >= 500, `${cited} ADA citations`);
  t.ok(awards >= 400, `${awards} contracts trace back to an award decision`);
  t.ok(paid >= 200, `${paid} of them have a Β.2.2 payment to the same contractor`);

  const notices: Json[] = files('ted').flatMap((f) => f.json.notices);
  const winners = new Set(notices.flatMap((n) => (n['winner-identifier'] ?? []).map(stripEl)));
  const kimdisMembers = new Set(contracts.flatMap((c) => c.contractingDataDetails.contractingMembersDataList.map((m: Json) => m.vatNumber)));
  const shared = [...winners].filter((a) => kimdisMembers.has(a));
  t.ok(shared.length >= winners.size * 0.8, `${shared.length}/${winners.size} TED winners are also KIMDIS contractors`);
});

// Other engineers own the parsers; this only runs the ones that exist, the way `--from DIR` replays.
for (const source of CORPUS_SOURCES) {
  const modulePath = path.join(REPO_ROOT, 'ingest', 'sources', source, 'index.ts');
  t.test(
    `when the ${source} demo files are replayed, then parse and normalize accept every record`,
    { skip: !existsSync(modulePath) && `no ingest/sources/${source}/index.ts yet` },
    async (t) => {
      const mod: Json = await import(pathToFileURL(modulePath).href);
      const module: Json = mod[source] ?? Object.values(mod).find((v: Json) => v && typeof v.parse === 'function' && typeof v.normalize === 'function');
      t.ok(module, 'module exports a SourceModule');
      let records = 0;
      const failures: string[] = [];
      const ids = new Set<string>();
      for (const f of files(source)) {
        const contentType = module.replayContentType?.(f.name) ?? 'application/json';
        let parsed: Json[];
        try {
          parsed = module.parse(f.body, contentType);
        } catch (err) {
          failures.push(`${f.name}: parse: ${(err as Error).message}`);
          continue;
        }
        for (const r of parsed) {
          records += 1;
          try {
            const doc = module.normalize(r.record);
            ids.add(doc.source_id);
          } catch (err) {
            failures.push(`${f.name}: normalize: ${(err as Error).message}`);
          }
        }
      }
      t.same(failures.slice(0, 10), [], `no failures (of ${failures.length})`);
      t.ok(records > 0, `${records} records`);
      t.equal(ids.size, records, 'source_id unique per record');
    },
  );
}
