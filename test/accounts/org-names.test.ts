// Organization names: one canonical form (trimmed, NFC) wherever a name enters (KeyStore.create, so
// pdi keys create and the dashboard; pdi report --org through ReportStore.orgId), invisible characters
// refused with the character named, and the account migration that brings older names to that form.
import t from 'tap';
import Database from 'better-sqlite3';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { canonicalOrgName, KeyStore } from '../../api/db/keys.js';
import { MIGRATIONS } from '../../api/db/migrations.js';
import { ReportStore } from '../../api/reports/store.js';
import { pdi } from '../helpers/cli.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { ADMIN_TOKEN, DashboardClient } from '../helpers/dashboard.js';

const NFC = 'Δήμος Αθηναίων';
const NFD = NFC.normalize('NFD');
const INVISIBLES: [string, string][] = [
  ['zero-width space', 'Acme\u200bSA'],
  ['zero-width non-joiner', 'Acme\u200c'],
  ['zero-width joiner', '\u200dAcme'],
  ['word joiner', 'Ac\u2060me'],
  ['byte order mark', '\ufeffAcme'],
  ['left-to-right mark', 'Acme\u200e'],
  ['right-to-left mark', '\u200fAcme'],
  ['right-to-left override', 'Acme\u202eAS'],
  ['right-to-left isolate', 'Acme\u2067x\u2069'],
  ['Arabic letter mark', 'Acme\u061c'],
  ['soft hyphen', 'Ac\u00adme'],
  ['combining grapheme joiner', 'Acme\u034f'],
  ['variation selector', 'Acme\ufe0f'],
  ['Hangul filler', 'Acme\u3164'],
  ['tag character', 'Acme\u{E0041}'],
  ['private use', 'Acme\ue000'],
  ['lone surrogate', 'Acme\ud800'],
  ['unassigned', 'Acme\u0378'],
];

t.test('when a name differs only in NFC against NFD or surrounding spaces, then it is the same organization', async (t) => {
  const db = openDatabase(accountsDbPath(tempDir(t)));
  t.teardown(() => db.close());
  const keys = new KeyStore(db);
  const a = keys.create(NFC, 'pro');
  const b = keys.create(` ${NFD} `, 'pro');
  t.equal(b.org, NFC, 'stored and answered in NFC');
  t.equal(keys.authenticate(a.key)!.orgId, keys.authenticate(b.key)!.orgId, 'one organization');
  t.equal(new ReportStore(db).orgIdOf(NFD), keys.authenticate(a.key)!.orgId, 'pdi report --org finds it too');
  t.equal(db.prepare('SELECT COUNT(*) FROM organizations').pluck().get(), 1);
});

t.test('when a name holds an invisible character, then it is refused naming the character, everywhere a name enters', async (t) => {
  for (const [label, name] of INVISIBLES) {
    t.throws(() => canonicalOrgName(name), { name: 'RangeError', message: /^organization name holds an invisible character \(U\+[0-9A-F]{4,5}\)$/ }, label);
  }
  t.throws(() => canonicalOrgName('Acme\u200b'), { message: 'organization name holds an invisible character (U+200B)' });
  t.equal(canonicalOrgName('Acme SA'), 'Acme SA', 'a plain name passes');
  t.equal(canonicalOrgName('Ελληνικά 😀 ﷺ'), 'Ελληνικά 😀 ﷺ', 'visible letters and symbols of any script pass');

  const dir = tempDir(t);
  const cli = await pdi(dir, ['keys', 'create', '--org', 'Acme\u200bSA', '--tier', 'free']);
  t.equal(cli.code, 2, 'pdi keys create exits 2');
  t.match(cli.stderr, '--org holds an invisible character (U+200B)');
  const report = await pdi(dir, ['report', 'create', '090025537', '--type', 'afm', '--out', `${dir}/r.pdf`, '--org', '\u202eAcme']);
  t.equal(report.code, 2, 'pdi report --org exits 2');
  t.match(report.stderr, '--org holds an invisible character (U+202E)');

  const app = await startTestApp(t, { env: { PDI_ADMIN_TOKEN: ADMIN_TOKEN } });
  const client = new DashboardClient(app.url);
  await client.signIn();
  const refused = await client.post('/dashboard/keys', { csrf: await client.csrf(), org: 'Acme\u2060SA', tier: 'pro' });
  t.equal(refused.status, 422, 'the dashboard refuses it');
  t.match(refused.text, 'organization name holds an invisible character (U+2060)');
  t.same(app.app.context.keys.list(), [], 'no key was made');
});

t.test('when the dashboard and the CLI create keys for one name in NFD and NFC, then the keys share one organization', async (t) => {
  const app = await startTestApp(t, { env: { PDI_ADMIN_TOKEN: ADMIN_TOKEN } });
  const client = new DashboardClient(app.url);
  await client.signIn();
  await client.createKey(NFD, 'pro');
  t.equal((await pdi(app.dataDir, ['keys', 'create', '--org', NFC, '--tier', 'enterprise'])).code, 0);
  const orgs = new Set(app.app.context.keys.list().map((k) => k.org));
  t.same([...orgs], [NFC]);
});

/** The migration that makes names canonical. */
const NAMES_MIGRATION = MIGRATIONS.find((m) => m.name.startsWith('organization names in NFC'))!.version;

/** An account database as it was before names were canonical, with these organizations and a key each. */
function databaseBeforeNames(file: string, orgs: { id: string; name: string; created_at: string }[]): void {
  const db = new Database(file);
  for (const m of MIGRATIONS.filter((m) => m.version < NAMES_MIGRATION)) db.exec(m.sql);
  db.pragma(`user_version = ${NAMES_MIGRATION - 1}`);
  for (const o of orgs) {
    db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(o.id, o.name, o.created_at);
    db.prepare("INSERT INTO api_keys (id, org_id, tier, digest, created_at) VALUES (?, ?, 'pro', ?, ?)").run(
      `key_${o.id}`,
      o.id,
      `digest-${o.id}`,
      o.created_at,
    );
  }
  db.close();
}

t.test(
  'when an older database is opened, then its names are migrated to NFC without invisible characters, and names that became equal stay apart',
  async (t) => {
    const file = accountsDbPath(tempDir(t));
    databaseBeforeNames(file, [
      { id: 'org_nfd', name: NFD, created_at: '2026-01-01T00:00:00Z' },
      { id: 'org_acme_zw', name: 'Acme\u200b', created_at: '2026-01-02T00:00:00Z' },
      { id: 'org_acme', name: 'Acme', created_at: '2026-01-03T00:00:00Z' },
      { id: 'org_beta_rtl', name: '\u200fBeta', created_at: '2026-01-04T00:00:00Z' },
      { id: 'org_beta_bom', name: 'Beta\ufeff', created_at: '2026-01-05T00:00:00Z' },
      { id: 'org_only_zw', name: '\u200b\u200c', created_at: '2026-01-06T00:00:00Z' },
      { id: 'org_plain', name: 'Plain', created_at: '2026-01-07T00:00:00Z' },
    ]);
    const db = openDatabase(file);
    t.teardown(() => db.close());
    t.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.at(-1)!.version);
    const names = Object.fromEntries((db.prepare('SELECT id, name FROM organizations').all() as { id: string; name: string }[]).map((o) => [o.id, o.name]));
    t.same(names, {
      org_nfd: NFC,
      org_acme: 'Acme', // already canonical: keeps its name although younger
      org_acme_zw: 'Acme (org_acme_zw)',
      org_beta_rtl: 'Beta', // the older of two that became equal
      org_beta_bom: 'Beta (org_beta_bom)',
      org_only_zw: 'org_only_zw',
      org_plain: 'Plain',
    });
    t.equal(
      db.prepare("SELECT COUNT(*) FROM api_keys k JOIN organizations o ON o.id = k.org_id WHERE k.id = 'key_' || o.id").pluck().get(),
      7,
      'every key still belongs to its own organization: none merged',
    );
    const keys = new KeyStore(db);
    const created = keys.create(NFD, 'free');
    t.equal(
      db.prepare('SELECT org_id FROM api_keys WHERE id = ?').pluck().get(created.id),
      'org_nfd',
      'a new key for the NFD name joins the migrated organization',
    );
  },
);
