// HTTPS served by the API itself (PDI_TLS_CERT + PDI_TLS_KEY) and reloaded on SIGHUP. The certificates
// are made at test time with the openssl binary: a test CA and leaf certificates for localhost and
// 127.0.0.1 signed by it, so the client trusts the CA alone (as a client of a real deployment would).
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { startServer } from '../../api/server.js';
import { loadConfig } from '../../lib/config.js';
import { tempDir } from '../helpers/app.js';
import { cliEnv } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { SERVER_ARGS } from '../helpers/server-process.js';

const exec = promisify(execFile);

interface Issued {
  cert: string;
  key: string;
  fingerprint: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  await exec('openssl', args, { cwd });
}

/** A CA in `dir` (ca.pem, ca.key); returns the CA certificate's PEM. */
async function makeCa(dir: string): Promise<string> {
  await openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=pdi test CA',
    ],
    dir,
  );
  return fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8');
}

/**
 * A leaf certificate `name`.pem with its key `name`.key, for localhost and 127.0.0.1, signed by the CA.
 * An RSA key allows RSA key exchange, which an EC key cannot do: the suites without forward secrecy.
 */
async function issue(dir: string, name: string, keyType: 'ec' | 'rsa' = 'ec'): Promise<Issued> {
  const newKey = keyType === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'] : ['-newkey', 'rsa:2048'];
  await openssl(['req', ...newKey, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  await openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'san.ext', '-out', `${name}.pem`],
    dir,
  );
  const cert = path.join(dir, `${name}.pem`);
  return { cert, key: path.join(dir, `${name}.key`), fingerprint: new crypto.X509Certificate(fs.readFileSync(cert)).fingerprint256 };
}

interface HttpsAnswer {
  status: number;
  body: any;
  fingerprint: string;
  protocol: string | null;
  reusedSocket: boolean;
}

/** One request that trusts `ca` only, on a new connection unless `agent` keeps one. */
function get(url: string, pathAndQuery: string, ca: string, opts: { key?: string; maxVersion?: 'TLSv1.2'; agent?: https.Agent } = {}): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${url}${pathAndQuery}`,
      {
        ca,
        agent: opts.agent ?? false,
        maxVersion: opts.maxVersion,
        headers: opts.key ? { authorization: `Bearer ${opts.key}` } : {},
      },
      (res) => {
        const socket = res.socket as tls.TLSSocket;
        const fingerprint = socket.getPeerCertificate().fingerprint256;
        const protocol = socket.getProtocol();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), fingerprint, protocol, reusedSocket: req.reusedSocket }));
      },
    );
    req.on('error', reject);
  });
}

/** A logger whose lines the test can wait for. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const waiters: { msg: string; seen: number; resolve: (line: Record<string, unknown>) => void }[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (text: string) => {
        const line = JSON.parse(text) as Record<string, unknown>;
        lines.push(line);
        for (const w of [...waiters]) {
          if (line.msg === w.msg && lines.filter((l) => l.msg === w.msg).length > w.seen) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      },
    },
  );
  /** Resolves at the next line with this message (one logged after this call). */
  const next = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      waiters.push({ msg, seen: lines.filter((l) => l.msg === msg).length, resolve });
    });
  return { logger, lines, next };
}

async function tlsServer(t: Test, certDir: string, files: Issued) {
  const live = { cert: path.join(certDir, 'live.pem'), key: path.join(certDir, 'live.key') };
  fs.copyFileSync(files.cert, live.cert);
  fs.copyFileSync(files.key, live.key);
  const log = recordingLogger();
  const config = loadConfig({
    PDI_DATA_DIR: tempDir(t),
    PDI_DEMO: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    PDI_TLS_CERT: live.cert,
    PDI_TLS_KEY: live.key,
  });
  const running = await startServer(config, log.logger);
  t.teardown(() => running.stop());
  return { running, live, log };
}

t.test('when PDI_TLS_CERT and PDI_TLS_KEY are set, then the API serves HTTPS with that certificate, TLS 1.2 or later', async (t) => {
  const dir = tempDir(t);
  const ca = await makeCa(dir);
  const first = await issue(dir, 'first');
  const { running } = await tlsServer(t, dir, first);
  t.match(running.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  // The dashboard marks its cookie Secure when the request's socket is encrypted (tested in dashboard.test.ts).
  const encrypted: boolean[] = [];
  running.app.server.server.on('request', (req: import('node:http').IncomingMessage) => {
    encrypted.push((req.socket as tls.TLSSocket).encrypted === true);
  });

  const health = await get(running.url, '/healthz', ca);
  t.equal(health.status, 200);
  t.equal(health.fingerprint, first.fingerprint);
  t.equal(health.protocol, 'TLSv1.3');
  const key = running.app.context.keys.create('Acme', 'pro').key;
  const usage = await get(running.url, '/v1/usage', ca, { key });
  t.equal(usage.status, 200);
  t.equal(usage.body.daily_used, 1, 'a /v1 request is served and counted over HTTPS');
  const tls12 = await get(running.url, '/healthz', ca, { maxVersion: 'TLSv1.2' });
  t.equal(tls12.protocol, 'TLSv1.2', 'a TLS 1.2 client is served');
  // A client that offers TLS 1.1 only (its own security level lowered so that it may) is refused by the server.
  const tls11 = await new Promise<string>((resolve) => {
    const { port } = new URL(running.url);
    const socket = tls.connect(
      { host: '127.0.0.1', port: Number(port), ca, minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' },
      () => {
        resolve(`connected with ${socket.getProtocol()}`);
        socket.end();
      },
    );
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
  t.equal(tls11, 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'TLS 1.1 is refused by the server');
  t.same(encrypted, [true, true, true], "each request's socket is encrypted");

  const plain = await fetch(running.url.replace('https:', 'http:') + '/healthz').then(
    () => 'answered',
    () => 'refused',
  );
  t.equal(plain, 'refused', 'plain HTTP is not served on the HTTPS port');
});

t.test(
  'when a TLS 1.2 client offers only suites without forward secrecy, then it is refused; with ECDHE it is served, and every answer carries Strict-Transport-Security',
  async (t) => {
    const dir = tempDir(t);
    const ca = await makeCa(dir);
    const { running } = await tlsServer(t, dir, await issue(dir, 'rsa', 'rsa'));
    const { port } = new URL(running.url);
    const handshake = (ciphers: string) =>
      new Promise<string>((resolve) => {
        const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca, maxVersion: 'TLSv1.2', ciphers }, () => {
          resolve(`connected with ${socket.getCipher().name}`);
          socket.end();
        });
        socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      });
    for (const suite of ['AES128-GCM-SHA256', 'AES256-GCM-SHA384', 'AES128-SHA256', 'AES128-SHA']) {
      t.match(await handshake(suite), /^ERR_SSL_/, `${suite} (RSA key exchange) is refused`);
    }
    t.equal(await handshake('ECDHE-RSA-AES128-GCM-SHA256'), 'connected with ECDHE-RSA-AES128-GCM-SHA256');
    const headers = await new Promise<import('node:http').IncomingHttpHeaders>((resolve, reject) => {
      https
        .get(`${running.url}/nowhere`, { ca, agent: false }, (res) => {
          res.resume();
          resolve(res.headers);
        })
        .on('error', reject);
    });
    t.equal(headers['strict-transport-security'], 'max-age=31536000', 'on a 404 too');
  },
);

t.test('when the files are replaced and SIGHUP is sent, then new connections get the new certificate; bad files keep the old one', async (t) => {
  const dir = tempDir(t);
  const ca = await makeCa(dir);
  const [first, second, third] = [await issue(dir, 'first'), await issue(dir, 'second'), await issue(dir, 'third')];
  const { running, live, log } = await tlsServer(t, dir, first);
  t.equal((await get(running.url, '/healthz', ca)).fingerprint, first.fingerprint);
  // A connection opened before the reload, kept alive through it.
  const kept = new https.Agent({ keepAlive: true, maxSockets: 1, ca });
  t.teardown(() => kept.destroy());
  t.equal((await get(running.url, '/healthz', ca, { agent: kept })).reusedSocket, false);

  fs.copyFileSync(second.cert, live.cert);
  fs.copyFileSync(second.key, live.key);
  let reloaded = log.next('TLS certificate reloaded');
  process.kill(process.pid, 'SIGHUP');
  t.equal((await reloaded).fingerprint, second.fingerprint, 'the reload is logged with the new fingerprint');
  const after = await get(running.url, '/healthz', ca);
  t.equal(after.status, 200);
  t.equal(after.fingerprint, second.fingerprint, 'a new connection sees the new certificate');
  const old = await get(running.url, '/healthz', ca, { agent: kept });
  t.same(
    [old.status, old.reusedSocket, old.fingerprint],
    [200, true, first.fingerprint],
    'the connection open before the reload still serves, with the certificate it began with',
  );

  // Each bad state of the files: logged, and the certificate before it still served.
  const cases: [string, () => void, RegExp][] = [
    ['a certificate that is not PEM', () => fs.writeFileSync(live.cert, 'not a certificate\n'), /PDI_TLS_CERT .* is not a PEM certificate/],
    [
      'a key of another certificate',
      () => {
        fs.copyFileSync(third.cert, live.cert);
        fs.copyFileSync(second.key, live.key);
      },
      /PDI_TLS_KEY .* is not the private key of the certificate/,
    ],
    ['a missing key file', () => fs.rmSync(live.key), /PDI_TLS_KEY .*live\.key cannot be read \(ENOENT\)/],
  ];
  for (const [what, breakFiles, error] of cases) {
    breakFiles();
    const refused = log.next('TLS certificate not reloaded; the previous one is still served');
    process.kill(process.pid, 'SIGHUP');
    t.match((await refused).error, error, `${what}: the error is logged`);
    const still = await get(running.url, '/healthz', ca);
    t.equal(still.status, 200, `${what}: still serving`);
    t.equal(still.fingerprint, second.fingerprint, `${what}: the previous certificate is kept`);
  }

  fs.copyFileSync(third.cert, live.cert);
  fs.copyFileSync(third.key, live.key);
  reloaded = log.next('TLS certificate reloaded');
  process.kill(process.pid, 'SIGHUP');
  await reloaded;
  t.equal((await get(running.url, '/healthz', ca)).fingerprint, third.fingerprint, 'good files load again after bad ones');
});

t.test('when the TLS settings are incomplete or the files unreadable, then the server does not start and names the variable', async (t) => {
  const dir = tempDir(t);
  await makeCa(dir);
  const good = await issue(dir, 'good');
  const start = async (env: Record<string, string>) => {
    try {
      await exec(process.execPath, [...SERVER_ARGS], {
        cwd: REPO_ROOT,
        env: cliEnv({ PDI_DATA_DIR: tempDir(t), PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', ...env }),
      });
      return { code: 0, stderr: '' };
    } catch (err) {
      const e = err as { code: number; stderr: string };
      return { code: e.code, stderr: e.stderr.trim() };
    }
  };
  t.same(await start({ PDI_TLS_CERT: good.cert }), {
    code: 2,
    stderr: 'Invalid configuration: PDI_TLS_KEY must be set when PDI_TLS_CERT is (the PEM private key file of that certificate)',
  });
  t.same(await start({ PDI_TLS_KEY: good.key }), {
    code: 2,
    stderr: 'Invalid configuration: PDI_TLS_CERT must be set when PDI_TLS_KEY is (the PEM certificate file served with that key)',
  });
  const missing = path.join(dir, 'missing.pem');
  t.same(await start({ PDI_TLS_CERT: missing, PDI_TLS_KEY: good.key }), {
    code: 1,
    stderr: `Failed to start: Invalid configuration: PDI_TLS_CERT ${missing} cannot be read (ENOENT)`,
  });
  const notKey = path.join(dir, 'not-a-key.pem');
  fs.writeFileSync(notKey, 'garbage\n');
  const bad = await start({ PDI_TLS_CERT: good.cert, PDI_TLS_KEY: notKey });
  t.equal(bad.code, 1);
  t.match(bad.stderr, `Failed to start: Invalid configuration: PDI_TLS_KEY ${notKey} is not an unencrypted PEM private key`);
});
