// A report thread (render.ts): collects the documents the owner streams to it, then builds report_json
// and renders the PDF, the seconds of CPU a large entity costs, away from the API's event loop.
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { StoredDocument } from '../search/provider.js';
import { buildReport } from './build.js';
import { renderPdf } from './pdf.js';
import type { RenderMessage, RenderReply } from './render.js';

const port = parentPort!;
// Background work: the thread yields the cores to the API's own threads (a Linux nice value is per
// thread). Off the event loop alone, three reports on two cores still slowed /healthz by taking the CPU.
os.setPriority(10);
const documents: StoredDocument[] = [];

port.on('message', (message: RenderMessage) => {
  if ('documents' in message) {
    for (const doc of message.documents) documents.push(doc);
    return;
  }
  let reply: RenderReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const { entity, totals, truncated, now } = message.finish;
    const report = buildReport({ entity, documents, totals, truncated, now: new Date(now) });
    const pdf = renderPdf(report);
    // An ArrayBuffer of its own, moved to the owner rather than copied.
    const bytes = pdf.buffer.slice(pdf.byteOffset, pdf.byteOffset + pdf.length) as ArrayBuffer;
    transfer.push(bytes);
    reply = { json: JSON.stringify(report), pdf: bytes, covered: report.documents.covered, generatedAt: report.generated_at, riskScore: report.risk_score };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    reply = { error: { name: e.name, message: e.message } };
  }
  port.postMessage(reply, transfer);
});
