// A damaged embedded index is replaced, not repaired: it is a projection of documents.db, so rebuilding
// every source loses nothing. The file is moved aside (kept for a look), never under a running server.
import fs from 'node:fs/promises';
import path from 'node:path';
import { EmbeddedIndexDamagedError } from '../lib/search/embedded.js';
import { ServerLock } from '../lib/server-lock.js';

/**
 * Runs `rebuildAll` (a rebuild of every source); when it meets a damaged embedded index, moves the file
 * aside, says so through `onSetAside`, and runs it once more on a new file.
 */
export async function rebuildPastDamage<T>(rebuildAll: () => Promise<T>, onSetAside: (message: string) => void): Promise<T> {
  try {
    return await rebuildAll();
  } catch (err) {
    if (!(err instanceof EmbeddedIndexDamagedError)) throw err;
    onSetAside(await setAside(err));
    return rebuildAll();
  }
}

async function setAside(damage: EmbeddedIndexDamagedError): Promise<string> {
  const lock = acquireDataDir(damage);
  try {
    const aside = `${damage.file}.damaged-${new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}`;
    for (const suffix of ['', '-wal', '-shm']) {
      await fs.rename(`${damage.file}${suffix}`, `${aside}${suffix}`).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    }
    return `${path.basename(damage.file)} is damaged (${damage.reason}): moved to ${path.basename(aside)}; rebuilding every source from documents.db`;
  } finally {
    lock.release();
  }
}

/** The data directory's server lock, or an error saying the index is damaged and a server holds it. */
function acquireDataDir(damage: EmbeddedIndexDamagedError): ServerLock {
  try {
    return ServerLock.acquire(path.dirname(damage.file));
  } catch (err) {
    throw new Error(`${damage.message}\nNot moved: ${(err as Error).message}`);
  }
}
