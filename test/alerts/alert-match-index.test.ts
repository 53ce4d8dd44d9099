// The watcher's inverted index (api/alerts/match.ts MatchIndex): a document is checked only against the
// profiles and entities its words and identifiers name, with the same folding as a full check, and
// only active profiles and entities (as the account database lists them) are indexed.
import t, { type Test } from 'tap';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { emptyFilters, type Filters } from '../../api/alerts/input.js';
import { AlertStore } from '../../api/alerts/store.js';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { MonitorStore } from '../../api/monitoring/store.js';
import { DocumentText, MatchIndex, profileMatcher } from '../../api/alerts/match.js';
import type { IdentifierType } from '../../lib/identifiers.js';
import { tempDir } from '../helpers/app.js';

const DOC: NormalizedDocument = {
  source_id: 'diavgeia:Ω6Η2ΟΡΡ9-Β9Ω',
  source: 'diavgeia',
  country: 'GR',
  title: 'ΑΝΑΘΕΣΗ ΠΡΟΜΗΘΕΙΑΣ ΗΛΕΚΤΡΟΝΙΚΩΝ ΥΠΟΛΟΓΙΣΤΩΝ',
  doc_type: 'Δ.1',
  doc_category: 'award',
  published_at: '2026-03-01T10:00:00Z',
  source_url: 'https://diavgeia.gov.gr/doc/x',
  language: 'el',
  quality_score: 0.9,
  content: 'Η Επιτροπή αποφασίζει την ανάθεση στην ΤΟΜΕΣ Α.Τ.Ε. για τον Δήμο Αθηναίων. Σχολικός εξοπλισμός.',
  summary: '',
  entities: { afm: ['090252840'], ada: ['ΨΨ4Ξ46ΜΤΛ6-Ξ7Θ'], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'ΤΟΜΕΣ Α.Τ.Ε.'] },
  parties: [],
  procedure_type: null,
  tenders_received: null,
  act_date: null,
  amount: { value: 12_500, currency: 'EUR' },
  cpv: [],
  region: 'EL30',
  sector: 'IT',
};
const AT = new Date('2026-01-01T00:00:00Z');

function stores(t: Test) {
  const db = openDatabase(accountsDbPath(tempDir(t)));
  t.teardown(() => db.close());
  db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('o', 'o', '2026-01-01T00:00:00Z')").run();
  const alerts = new AlertStore(db);
  const monitor = new MonitorStore(db);
  const index = () => new MatchIndex(alerts.activeProfiles().map(profileMatcher), monitor.activeEntities());
  const profile = (name: string, filters: Partial<Filters>) =>
    alerts.createProfile(
      'o',
      {
        name,
        channels: ['email'],
        targets: { notify_email: 'a@example.com' },
        filters: { ...emptyFilters(), ...filters },
      },
      'salt',
      AT,
    );
  const entity = (type: IdentifierType, identifier: string) => monitor.createEntity('o', type, identifier, null, AT);
  return { alerts, monitor, index, profile, entity };
}

const names = (found: { profile: { name: string } }[]) => found.map((m) => m.profile.name).sort();

t.test("when a profile's keyword is another case, accent or form of a document word, then the index finds it", async (t) => {
  const s = stores(t);
  s.profile('stemmed', { keywords: ['χαρτί', 'υπολογιστές'] });
  s.profile('capitals', { keywords: ['ΣΧΟΛΙΚΌΣ'] });
  s.profile('phrase', { keywords: ['ηλεκτρονικών υπολογιστών'] });
  s.profile('phrase out of order', { keywords: ['υπολογιστών ηλεκτρονικών'] });
  s.profile('elsewhere', { keywords: ['χαρτί'] });
  s.profile('no keywords', { sources: ['diavgeia'] });
  s.profile('keyword but another source', { keywords: ['υπολογιστές'], sources: ['ted'] });
  t.same(names(s.index().profilesMatching(new DocumentText(DOC))), ['capitals', 'no keywords', 'phrase', 'stemmed']);
});

t.test('when a profile is deactivated, then it is not indexed and never matches', async (t) => {
  const s = stores(t);
  const off = s.profile('off', { keywords: ['υπολογιστές'] });
  s.profile('on', { keywords: ['υπολογιστές'] });
  t.ok(s.alerts.deactivateProfile('o', off.id));
  t.same(names(s.index().profilesMatching(new DocumentText(DOC))), ['on']);
});

t.test('when entities are monitored by AFM, ADA and name, then the index finds them by identifier and folded name key', async (t) => {
  const s = stores(t);
  const afm = s.entity('afm', 'EL090252840');
  const ada = s.entity('ada', 'ψψ4ξ46μτλ6-ξ7θ');
  const itself = s.entity('ada', 'Ω6Η2ΟΡΡ9-Β9Ω');
  const name = s.entity('name', 'Δήμος Αθηναίων');
  const latin = s.entity('name', 'Tomes ATE');
  s.entity('afm', '094014201');
  s.entity('name', 'Δήμος Αθη');
  s.entity('name', 'Αθηναίων Δήμος');
  const off = s.entity('name', 'ΠΡΟΜΗΘΕΙΑΣ ΗΛΕΚΤΡΟΝΙΚΩΝ');
  t.ok(s.monitor.deactivateEntity('o', off.id));
  const found = s
    .index()
    .entitiesMatching(new DocumentText(DOC))
    .map((e) => e.id)
    .sort();
  t.same(found, [afm.id, ada.id, itself.id, name.id, latin.id].sort());
});

t.test("when an entity's name is in the title only, then the index finds it there too", async (t) => {
  const s = stores(t);
  const e = s.entity('name', 'προμήθειας ηλεκτρονικών');
  t.same(
    s
      .index()
      .entitiesMatching(new DocumentText({ ...DOC, entities: { afm: [], ada: [], names: [] } }))
      .map((x) => x.id),
    [e.id],
  );
});
