#!/usr/bin/env node
// The image's HEALTHCHECK: exit 0 when this container's server answers GET /healthz with 200 (the
// engine answers), 1 otherwise. It asks over HTTPS when the server speaks it (PDI_TLS_CERT), without
// verifying the certificate: the peer is the server on this host's loopback, not a remote one.
import http from 'node:http';
import https from 'node:https';

const tls = Boolean(process.env.PDI_TLS_CERT);
const host = !process.env.HOST || ['0.0.0.0', '::'].includes(process.env.HOST) ? '127.0.0.1' : process.env.HOST;
const req = (tls ? https : http).get({ host, port: Number(process.env.PORT || 8000), path: '/healthz', timeout: 4000, rejectUnauthorized: false }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', (err) => {
  process.stderr.write(`healthcheck: ${err.message}\n`);
  process.exit(1);
});
