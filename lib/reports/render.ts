// A report built and rendered on a thread of its own: report_json and the PDF of an entity of 1,260
// documents took 4.4 s of the event loop, during which /healthz and every request waited. The owner
// streams the documents to the thread as it reads them (each batch posted as it arrives: the documents
// cross the boundary once, in pieces), then the thread builds both and hands them back.
import { Worker } from 'node:worker_threads';
import { workerModule } from '../paths.js';
import type { StoredDocument } from '../search/provider.js';
import type { EntityTotals } from '../entities.js';
import type { Entity } from './facts.js';

/** What the report needs beside its documents. */
export interface RenderFinish {
  entity: Entity;
  /** The entity's aggregates (over every match, more than those sent when capped). */
  totals: EntityTotals;
  truncated: boolean;
  /** ISO time the report is as of. */
  now: string;
}

export type RenderMessage = { documents: StoredDocument[] } | { finish: RenderFinish };

export interface Rendered {
  json: string;
  pdf: Buffer;
  covered: number;
  generatedAt: string;
  riskScore: number;
}

export type RenderReply = (Omit<Rendered, 'pdf'> & { pdf: ArrayBuffer }) | { error: { name: string; message: string } };

/** One report's thread: `add` the documents in order, then `finish`; `abort` ends it early. */
export class ReportRenderer {
  private readonly worker: Worker;
  private readonly ended: Promise<Rendered>;
  private done = false;

  constructor() {
    // Started first, so the thread loads its modules while the owner reads the documents. The parent's
    // flags are not passed on: they would register tsx twice (the source entry registers it).
    this.worker = new Worker(workerModule('render-worker', import.meta.url), { execArgv: [] });
    this.ended = new Promise<Rendered>((resolve, reject) => {
      this.worker.once('message', (reply: RenderReply) => {
        if ('error' in reply) reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
        else resolve({ ...reply, pdf: Buffer.from(reply.pdf) });
      });
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new Error(`The report thread stopped (exit code ${code}) before it answered`)));
    });
    // Settled by finish or abort; a rejection nobody awaits yet must not end the process.
    this.ended.catch(() => {});
  }

  add(documents: StoredDocument[]): void {
    if (!this.done && documents.length > 0) this.worker.postMessage({ documents } satisfies RenderMessage);
  }

  async finish(finish: RenderFinish): Promise<Rendered> {
    this.worker.postMessage({ finish } satisfies RenderMessage);
    try {
      return await this.ended;
    } finally {
      await this.abort();
    }
  }

  /** Stops the thread (idempotent). */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.worker.terminate();
  }
}
