// Webhook secrets. The server must sign with a profile's secret, so it cannot keep only a digest as it
// does for API keys; nor does it keep the secret. It keeps a random salt per profile and derives the
// secret as HMAC-SHA256(signing key, profile id + salt). The signing key is a file in the data folder
// (0600), never in the database: a copy or dump of accounts.db alone reveals no secret.
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ownerOnlyFile, ownerOnlyFolder } from '../../lib/owner-only.js';

/** The signing key's file in the data folder. */
export const WEBHOOK_KEY_FILE = 'webhook-signing.key';

export class WebhookSecrets {
  private constructor(private readonly key: Buffer) {}

  /** The data folder's signing key, created on first use. */
  static inDataDir(dataDir: string): WebhookSecrets {
    const file = path.join(dataDir, WEBHOOK_KEY_FILE);
    ownerOnlyFolder(dataDir);
    // Written whole under a name of this process's own, then linked into place: a link never replaces
    // a file, so two processes starting at once agree on one key, and neither reads it half written.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    ownerOnlyFile(draft);
    fs.writeFileSync(draft, randomBytes(32).toString('hex'), { flag: 'r+' });
    try {
      fs.linkSync(draft, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(draft, { force: true });
    }
    const hex = fs.readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is not a 32-byte hex key; remove it to make a new one (every webhook secret changes)`);
    return new WebhookSecrets(Buffer.from(hex, 'hex'));
  }

  static newSalt(): string {
    return randomBytes(16).toString('hex');
  }

  /** The secret shown once at creation and used to sign every webhook of the profile. */
  secretOf(profileId: string, salt: string): string {
    return `whsec_${createHmac('sha256', this.key).update(`${profileId}.${salt}`).digest('hex')}`;
  }
}

/** The X-PDI-Signature header value for `body` sent at `unixSeconds`. */
export function signature(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}
