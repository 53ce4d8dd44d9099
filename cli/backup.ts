// pdi backup DIR: an online copy of the data folder's state while the server and ingest runs go on.
import fs from 'node:fs';
import path from 'node:path';
import { WEBHOOK_KEY_FILE } from '../api/alerts/secret.js';
import { accountsDbPath } from '../api/db/database.js';
import { DocumentStore } from '../ingest/state/documents.js';
import { IngestState } from '../ingest/state/store.js';
import { backupFiles, BackupRefused, type BackupItem } from '../lib/backup.js';
import { SqliteBlobStore } from '../lib/blob-store.js';
import { embeddedIndexPath } from '../lib/search/index.js';
import { config, parse, UsageError, type Command } from './common.js';

const USAGE = `Usage: pdi backup DIR [--with-index] [--json]
  Copies the data folder's state into DIR while the server and ingest runs keep working (SQLite's
  online backup: each database as of one moment), with DIR/manifest.json (times, files, sizes,
  SHA-256). DIR is created; an existing DIR that is not empty is refused.
  Copied: accounts.db (keys, usage, alerts, reports, monitoring) and webhook-signing.key, ingest.db
  (checkpoints, run log), documents.db (the documents and embeddings every index rebuild comes from),
  blobs.db (the originals).
  --with-index  also copy the embedded index (index.db); without it a restore rebuilds it with
                pdi reindex. An Elasticsearch index is never copied: pdi reindex rebuilds it.
  --json        print the manifest.
  Restore: docs/operations.md "Backup and restore".`;

/**
 * What a restore needs, in copy order. The accounts come first: the alert watermarks in a later copy
 * of documents.db's feed are then never ahead of it (a restore may deliver an alert twice, never
 * miss one). Checkpoints come before documents, so the documents cover every checkpointed page; the
 * index and the originals after them, so they hold every stored document (ingest writes them first).
 */
function items(dataDir: string, withIndex: boolean): BackupItem[] {
  const name = (file: string) => path.basename(file);
  return [
    {
      name: name(accountsDbPath(dataDir)),
      kind: 'sqlite',
      holds: 'organizations, API keys (digests), daily usage, alert profiles and deliveries, reports, monitoring',
    },
    { name: WEBHOOK_KEY_FILE, kind: 'file', holds: 'the key every webhook secret is derived from' },
    { name: name(IngestState.pathIn(dataDir)), kind: 'sqlite', holds: 'ingest checkpoints, run log, reference data' },
    {
      name: name(DocumentStore.pathIn(dataDir)),
      kind: 'sqlite',
      holds: 'normalized documents, embeddings, the feed alerts read: what index rebuilds come from',
    },
    ...(withIndex
      ? [{ name: name(embeddedIndexPath(dataDir)), kind: 'sqlite' as const, holds: 'the embedded search index (rebuildable with pdi reindex)' }]
      : []),
    { name: name(SqliteBlobStore.pathIn(dataDir)), kind: 'sqlite', holds: 'originals of documents, by SHA-256' },
  ];
}

export const backupCommand: Command = {
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parse(
      { usage: USAGE },
      argv,
      {
        'with-index': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    if (positionals.length !== 1) throw new UsageError(`backup takes exactly one folder\n\n${USAGE}`);
    const dataDir = config().dataDir;
    const dir = path.resolve(positionals[0]);
    // A mistyped PDI_DATA_DIR would otherwise give a backup of nothing that looks like a success.
    if (!fs.existsSync(accountsDbPath(dataDir))) throw new UsageError(`${dataDir} holds no account database (accounts.db): is PDI_DATA_DIR right?`);
    const started = Date.now();
    let manifest;
    try {
      manifest = await backupFiles(
        dataDir,
        items(dataDir, values['with-index']),
        dir,
        values.json ? undefined : (file) => process.stdout.write(`copying ${file}\n`),
      );
    } catch (err) {
      if (err instanceof BackupRefused) throw new UsageError(err.message);
      throw err;
    }
    if (values.json) {
      process.stdout.write(`${JSON.stringify(manifest)}\n`);
      return;
    }
    const bytes = manifest.files.reduce((sum, f) => sum + f.bytes, 0);
    process.stdout.write(
      `Backed up ${manifest.files.length} files (${(bytes / 1_048_576).toFixed(1)} MiB) into ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s; see manifest.json.\n`,
    );
    if (manifest.absent.length) process.stdout.write(`Not in the data folder (not used yet): ${manifest.absent.join(', ')}\n`);
  },
};
