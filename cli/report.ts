// pdi report create: a due-diligence report written to a PDF file without the API, for operators.
// With --org it is also recorded as that organization's report (listed by GET /v1/reports), through
// the same durable job as the API's; without, it is only written to the file.
import fs from 'node:fs';
import { accountsDbPath, openDatabase } from '../api/db/database.js';
import { closeOrgNames, orgNameProblem } from '../api/db/keys.js';
import { ReportStore } from '../api/reports/store.js';
import { generateReport, ReportService } from '../api/reports/service.js';
import { reportRequestOf } from '../api/reports/request.js';
import { EntityReaders } from '../lib/entity-readers.js';
import { ValidationError } from '../lib/errors.js';
import { JobQueue } from '../lib/job-queue.js';
import { createLogger } from '../lib/logger.js';
import { printable } from '../lib/terminal.js';
import { config, parse, UsageError, withRuntime, type Command } from './common.js';

const USAGE = `Usage:
  pdi report create IDENTIFIER --type afm|name|ada --out FILE.pdf [--org NAME] [--json]
      Generates the due-diligence report of an entity (an AFM, a name or a Diavgeia ADA) from the
      documents in PDI_DATA_DIR and writes its PDF to FILE.pdf.
      --org NAME  also records it as a report of that organization (one with keys), listed by
                  GET /v1/reports with its report_json.
      --json      prints one line {"id","file","documents","risk_score","status"} instead of a sentence.`;

export const reportCommand: Command = {
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === '--help' || sub === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (sub !== 'create') throw new UsageError(`${sub ? `Unknown report command: ${sub}` : 'report needs a command'}\n\n${USAGE}`);
    const { values, positionals } = parse(
      { usage: USAGE },
      rest,
      {
        type: { type: 'string' },
        out: { type: 'string' },
        org: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    if (positionals.length !== 1) throw new UsageError(`report create takes exactly one IDENTIFIER\n\n${USAGE}`);
    if (!values.type) throw new UsageError(`--type is required (afm, name or ada)\n\n${USAGE}`);
    if (!values.out) throw new UsageError(`--out FILE.pdf is required\n\n${USAGE}`);
    let request;
    try {
      request = reportRequestOf({ entity_identifier: positionals[0], identifier_type: values.type });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      // The API's messages name its body fields; here they are the argument and --type.
      throw new UsageError(`${err.message.replace(/entity_identifier/g, 'IDENTIFIER').replace(/identifier_type/g, '--type')}\n\n${USAGE}`);
    }
    const org = values.org?.trim();
    if (values.org !== undefined) {
      const problem = org ? orgNameProblem(org) : 'is empty';
      if (problem) throw new UsageError(`--org ${problem}\n\n${USAGE}`);
    }
    const out = values.out;

    const result = await withRuntime(async (rt) => {
      const entities = new EntityReaders(rt.documents.db, { search: rt.search });
      try {
        if (!org) {
          const done = await generateReport(entities, rt.search, request.entity_identifier, request.identifier_type, new Date());
          fs.writeFileSync(out, done.pdf);
          return { id: null, documents: done.covered, risk_score: done.riskScore, status: 'completed' };
        }
        const cfg = config();
        const db = openDatabase(accountsDbPath(cfg.dataDir));
        try {
          const store = new ReportStore(db);
          // The job runs here and now (runNow); the queue only records it, so a crash leaves it to the server.
          const queue = new JobQueue(db, { concurrency: 1, timeoutMs: cfg.reportTimeoutMs, maxAttempts: 3, log: createLogger('silent') });
          const service = new ReportService(store, queue, entities, rt.search);
          const orgId = store.orgIdOf(org);
          if (orgId === null) {
            const close = closeOrgNames(org, store.orgNames());
            throw new UsageError(
              `--org ${printable(org)}: no such organization${close.length > 0 ? `; did you mean ${close.map((n) => JSON.stringify(printable(n))).join(', ')}?` : ''}` +
                ' (an organization is made by creating its first key: pdi keys create --org NAME --tier TIER)',
            );
          }
          const { report, jobId } = service.create(orgId, request.entity_identifier, request.identifier_type);
          await queue.runNow(jobId);
          const row = store.byId(report.id)!;
          if (row.status !== 'completed') throw new Error(`report ${row.id} ${row.status}: ${row.error_message ?? 'no result'}`);
          fs.writeFileSync(out, store.pdf(orgId, row.id)!);
          const parsed = JSON.parse(row.report_json!) as { documents: { covered: number }; risk_score: number };
          return { id: row.id, documents: parsed.documents.covered, risk_score: parsed.risk_score, status: row.status };
        } finally {
          db.close();
        }
      } finally {
        await entities.close();
      }
    });
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ id: result.id, file: out, documents: result.documents, risk_score: result.risk_score, status: result.status })}\n`,
      );
      return;
    }
    process.stdout.write(
      `Wrote ${out}: ${result.documents} documents, risk score ${result.risk_score}/100${result.id ? `; report ${result.id} recorded for ${org}` : ''}.\n`,
    );
  },
};
