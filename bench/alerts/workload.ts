// The alerts bench's workload, drawn from the ingested corpus itself so some profiles and entities
// match and most do not: 100 organizations with 10 profiles and 10 entities each (a monitor event goes
// to every channel of its organization's profiles, so one organization holding all 1,000 would
// multiply each event by 1,000). Deterministic: the same corpus gives the same workload.
import type { Db } from '../../api/db/database.js';
import { AlertStore } from '../../api/alerts/store.js';
import { MonitorStore } from '../../api/monitoring/store.js';
import type { FeedEntry } from '../../index-mappings/document.js';

export const ORGS = 100;

/** A deterministic pseudo-random sequence (the same profiles every run). */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

export interface Workload {
  /** Title words found in 0.1-1 % of the documents: a profile hears of a few documents, not most. */
  words: string[];
  afms: string[];
  names: string[];
}

export function workloadOf(feed: FeedEntry[]): Workload {
  const docsWith = new Map<string, number>();
  const afms = new Set<string>();
  const names = new Set<string>();
  for (const entry of feed) {
    for (const w of new Set(
      entry.doc.title
        .toLowerCase()
        .split(/[^\p{L}]+/u)
        .filter((x) => x.length > 5),
    ))
      docsWith.set(w, (docsWith.get(w) ?? 0) + 1);
    entry.doc.entities.afm.forEach((a) => afms.add(a));
    entry.doc.entities.names.forEach((n) => names.add(n));
  }
  const words = [...docsWith]
    .filter(([, n]) => n >= feed.length / 1000 && n <= feed.length / 100)
    .map(([w]) => w)
    .sort();
  return { words, afms: [...afms].sort(), names: [...names].sort() };
}

/**
 * Profiles: one corpus keyword and one that appears nowhere each; 30 % restricted to a source, 20 %
 * with a minimum value; email only. Entities: 40 % an AFM of the corpus, 40 % a name of the corpus,
 * 20 % a name that appears nowhere (a name drawn twice is monitored once: 409). `quiet` more profiles
 * and as many entities match nothing, in organizations of their own (10 of each a organization), so
 * the matches and rows per document stay those of the others. Returns the entity count.
 */
export function createWorkload(db: Db, w: Workload, profiles: number, entities: number, quiet = 0): number {
  const random = rng(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const org = (i: number) => `org_bench${i % ORGS}`;
  for (let i = 0; i < ORGS; i++) db.prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, ?, '2000-01-01T00:00:00Z')").run(org(i), `bench${i}`);
  const alerts = new AlertStore(db);
  const at = new Date('2000-01-01T00:00:00Z');
  for (let i = 0; i < profiles; i++) {
    const sources = random() < 0.3 ? [pick(['diavgeia', 'kimdis', 'ted'])] : [];
    alerts.createProfile(
      org(i),
      {
        name: `p${i}`,
        channels: ['email'],
        targets: { notify_email: 'a@example.com' },
        filters: { keywords: [pick(w.words), `λέξη${i}`], sources, sectors: [], regions: [], min_value: random() < 0.2 ? 10_000 : null, max_value: null },
      },
      'salt',
      at,
    );
  }
  const monitor = new MonitorStore(db);
  for (let i = 0; i < entities; i++) {
    const r = random();
    try {
      if (r < 0.4 && w.afms.length) monitor.createEntity(org(i), 'afm', pick(w.afms), null, at);
      else if (r < 0.8 && w.names.length) monitor.createEntity(org(i), 'name', pick(w.names), null, at);
      else monitor.createEntity(org(i), 'name', `Εταιρεία Δοκιμής ${i}`, null, at);
    } catch {
      // The same entity drawn twice (409): one fewer.
    }
  }
  // Distinct first words: the match index files a keyword and a name under their first word.
  const quietOrg = (i: number) => `org_quiet${Math.floor(i / 10)}`;
  for (let i = 0; i < quiet; i += 10)
    db.prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, ?, '2000-01-01T00:00:00Z')").run(quietOrg(i), `quiet${i / 10}`);
  for (let i = 0; i < quiet; i++) {
    alerts.createProfile(
      quietOrg(i),
      {
        name: `q${i}`,
        channels: ['email'],
        targets: { notify_email: 'q@example.com' },
        filters: { keywords: [`ανύπαρκτη${i}`], sources: [], sectors: [], regions: [], min_value: null, max_value: null },
      },
      'salt',
      at,
    );
    monitor.createEntity(quietOrg(i), 'name', `Σιωπηλή${i} Εταιρεία`, null, at);
  }
  return db.prepare('SELECT count(*) FROM monitored_entities').pluck().get() as number;
}
