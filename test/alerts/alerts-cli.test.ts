// End to end across processes: a raw upstream record ingested by `pdi ingest --from` (another process)
// reaches a matching profile on both channels and raises a monitor event; the API server is killed
// between matching and delivery, and after its restart each delivery is sent exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Database } from '../../lib/sqlite.js';
import t, { type Test } from 'tap';
import { accountsDbPath } from '../../api/db/database.js';
import { request, tempDir } from '../helpers/app.js';
import { startSmtp, startWebhookReceiver, until } from '../helpers/alert-peers.js';
import { cliEnv, pdi } from '../helpers/cli.js';
import { FIXTURES, REPO_ROOT } from '../helpers/paths.js';

const TEMPLATE = path.join(FIXTURES, 'kimdis/contract_page_anonymized_shape.json');

/** `pdi serve` in a process of its own; resolves with its URL once it listens. */
async function serve(t: Test, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['bin/pdi.js', 'serve'], {
    cwd: REPO_ROOT,
    env: cliEnv({ ...env, LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /"url":"([^"]+)"/.exec(out)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`pdi serve exited (${code}): ${out}`)));
  });
  return { url, child };
}

t.test(
  'when pdi ingest stores a matching record and the server is killed before sending, then after a restart each delivery goes out once',
  { skip: fs.existsSync(TEMPLATE) ? false : 'shared fixtures absent' },
  async (t) => {
    const smtp = await startSmtp(t);
    const hook = await startWebhookReceiver(t);
    const dataDir = tempDir(t);
    const env = { PDI_DATA_DIR: dataDir, PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', SMTP_URL: smtp.url, PDI_WEBHOOK_ALLOW_PRIVATE: '1' };
    const made = await pdi(dataDir, ['keys', 'create', '--org', 'Acme', '--tier', 'enterprise', '--json']);
    const { key } = JSON.parse(made.stdout) as { key: string };
    let server = await serve(t, env);

    const profile = await request(server.url, '/v1/alerts/profiles', {
      key,
      method: 'POST',
      body: {
        name: 'Fire safety',
        channels: ['email', 'webhook'],
        notify_email: 'ops@example.com',
        webhook_url: hook.url,
        filters: { keywords: ['πυροσβεστηρων'], sources: ['kimdis'] },
      },
    });
    t.equal(profile.status, 201, profile.text);
    hook.secret = profile.body.webhook_secret;
    const quiet = await request(server.url, '/v1/alerts/profiles', {
      key,
      method: 'POST',
      body: { name: 'Roads', channels: ['email'], notify_email: 'roads@example.com', filters: { keywords: ['ασφαλτόστρωση'] } },
    });
    const entity = await request(server.url, '/v1/monitor/entities', {
      key,
      method: 'POST',
      body: { entity_identifier: 'Δήμος Δοκιμής', identifier_type: 'name' },
    });
    t.equal(entity.status, 201, entity.text);

    // Both peers take the first sends and never answer them: the server dies with them under way.
    smtp.hold = true;
    hook.statuses.push(0, 0);
    const template = JSON.parse(fs.readFileSync(TEMPLATE, 'utf8'));
    const dir = tempDir(t);
    const record = { ...template.content[0], referenceNumber: '26SYMV099999991' };
    fs.writeFileSync(
      path.join(dir, 'page-0.json'),
      JSON.stringify({ ...template, content: [record], numberOfElements: 1, totalElements: 1, totalPages: 1, first: true, last: true }),
    );
    const run = await pdi(dataDir, ['ingest', 'kimdis', '--from', dir]);
    t.equal(run.code, 0, run.stderr);

    const deliveries = (url: string) => request(url, '/v1/alerts/deliveries', { key }).then((r) => r.body);
    // An organization holds at most half of a channel's send slots (two of e-mail's four), so the third
    // mail may wait its turn: the kill catches sends under way on both channels and one not yet begun.
    const begun = await until(async () => {
      const body = await deliveries(server.url);
      const underWay = (channel: string) => body.items.filter((d: { channel: string; attempts: number }) => d.channel === channel && d.attempts >= 1).length;
      return body.total === 5 && underWay('webhook') === 2 && underWay('email') >= 1 && body;
    }, 'five deliveries recorded, sends under way on both channels');
    // The match on both channels of the matching profile; the event on every channel of the organization.
    t.same(
      begun.items.map((d: { delivery_status: string }) => d.delivery_status),
      ['pending', 'pending', 'pending', 'pending', 'pending'],
    );
    const events = (await request(server.url, '/v1/monitor/events', { key })).body;
    t.equal(events.total, 1, 'a monitor event was raised');
    t.match(events.items[0], { monitored_entity_id: entity.body.id, event_type: 'contract_award', document_source_id: 'kimdis:26SYMV099999991' });

    const killed = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGKILL');
    await killed;
    t.equal(smtp.messages.length, 0, 'no mail was acknowledged before the kill');
    t.equal(hook.requests.length, 0, 'no webhook was answered before the kill');

    smtp.hold = false;
    server = await serve(t, env);
    const mails = await smtp.received(3);
    const hooks = await hook.answered(2);
    const after = await until(async () => {
      const body = await deliveries(server.url);
      return body.items.every((d: { delivery_status: string }) => d.delivery_status === 'sent') && body;
    }, 'every delivery sent');
    t.equal(after.total, 5, 'the restart recorded no second delivery');
    t.same(new Set(after.items.map((d: { id: string }) => d.id)), new Set(begun.items.map((d: { id: string }) => d.id)));
    t.same(hooks.map((h) => h.json.type).sort(), ['alert.match', 'monitor.event']);
    t.ok(
      hooks.every((h) => h.verified),
      'signed',
    );
    t.ok(
      mails.every((m) => /kimdis:26SYMV099999991/.test(m.text ?? '')),
      'each mail names the document',
    );
    const quietOnes = (await request(server.url, `/v1/alerts/deliveries?profile_id=${quiet.body.id}`, { key })).body.items;
    t.same(
      quietOnes.map((d: { monitor_event_id: string | null }) => d.monitor_event_id),
      [events.items[0].id],
      'the non-matching profile got the event only, not the document',
    );
    t.equal((await request(server.url, '/v1/monitor/events', { key })).body.total, 1, 'the restart raised no second event');
    const db = new Database(accountsDbPath(dataDir), { readonly: true });
    t.teardown(() => db.close());
    t.equal(db.prepare('SELECT count(*) FROM alert_deliveries').pluck().get(), 5);
    t.equal(smtp.messages.length, 3);
    t.equal(hook.requests.length, 2);
  },
);
