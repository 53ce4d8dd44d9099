// HTTPS served by the API itself (PDI_TLS_CERT + PDI_TLS_KEY, PEM files). The files are checked before
// they are used, at start and at every reload: a certificate that does not parse, a key that does not
// parse (or is encrypted) or a key that is not the certificate's is refused, naming the variable.
// SIGHUP reloads them into the listening server for new connections (a renewed certificate, as certbot
// or cert-manager writes it); files that fail the check leave the previous certificate serving.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type https from 'node:https';
import type tls from 'node:tls';
import { ConfigError, type TlsFiles } from './config.js';
import type { Logger } from './logger.js';

/** TLS 1.0 and 1.1 are deprecated (RFC 8996); every client of the last decade speaks 1.2. */
export const MIN_TLS_VERSION = 'TLSv1.2';

/**
 * TLS 1.3's suites (all forward-secret) and, for TLS 1.2, only ECDHE with an AEAD cipher: Node's
 * default list also offers RSA key exchange (AES128-GCM-SHA256 and the like), where a stolen server
 * key decrypts every recorded session. These are Mozilla's "intermediate" TLS 1.2 suites minus DHE.
 */
export const CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
  /** SHA-256 fingerprint of the (leaf) certificate, as `openssl x509 -fingerprint -sha256` shows it. */
  fingerprint: string;
  validTo: string;
}

/** Reads and checks the certificate and key; throws a ConfigError naming the variable at fault. */
export function readTlsCredentials(files: TlsFiles): TlsCredentials {
  const cert = readFile(files.certFile, 'PDI_TLS_CERT');
  const key = readFile(files.keyFile, 'PDI_TLS_KEY');
  let x509: crypto.X509Certificate;
  try {
    x509 = new crypto.X509Certificate(cert);
  } catch (err) {
    throw new ConfigError('PDI_TLS_CERT', `${files.certFile} is not a PEM certificate (${(err as Error).message})`);
  }
  let privateKey: crypto.KeyObject;
  try {
    privateKey = crypto.createPrivateKey(key);
  } catch (err) {
    throw new ConfigError('PDI_TLS_KEY', `${files.keyFile} is not an unencrypted PEM private key (${(err as Error).message})`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new ConfigError('PDI_TLS_KEY', `${files.keyFile} is not the private key of the certificate in PDI_TLS_CERT ${files.certFile}`);
  }
  return { cert, key, fingerprint: x509.fingerprint256, validTo: x509.validTo };
}

function readFile(file: string, variable: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new ConfigError(variable, `${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** The options of the HTTPS server (and of each reload). */
export function secureOptions(c: TlsCredentials): https.ServerOptions {
  return { cert: c.cert, key: c.key, minVersion: MIN_TLS_VERSION, ciphers: CIPHERS, honorCipherOrder: true };
}

/**
 * Reloads the files into `server` on SIGHUP; connections already open keep the certificate they were
 * made with. Returns the function that stops listening for SIGHUP.
 */
export function reloadOnSighup(server: tls.Server, files: TlsFiles, logger: Logger): () => void {
  const reload = () => {
    try {
      const c = readTlsCredentials(files);
      server.setSecureContext(secureOptions(c));
      logger.info({ fingerprint: c.fingerprint, validTo: c.validTo }, 'TLS certificate reloaded');
    } catch (err) {
      logger.error({ error: (err as Error).message }, 'TLS certificate not reloaded; the previous one is still served');
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}
