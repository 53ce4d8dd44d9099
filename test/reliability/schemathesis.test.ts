// schemathesis (scripts/fetch-schemathesis.sh; its path in PDI_SCHEMATHESIS) against GET /openapi.json,
// with a key of each tier, on both engines: no 5xx, no response outside the document (status, content
// type, headers, body schema: every 4xx is the Error schema, {"detail"}), no request the document
// forbids accepted. Bounded per operation for CI (-n); PDI_RELIABILITY_LONG=1 generates more.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startTestApp, tempDir } from '../helpers/app.js';
import { BUYER } from '../helpers/report-docs.js';
import { bounded, ENGINES, quotaFreeClock, seedCorpus } from '../helpers/reliability.js';

const BIN = process.env.PDI_SCHEMATHESIS;
const MAX_EXAMPLES = bounded(5, 200);
const SEED = 20261126;
// positive_data_acceptance is left out: the document cannot say every rule the routes check (an AFM's
// check digit, "a letter or digit", a model id from the configuration), so valid-looking requests
// the contract refuses with a 422 would be reported. Every other check runs.
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'missing_required_header',
  'unsupported_method',
  'ignored_auth',
].join(',');

interface Run {
  code: number;
  output: string;
  generated: number;
}

function schemathesis(args: string[], timeoutMs: number): Promise<Run & { reportDir: string }> {
  const reportDir = args[args.indexOf('--report-dir') + 1];
  return new Promise((resolve) => {
    execFile(
      BIN!,
      args,
      { cwd: reportDir, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' } },
      (err, stdout, stderr) => {
        const report = fs.readdirSync(reportDir).find((f) => f.startsWith('json-'));
        const generated = report ? JSON.parse(fs.readFileSync(path.join(reportDir, report), 'utf8')).test_cases.generated : 0;
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr, generated, reportDir });
      },
    );
  });
}

/** The failures and errors of a schemathesis run, without its progress lines. */
function findings(output: string): string {
  const start = output.search(/^=+ (ERRORS|FAILURES) =+$/m);
  return start === -1 ? output.slice(-4000) : output.slice(start, start + 12_000);
}

for (const engine of ENGINES) {
  t.test(`${engine.name}: when schemathesis explores every operation with a key of each tier, then nothing falls outside the OpenAPI document`, async (t) => {
    if (!BIN) return void t.fail('schemathesis is not installed (run through npm run test:reliability, which installs it)');
    const app = await startTestApp(t, { search: await engine.open(t), clock: quotaFreeClock() });
    await seedCorpus(app);
    let served = 0;
    app.app.server.server.on('request', () => served++);
    for (const tier of ['free', 'pro', 'enterprise'] as const) {
      const key = app.key(tier, `org-${tier}`);
      // Records of the key's own organization, so listings are checked with items in them.
      if (tier !== 'free') {
        await app.request('/v1/alerts/profiles', {
          key,
          method: 'POST',
          body: { name: 'Καθαριότητα', channels: ['email'], notify_email: 'ops@example.org', filters: { keywords: ['καθαριότητα'] } },
        });
        await app.request('/v1/reports', { key, method: 'POST', body: { entity_identifier: BUYER.afm, identifier_type: 'afm' } });
      }
      if (tier === 'enterprise')
        await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: BUYER.afm, identifier_type: 'afm' } });
      const before = served;
      const run = await schemathesis(
        [
          'run',
          `${app.url}/openapi.json`,
          '-H',
          `Authorization: Bearer ${key}`,
          '--checks',
          CHECKS,
          '--max-examples',
          String(MAX_EXAMPLES),
          '--seed',
          String(SEED),
          // One worker: with two, Hypothesis parses sources on two threads at once and CPython 3.11's
          // shared AST recursion counter fails the run with "AST constructor recursion depth mismatch".
          '--workers',
          '1',
          '--request-timeout',
          '15',
          '--phases',
          'examples,coverage,fuzzing',
          '--no-shrink',
          '--report',
          'json',
          '--report-dir',
          tempDir(t, 'pdi-schemathesis-'),
        ],
        bounded(240_000, 3_600_000),
      );
      t.comment(`${engine.name}, ${tier}: ${run.generated} test cases, ${served - before} requests served, exit ${run.code}`);
      t.equal(run.code, 0, `${tier}: schemathesis found nothing\n${run.code === 0 ? '' : findings(run.output)}`);
    }
  });
}
