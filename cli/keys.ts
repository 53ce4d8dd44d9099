// pdi keys create|list|revoke: API key management against the account database.
import fs from 'node:fs';
import path from 'node:path';
import { accountsDbPath, openDatabase } from '../api/db/database.js';
import { KeyStore, orgNameProblem, TIERS, type Tier } from '../api/db/keys.js';
import { ServerLock } from '../lib/server-lock.js';
import { printable } from '../lib/terminal.js';
import { config, parse, UsageError, type Command } from './common.js';

const USAGE = `Usage:
  pdi keys create --org NAME --tier free|pro|enterprise [--json]
      Creates a key and prints it once (it cannot be shown again).
      --json prints one line {"id","key","org","tier"}.
  pdi keys list [--json]
      Lists keys (never their secret): id, org, tier, created_at, revoked_at.
  pdi keys revoke ID
      Revokes a key; it stops working on its very next request.`;

/**
 * Runs `fn` on the key store. A command that only reads or revokes passes `absent`, the answer when the
 * data folder holds no account database yet: it is not created for them (a mistyped PDI_DATA_DIR would
 * otherwise leave a new folder and an empty database behind).
 */
function withStore<T>(fn: (store: KeyStore) => T, absent?: () => T): T {
  const file = accountsDbPath(config().dataDir);
  if (absent && !fs.existsSync(file)) return absent();
  const db = openDatabase(file);
  try {
    return fn(new KeyStore(db));
  } finally {
    db.close();
  }
}

/**
 * A key works only on the server of the data folder it was written to. When no server holds this folder
 * but one answers on PORT (8000 by default), that server reads another folder and would answer 401.
 */
async function warnIfAnotherServer(dataDir: string): Promise<void> {
  if (ServerLock.isHeld(dataDir)) return;
  const { port } = config();
  const answered = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(500) }).then(
    (res) => res.status < 500 || res.status === 503,
    () => false,
  );
  if (!answered) return;
  process.stderr.write(
    `pdi: warning: no API server runs on the data folder ${dataDir}, but a server answers on port ${port}: ` +
      "it reads another data folder and will refuse this key (401). Run pdi with that server's PDI_DATA_DIR.\n",
  );
}

export const keysCommand: Command = {
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'create') {
      const { values } = parse({ usage: USAGE }, rest, {
        org: { type: 'string' },
        tier: { type: 'string' },
        json: { type: 'boolean', default: false },
      });
      const org = values.org?.trim();
      if (!org) throw new UsageError(`--org is required\n\n${USAGE}`);
      const problem = orgNameProblem(org);
      if (problem) throw new UsageError(`--org ${problem}\n\n${USAGE}`);
      if (!values.tier || !(TIERS as readonly string[]).includes(values.tier)) {
        throw new UsageError(`--tier must be one of ${TIERS.join(', ')}\n\n${USAGE}`);
      }
      const k = withStore((s) => s.create(org, values.tier as Tier));
      const dataDir = path.resolve(config().dataDir);
      if (values.json) process.stdout.write(`${JSON.stringify({ id: k.id, key: k.key, org: k.org, tier: k.tier })}\n`);
      else process.stdout.write(`Created key ${k.id} for ${k.org} (${k.tier}) in ${dataDir}.\n${k.key}\nStore it now: it will not be shown again.\n`);
      await warnIfAnotherServer(dataDir);
      return;
    }
    if (sub === 'list') {
      const { values } = parse({ usage: USAGE }, rest, { json: { type: 'boolean', default: false } });
      const keys = withStore(
        (s) => s.list(),
        () => [],
      );
      if (values.json) {
        process.stdout.write(`${JSON.stringify(keys)}\n`);
        return;
      }
      if (keys.length === 0) process.stdout.write('No keys yet. Create one with: pdi keys create --org NAME --tier free\n');
      for (const k of keys) {
        process.stdout.write(`${k.id}  ${k.tier.padEnd(10)} ${printable(k.org)}  created ${k.created_at}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ''}\n`);
      }
      return;
    }
    if (sub === 'revoke') {
      const { positionals } = parse({ usage: USAGE }, rest, {}, true);
      if (positionals.length !== 1) throw new UsageError(`keys revoke takes exactly one key id\n\n${USAGE}`);
      const found = withStore(
        (s) => s.revoke(positionals[0]),
        () => false,
      );
      if (!found) throw new UsageError(`No key with id ${positionals[0]}`);
      process.stdout.write(`Revoked ${positionals[0]}.\n`);
      return;
    }
    if (sub === '--help' || sub === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    throw new UsageError(`${sub ? `Unknown keys command: ${sub}` : 'keys needs a command'}\n\n${USAGE}`);
  },
};
