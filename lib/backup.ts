// Online backup of SQLite files while the server and ingest runs keep writing them. Each database is
// copied by SQLite's backup API in one step: one read transaction, so the copy is that database at one
// moment, and in WAL mode the writers are not held up meanwhile (only the WAL is not checkpointed past
// the copy's snapshot until it ends). The copy is switched to a rollback journal (one self-contained
// file), checked with quick_check and hashed; manifest.json lists what was copied.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ownerOnlyFile, ownerOnlyFolder } from './owner-only.js';
import { Database } from './sqlite.js';

export interface BackupItem {
  /** File name in the data folder and in the backup. */
  name: string;
  /** What it holds, for the manifest's reader. */
  holds: string;
  kind: 'sqlite' | 'file';
}

export interface BackedUpFile {
  name: string;
  kind: BackupItem['kind'];
  holds: string;
  bytes: number;
  sha256: string;
  /** When the copy of this file began: each database is consistent as of its own moment. */
  copied_at: string;
  /** SQLite's user_version (the schema's migration number), for a database. */
  schema_version?: number;
}

export interface BackupManifest {
  format: 1;
  started_at: string;
  finished_at: string;
  data_dir: string;
  files: BackedUpFile[];
  /** Items that were not in the data folder (a store not used yet). */
  absent: string[];
}

export class BackupRefused extends Error {}

/** Every page left in one step (sqlite3_backup_step takes an int; better-sqlite3 clamps to 0..2^31-1). */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies `items` from `dataDir` into `dir`, in the order given (the caller orders them so that later
 * copies cover what earlier ones refer to). `dir` is created; one that holds anything is refused.
 */
export async function backupFiles(dataDir: string, items: BackupItem[], dir: string, onFile?: (name: string) => void): Promise<BackupManifest> {
  prepareFolder(dir);
  const startedAt = new Date().toISOString();
  const files: BackedUpFile[] = [];
  const absent: string[] = [];
  for (const item of items) {
    const from = path.join(dataDir, item.name);
    if (!fs.existsSync(from)) {
      absent.push(item.name);
      continue;
    }
    onFile?.(item.name);
    const to = path.join(dir, item.name);
    const copiedAt = new Date().toISOString();
    const schemaVersion = item.kind === 'sqlite' ? await copyDatabase(from, to) : copyFile(from, to);
    files.push({
      name: item.name,
      kind: item.kind,
      holds: item.holds,
      bytes: fs.statSync(to).size,
      sha256: await sha256(to),
      copied_at: copiedAt,
      ...(schemaVersion === undefined ? {} : { schema_version: schemaVersion }),
    });
  }
  const manifest: BackupManifest = { format: 1, started_at: startedAt, finished_at: new Date().toISOString(), data_dir: dataDir, files, absent };
  fs.writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return manifest;
}

/** The backup holds key digests and the webhook signing key: owner only, as the data folder. */
function prepareFolder(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) throw new BackupRefused(`${dir} is a file, not a folder`);
  if (stat && fs.readdirSync(dir).length > 0) {
    throw new BackupRefused(`${dir} is not empty: a backup is never written over another; name a new or empty folder`);
  }
  ownerOnlyFolder(dir);
}

/** Returns the copy's user_version. The copy is written under a temporary name, renamed once checked. */
async function copyDatabase(from: string, to: string): Promise<number> {
  const partial = `${to}.partial`;
  // Owner only from its first byte: the copy holds what the original does (key digests, documents).
  ownerOnlyFile(partial);
  const source = new Database(from, { readonly: true, fileMustExist: true });
  try {
    await source.backup(partial, { progress: () => ALL_PAGES });
  } finally {
    source.close();
  }
  const copy = new Database(partial);
  let version: number;
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy of ${path.basename(from)} fails SQLite's quick_check: ${String(check)}`);
    version = copy.pragma('user_version', { simple: true }) as number;
  } finally {
    copy.close();
  }
  fs.renameSync(partial, to);
  return version;
}

function copyFile(from: string, to: string): undefined {
  fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
  fs.chmodSync(to, 0o600);
  return undefined;
}

async function sha256(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
