// The embedded engine with stand-in reader threads (holding-reader.js) that hold a search whose text
// starts with "hold" until released, as a very slow query holds a real reader: a request can then be
// kept in flight for as long as a test needs, with no timing involved.
import { BroadcastChannel } from 'node:worker_threads';
import type { Test } from 'tap';
import { DocumentStore } from '../../ingest/state/documents.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { embeddedIndexPath } from '../../lib/search/index.js';
import { startTestApp, tempDir, type TestApp } from './app.js';

export interface HoldingApp extends TestApp {
  /** Resolves once `n` searches in all are being held. */
  held(n: number): Promise<void>;
  /** Answers every search held. */
  release(): void;
}

export async function startHoldingApp(t: Test, env: Record<string, string> = {}): Promise<HoldingApp> {
  const dataDir = tempDir(t);
  const search = new EmbeddedProvider({
    file: embeddedIndexPath(dataDir),
    dimension: 384,
    embeddingModel: 'pdi/hashing-384',
    readers: 8,
    readerEntry: new URL('./holding-reader.js', import.meta.url),
    entities: DocumentStore.pathIn(dataDir),
  });
  const channel = new BroadcastChannel('pdi-test-holding-reader');
  let count = 0;
  let waiters: (() => void)[] = [];
  channel.onmessage = () => {
    count++;
    for (const w of waiters) w();
  };
  const app = await startTestApp(t, { dataDir, search, env });
  t.teardown(async () => {
    channel.postMessage('release');
    channel.close();
    await search.close();
  });
  return {
    ...app,
    held: (n) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (count < n) return;
          waiters = waiters.filter((w) => w !== check);
          resolve();
        };
        waiters.push(check);
        check();
      }),
    release: () => channel.postMessage('release'),
  };
}
