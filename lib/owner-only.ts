// The data folder holds key digests, the webhook signing key, documents and reports: for the server's
// user only. A mode given to mkdir or open is filtered by the umask, and mkdir leaves an existing
// folder's mode as it was, so these set the mode themselves.
import fs from 'node:fs';

/** `dir`, created if needed, readable by its owner only (0700) even when it existed. */
export function ownerOnlyFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/**
 * Creates `file` empty with mode 0600 unless it exists. Before SQLite opens a new database: SQLite
 * creates the file with the umask's mode, and its -wal, -shm and -journal files take the mode of the
 * database file. A folder that cannot be written is left for the caller's open to report.
 */
export function ownerOnlyFile(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600);
  } catch {
    return;
  }
  try {
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}
