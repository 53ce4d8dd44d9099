// The watcher: reads the document store's feed after a durable watermark (whichever process ingested:
// the feed is in documents.db) and records, per batch and in one transaction of the account database,
// the deliveries of matching profiles, the events of monitored entities, the events' deliveries on
// their organization's channels (once per distinct channel and address: the deliveries of other profiles
// naming the same address are recorded `sent_with` the one sent), and the watermark. So a restart neither repeats nor loses a match;
// sending is the sender's (deliveries.ts), from the recorded rows.
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { systemClock, type Clock } from '../../lib/clock.js';
import { timeOrderedUuid } from '../../lib/uuid.js';
import type { Logger } from '../../lib/logger.js';
import { fullContentOf, metadataOf, type FeedEntry, type NormalizedDocument } from '../../index-mappings/document.js';
import type { TargetRules } from './channels/channel.js';
import { channelNamed, type Channel } from './channels/index.js';
import { AlertStore, type ProfileRecord } from './store.js';
import type { Db } from '../db/database.js';
import { MonitorStore } from '../monitoring/store.js';
import { DocumentText, eventSummary, eventTypeOf, MatchIndex, profileMatcher } from './match.js';

/** Feed entries matched per transaction; the event loop is yielded to requests between batches. */
const BATCH = 500;
const WATERMARK = 'documents';
const NO_PRIVATE: TargetRules = { allowPrivate: false };

/** The document as deliveries carry it: the full-content record of a Pro listing. */
export function deliveredDocument(doc: NormalizedDocument): Record<string, unknown> {
  return { ...metadataOf(doc), ...fullContentOf(doc) };
}

/** What the watcher reads of the document store (ingest/state/documents.ts). */
export interface DocumentFeed {
  feedAfter(seq: number, limit: number): FeedEntry[];
  lastSeq(): number;
}

export interface WatcherOptions {
  db: Db;
  documents: DocumentFeed;
  log: Logger;
  /** The server's rules for addresses, under which two addresses are told apart (default: none private). */
  rules?: TargetRules;
  clock?: Clock;
  /** Called after a batch recorded deliveries (the sender starts on them). */
  onRecorded?: () => void;
}

/** Who a channel of a profile reaches: an event goes once to each (addresses in their channel's canonical form). */
function recipientOf(profile: ProfileRecord, name: Channel, rules: TargetRules): string {
  const channel = channelNamed(name);
  const address = profile.targets[channel.member] ?? '';
  try {
    return `${name} ${channel.parseTarget(address, rules)}`;
  } catch {
    return `${name} ${address}`;
  }
}

/** The active profiles and entities as the watcher matches by them, and the generation they are of. */
interface Matching {
  generation: number;
  index: MatchIndex;
  /** Each organization's active profiles: the channels its events go out on. */
  byOrg: Map<string, ProfileRecord[]>;
}

export class Watcher {
  private readonly alerts: AlertStore;
  private readonly monitor: MonitorStore;
  private readonly clock: Clock;
  private readonly st;
  /** Kept while no profile or entity changes: at 10,000 of each, building it cost more than matching a batch. */
  private matching: Matching | null = null;

  constructor(private readonly opts: WatcherOptions) {
    this.alerts = new AlertStore(opts.db);
    this.monitor = new MonitorStore(opts.db);
    this.clock = opts.clock ?? systemClock;
    const db = opts.db;
    this.st = {
      watermark: db.prepare('SELECT seq FROM watcher_state WHERE name = ?').pluck(),
      advance: db.prepare(
        `INSERT INTO watcher_state (name, seq, checked_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET seq = excluded.seq, checked_at = excluded.checked_at`,
      ),
      document: db.prepare('INSERT OR REPLACE INTO alert_documents (source_id, document) VALUES (?, ?)'),
      delivery: db.prepare(
        `INSERT OR IGNORE INTO alert_deliveries (id, org_id, alert_profile_id, document_source_id, channel, monitor_event_id,
           delivery_status, next_attempt_at, created_at, sent_with) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      ),
      event: db.prepare(
        `INSERT OR IGNORE INTO monitor_events (id, org_id, monitored_entity_id, document_source_id, event_type, summary, detected_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      alerted: db.prepare('UPDATE monitored_entities SET last_alert_at = ? WHERE id = ?'),
      generation: db.prepare('SELECT n FROM match_generation').pluck(),
    };
  }

  /** The watermark; the first pass over a data folder starts at the feed's end (no backlog is alerted). */
  watermark(): number {
    const seq = this.st.watermark.get(WATERMARK) as number | undefined;
    if (seq !== undefined) return seq;
    const start = this.opts.documents.lastSeq();
    this.st.advance.run(WATERMARK, start, this.clock().toISOString());
    return start;
  }

  /** Matches everything the feed holds past the watermark; returns how many entries it read. */
  async pass(): Promise<number> {
    let read = 0;
    for (;;) {
      const entries = this.opts.documents.feedAfter(this.watermark(), BATCH);
      if (entries.length === 0) {
        this.st.advance.run(WATERMARK, this.watermark(), this.clock().toISOString());
        return read;
      }
      const recorded = this.record(entries);
      read += entries.length;
      if (recorded > 0) this.opts.onRecorded?.();
      await yieldToRequests();
    }
  }

  /** The match index of the profiles and entities active now (the generation is read before them). */
  private current(): Matching {
    const generation = this.st.generation.get() as number;
    if (this.matching?.generation === generation) return this.matching;
    const index = new MatchIndex(this.alerts.activeProfiles().map(profileMatcher), this.monitor.activeEntities());
    const byOrg = new Map<string, ProfileRecord[]>();
    for (const { profile } of index.profiles) {
      const list = byOrg.get(profile.org_id);
      if (list) list.push(profile);
      else byOrg.set(profile.org_id, [profile]);
    }
    return (this.matching = { generation, index, byOrg });
  }

  /** One batch in one transaction; returns the deliveries recorded. */
  private record(entries: FeedEntry[]): number {
    const { index, byOrg } = this.current();
    let deliveries = 0;
    this.opts.db
      .transaction(() => {
        const now = this.clock().toISOString();
        for (const entry of entries) deliveries += this.recordEntry(entry, index, byOrg, now);
        this.st.advance.run(WATERMARK, entries[entries.length - 1]!.seq, now);
      })
      .immediate();
    return deliveries;
  }

  private recordEntry(entry: FeedEntry, index: MatchIndex, byOrg: Map<string, ProfileRecord[]>, now: string): number {
    const text = new DocumentText(entry.doc);
    const sourceId = entry.doc.source_id;
    let stored = false;
    let count = 0;
    // `recipients` (one event's): the delivery sent to each channel and address so far.
    const deliver = (profile: ProfileRecord, eventId: string, recipients?: Map<string, string>) => {
      if (!stored) this.st.document.run(sourceId, JSON.stringify(deliveredDocument(entry.doc)));
      stored = true;
      for (const channel of profile.channels) {
        const id = timeOrderedUuid();
        const recipient = recipientOf(profile, channel, this.opts.rules ?? NO_PRIVATE);
        const sentWith = recipients?.get(recipient) ?? null;
        if (sentWith === null) recipients?.set(recipient, id);
        count += this.st.delivery.run(id, profile.org_id, profile.id, sourceId, channel, eventId, now, now, sentWith).changes;
      }
    };
    // Profiles hear of new documents stored after they were made; an update is no new document.
    if (entry.kind === 'new') {
      for (const { profile } of index.profilesMatching(text)) if (profile.created_at <= entry.stored_at) deliver(profile, '');
    }
    for (const entity of index.entitiesMatching(text)) {
      if (entity.created_at > entry.stored_at) continue;
      const eventId = timeOrderedUuid();
      const raised = this.st.event.run(eventId, entity.org_id, entity.id, sourceId, eventTypeOf(entry.doc), eventSummary(entity, entry.doc), now).changes;
      if (raised === 0) continue; // one event per (entity, document)
      this.st.alerted.run(now, entity.id);
      const recipients = new Map<string, string>();
      for (const profile of byOrg.get(entity.org_id) ?? []) deliver(profile, eventId, recipients);
    }
    return count;
  }
}
