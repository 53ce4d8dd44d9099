// One organization's webhook receiver drips its answer (one byte every 5 s, never finishing), another
// organization's receiver answers at once; the sender at its defaults (16 webhook slots, 10 s deadline):
//   node --import tsx bench/alerts/drip.ts [--documents 20] [--profiles 25]
// Prints how long each of the other organization's deliveries waited from being recorded to reaching
// its receiver (the figure of docs/benchmarks.md "Reports and tenant fairness": at most 15 s).
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AlertStore } from '../../api/alerts/store.js';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { KeyStore } from '../../api/db/keys.js';
import { startAlerts } from '../../api/alerts/service.js';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';

const { values } = parseArgs({ options: { documents: { type: 'string', default: '20' }, profiles: { type: 'string', default: '25' } } });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-drip-'));

const dripping = new Set<net.Socket>();
const drip = net.createServer((socket) => {
  dripping.add(socket);
  socket.once('data', () => {
    const timer = setInterval(() => socket.write('H'), 5_000);
    socket.on('close', () => clearInterval(timer));
  });
  socket.on('error', () => {});
  socket.on('close', () => dripping.delete(socket));
});
const arrived: number[] = [];
const fast = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrived.push(performance.now());
    res.end();
  });
});
const listen = (s: net.Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as net.AddressInfo).port)));
const [dripPort, fastPort] = [await listen(drip), await listen(fast)];

const config = loadConfig({ PDI_DATA_DIR: dataDir, PDI_WEBHOOK_ALLOW_PRIVATE: '1', LOG_LEVEL: 'silent' });
const db = openDatabase(accountsDbPath(dataDir));
const keys = new KeyStore(db);
const orgId = (name: string) => {
  keys.create(name, 'pro');
  return db.prepare('SELECT id FROM organizations WHERE name = ?').pluck().get(name) as string;
};
const alerts = new AlertStore(db);
const profile = (org: string, url: string) =>
  alerts.createProfile(
    org,
    {
      name: 'all',
      channels: ['webhook'],
      targets: { webhook_url: url },
      filters: { sectors: [], regions: [], keywords: [], sources: [], min_value: null, max_value: null },
    },
    'salt',
    new Date('2026-01-01T00:00:00Z'),
  );
const slow = orgId('slow');
for (let i = 0; i < Number(values.profiles); i++) profile(slow, `http://127.0.0.1:${dripPort}/hook`);
profile(orgId('other'), `http://127.0.0.1:${fastPort}/hook`);

const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
const service = startAlerts(config, db, documents, createLogger('silent'));
await service.check();
const doc = (i: number): NormalizedDocument => ({
  source_id: `kimdis:BENCH${i}`,
  source: 'kimdis',
  country: 'GR',
  title: `Έγγραφο ${i}`,
  doc_type: 'contract',
  doc_category: 'contract',
  published_at: '2026-06-11T13:01:21Z',
  source_url: `https://example.org/${i}`,
  language: 'el',
  quality_score: 0.8,
  content: 'κείμενο',
  summary: 'περίληψη',
  entities: { afm: [], ada: [], names: [] },
  amount: null,
  cpv: [],
  region: null,
  sector: null,
  parties: [],
  procedure_type: null,
  tenders_received: null,
  act_date: null,
});
const n = Number(values.documents);
documents.save(Array.from({ length: n }, (_, i) => ({ doc: doc(i), content_hash: String(i), original: null, indexed_at: '2026-06-12T00:00:00Z' })));
const recorded = performance.now();
await service.check();
while (arrived.length < n && performance.now() - recorded < 300_000) await new Promise((r) => setTimeout(r, 100));
const waits = arrived.map((at) => (at - recorded) / 1000).sort((a, b) => a - b);
const failedSlow = db.prepare("SELECT count(*) FROM alert_deliveries WHERE org_id = ? AND last_error LIKE 'no answer within%'").pluck().get(slow);
process.stdout.write(
  `${JSON.stringify({
    slow_deliveries: n * Number(values.profiles),
    other_deliveries: n,
    other_sent: arrived.length,
    other_wait_s: { first: +waits[0]!.toFixed(2), median: +waits[Math.floor(waits.length / 2)]!.toFixed(2), max: +waits.at(-1)!.toFixed(2) },
    slow_attempts_cut_at_deadline: failedSlow,
    slow_connections_dripping_at_end: dripping.size,
    loadavg: os.loadavg().map((l) => +l.toFixed(2)),
  })}\n`,
);
await service.stop();
for (const s of dripping) s.destroy();
drip.close();
fast.close();
db.close();
documents.close();
fs.rmSync(dataDir, { recursive: true, force: true });
