// The alerting side of the API process: the watcher polls the document store's feed, and the sender
// sends what it records. Started and stopped with the server.
import type { Config } from '../../lib/config.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Db } from '../db/database.js';
import type { Channel } from './channels/index.js';
import { DeliverySender } from './deliveries.js';
import { Watcher, type DocumentFeed } from './watcher.js';

/** How often the feed is read for documents another process (pdi ingest) or the server stored. */
export const WATCH_EVERY_MS = 1_000;

export interface AlertService {
  watcher: Watcher;
  sender: DeliverySender;
  /** Runs one watcher pass now (and waits for it); passes never overlap. */
  check(): Promise<void>;
  stop(): Promise<void>;
}

/** `documents` is the document store's feed (server.ts opens it; api/ does not import ingest/). */
export function startAlerts(
  config: Config,
  db: Db,
  documents: DocumentFeed,
  logger: Logger,
  opts: { clock?: Clock; concurrency?: Partial<Record<Channel, number>> } = {},
): AlertService {
  const log = logger.child({ component: 'alerts' });
  const rules = { allowPrivate: config.webhookAllowPrivate };
  const sender = new DeliverySender({ db, log, config, clock: opts.clock, concurrency: opts.concurrency });
  const watcher = new Watcher({ db, documents, log, rules, clock: opts.clock, onRecorded: () => sender.pump() });
  let pass: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const check = (): Promise<void> => {
    // A check asked for during a pass runs right after it, in the same promise: passes never overlap
    // nor pile up behind a long one.
    if (pass) {
      again = true;
      return pass;
    }
    pass = (async () => {
      do {
        again = false;
        try {
          await watcher.pass();
        } catch (err) {
          // A locked or full database: the watermark did not move, so the next pass reads the same batch.
          log.error({ error: (err as Error).message }, 'watcher pass failed; tried again at the next poll');
        }
      } while (again && !stopped);
    })().finally(() => {
      pass = null;
    });
    return pass;
  };
  const timer = setInterval(() => void check(), WATCH_EVERY_MS);
  timer.unref();
  sender.start();
  void check();
  return {
    watcher,
    sender,
    check,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await pass;
      await sender.stop();
    },
  };
}
