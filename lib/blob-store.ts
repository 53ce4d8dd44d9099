// Originals of documents, content-addressed by SHA-256. The interface is what an object store
// (S3, GCS) would implement; FileBlobStore keeps them under PDI_DATA_DIR/blobs/ab/cd/<sha256>.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface BlobStore {
  /** Stores the bytes and returns their SHA-256 hex; storing the same bytes twice is a no-op. */
  put(bytes: Buffer): Promise<string>;
  /** The bytes, or null when no blob has that digest. */
  get(sha256: string): Promise<Buffer | null>;
}

const DIGEST = /^[0-9a-f]{64}$/;

export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(sha256: string): string {
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(bytes: Buffer): Promise<string> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const target = this.pathOf(sha256);
    try {
      await fs.access(target);
      return sha256;
    } catch {
      // not there yet
    }
    await fs.mkdir(path.dirname(target), { recursive: true });
    // Write then rename, so a reader never sees a partial blob.
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, target);
    return sha256;
  }

  async get(sha256: string): Promise<Buffer | null> {
    if (!DIGEST.test(sha256)) return null;
    try {
      return await fs.readFile(this.pathOf(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}
