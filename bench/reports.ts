// Due-diligence report timings on the embedded engine: one report for an entity with N documents
// (resolver + document reads + report_json + PDF), the PDF alone at about 20 pages, and 20 reports
// queued at once through the durable job queue with the peak RSS of the process. Prints one JSON object.
//
//   npx tsx bench/reports.ts [--docs 1000] [--queued 20] [--keep-pdf]   (--keep-pdf writes bench-report.pdf)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { IndexedDocument, Party } from '../index-mappings/document.js';
import { partyLines } from '../ingest/sources/parties.js';
import { accountsDbPath, openDatabase } from '../api/db/database.js';
import { ReportStore } from '../api/reports/store.js';
import { entityDocuments } from '../api/reports/documents.js';
import { generateReport, ReportService } from '../api/reports/service.js';
import { DocumentStore } from '../ingest/state/documents.js';
import { EntityReaders } from '../lib/entity-readers.js';
import { HashingEmbedder } from '../lib/embedding/hashing-embedder.js';
import { JobQueue } from '../lib/job-queue.js';
import { createLogger } from '../lib/logger.js';
import { buildReport } from '../lib/reports/build.js';
import { renderPdf } from '../lib/reports/pdf.js';
import { EmbeddedProvider } from '../lib/search/embedded.js';
import { embeddedIndexPath } from '../lib/search/index.js';
import type { StoredDocument } from '../lib/search/provider.js';

const { values: args } = parseArgs({
  options: { docs: { type: 'string', default: '1000' }, queued: { type: 'string', default: '20' }, 'keep-pdf': { type: 'boolean', default: false } },
});
const DOCS = Number(args.docs);
const QUEUED = Number(args.queued);
const SUPPLIER = { name: 'ΑΛΦΑ ΤΕΧΝΙΚΗ ΑΕ', afm: '094014201' };
const BUYERS = [
  { name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: '090025537' },
  { name: 'ΠΕΡΙΦΕΡΕΙΑ ΑΤΤΙΚΗΣ', afm: '997861633' },
  { name: 'ΥΠΟΥΡΓΕΙΟ ΥΓΕΙΑΣ', afm: '999567359' },
];

/** A KIMDIS-shaped contract of the supplier, as ingest writes one. */
function contract(i: number): IndexedDocument {
  const buyer = BUYERS[i % BUYERS.length]!;
  const published = `${2018 + (i % 8)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`;
  const value = 5_000 + ((i * 7919) % 250_000);
  const id = `26SYMV${String(i).padStart(9, '0')}`;
  const title = `Προμήθεια αναλωσίμων και υπηρεσίες συντήρησης εξοπλισμού αρ. ${i}`;
  const parties: Party[] = [
    { role: 'buyer', ...buyer },
    { role: 'supplier', ...SUPPLIER },
  ];
  const procedure = i % 3 ? 'Απευθείας ανάθεση' : 'Ανοικτή διαδικασία';
  return {
    source_id: `kimdis:${id}`,
    source: 'kimdis',
    country: 'GR',
    title,
    doc_type: 'contract',
    doc_category: 'contract',
    published_at: published,
    source_url: `https://cerpp.eprocurement.gov.gr/khmdhs-opendata/contract/attachment/${id}`,
    language: 'el',
    quality_score: 0.8,
    content: [
      title,
      `ΑΔΑΜ: ${id}`,
      ...partyLines(parties, 'el'),
      `Διαδικασία: ${procedure}`,
      `Ημερομηνία υπογραφής: ${published.slice(0, 10)}`,
      `Αξία χωρίς ΦΠΑ: ${value} EUR`,
    ].join('\n'),
    summary: title,
    entities: { afm: [buyer.afm, SUPPLIER.afm], ada: [], names: [buyer.name, SUPPLIER.name] },
    parties,
    procedure_type: procedure,
    tenders_received: null,
    act_date: published.slice(0, 10),
    amount: { value, currency: 'EUR' },
    cpv: [],
    region: null,
    sector: null,
    indexed_at: '2026-01-01T00:00:00Z',
    content_hash: String(i).padStart(64, '0'),
    original: null,
    embedding: null,
  };
}

const pages = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
const ms = (t0: number) => Math.round(performance.now() - t0);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-reports-'));
try {
  const embedder = new HashingEmbedder();
  const search = new EmbeddedProvider({ file: embeddedIndexPath(dir), dimension: embedder.dimension, embeddingModel: embedder.id });
  await search.init();
  const documents = new DocumentStore(DocumentStore.pathIn(dir));
  const docs = Array.from({ length: DOCS }, (_, i) => contract(i));
  documents.save(docs.map(({ embedding: _e, indexed_at, content_hash, original, ...doc }) => ({ doc, indexed_at, content_hash, original })));
  await search.upsert(docs);
  await search.refresh();
  const entities = new EntityReaders(documents.db, { search });

  // Warm-up: module compilation and font parsing happen once per process.
  await generateReport(entities, search, SUPPLIER.afm, 'afm', new Date());
  const t0 = performance.now();
  const one = await generateReport(entities, search, SUPPLIER.afm, 'afm', new Date());
  const reportMs = ms(t0);
  // The same report by phase, with the CPU time it took (the machine is shared: wall time includes waits for a core).
  const cpu0 = process.cpuUsage();
  const tp = performance.now();
  const gathered: StoredDocument[] = [];
  const found = await entityDocuments(entities, search, SUPPLIER.afm, 'afm', {}, (docs) => gathered.push(...docs));
  const phases = { documents_ms: ms(tp), build_ms: 0, pdf_ms: 0, cpu_ms: 0 };
  const tb = performance.now();
  const built = buildReport({ entity: found.entity, documents: gathered, totals: found.totals, truncated: false, now: new Date() });
  phases.build_ms = ms(tb);
  const tr = performance.now();
  renderPdf(built);
  phases.pdf_ms = ms(tr);
  const cpu = process.cpuUsage(cpu0);
  phases.cpu_ms = Math.round((cpu.user + cpu.system) / 1000);

  // About 20 pages: the contracts table holds ~17 rows a page.
  const twenty = buildReport({
    entity: { identifier: SUPPLIER.afm, type: 'afm' },
    documents: docs.slice(0, 440),
    totals: { ...found.totals, total: 440 },
    truncated: false,
    now: new Date(),
  });
  const t1 = performance.now();
  const cpu1 = process.cpuUsage();
  const pdf = renderPdf(twenty);
  const pdfMs = ms(t1);
  const pdfCpu = process.cpuUsage(cpu1);
  if (args['keep-pdf']) fs.writeFileSync('bench-report.pdf', pdf);

  const db = openDatabase(accountsDbPath(dir));
  db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_bench', 'Bench', '2026-01-01T00:00:00Z')").run();
  const queue = new JobQueue(db, { concurrency: 2, timeoutMs: 300_000, maxAttempts: 3, log: createLogger('silent') });
  const service = new ReportService(new ReportStore(db), queue, entities, search);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const before = process.memoryUsage().rss;
  const t2 = performance.now();
  const cpu2 = process.cpuUsage();
  for (let i = 0; i < QUEUED; i++) service.create('org_bench', SUPPLIER.afm, 'afm');
  queue.start();
  await queue.idle();
  const queuedMs = ms(t2);
  const queuedCpu = process.cpuUsage(cpu2);
  clearInterval(sampler);
  const completed = db.prepare("SELECT count(*) FROM reports WHERE status = 'completed'").pluck().get();

  process.stdout.write(
    `${JSON.stringify(
      {
        node: process.version,
        cpus: os.availableParallelism(),
        documents: DOCS,
        report: { ms: reportMs, ...phases, documents_covered: one.covered, pdf_bytes: one.pdf.length, pdf_pages: pages(one.pdf) },
        pdf_only: { ms: pdfMs, cpu_ms: Math.round((pdfCpu.user + pdfCpu.system) / 1000), pages: pages(pdf), bytes: pdf.length },
        queued: {
          reports: QUEUED,
          concurrency: 2,
          completed,
          ms: queuedMs,
          cpu_ms: Math.round((queuedCpu.user + queuedCpu.system) / 1000),
          rss_before_mb: Math.round(before / 2 ** 20),
          peak_rss_mb: Math.round(peak / 2 ** 20),
        },
      },
      null,
      2,
    )}\n`,
  );
  db.close();
  await entities.close();
  documents.close();
  await search.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
