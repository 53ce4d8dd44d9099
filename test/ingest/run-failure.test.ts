// A failed run's two texts (ingest/run-failure.ts): the operator's message as it was, and a reason
// from a short list that names nothing of the operator's, the same list the API documents.
import fs from 'node:fs';
import t from 'tap';
import { UpstreamError, UpstreamNoAnswer } from '../../ingest/http.js';
import { RUN_REASONS, runFailure } from '../../ingest/run-failure.js';
import { EmbeddingServiceError } from '../../lib/embedding/service-embedder.js';
import { EngineTimeoutError, EngineUnavailableError } from '../../lib/errors.js';
import { projectPath } from '../../lib/paths.js';

t.test('when a run fails, then its reason follows what failed and its error keeps the operator message whole', async (t) => {
  const cases: [unknown, string][] = [
    [new UpstreamNoAnswer('GET http://10.1.2.3:8080/x failed: fetch failed (ECONNREFUSED)'), 'the upstream did not answer'],
    [new UpstreamError('GET http://10.1.2.3:8080/x answered 503', 503), 'the upstream answered with an error'],
    [
      new UpstreamError('GET http://10.1.2.3:8080/x was redirected (302) to http://169.254.169.254/, not followed', 302),
      "the upstream's answer could not be used",
    ],
    [new UpstreamError('kimdis: body is not a page', null), "the upstream's answer could not be used"],
    [new EmbeddingServiceError('http://gpu:8080/v1/embeddings', 'answered 401: key sk-live-abc'), 'the embedding service failed'],
    [new EngineUnavailableError(undefined, 'connect ECONNREFUSED 10.0.0.5:9200'), 'the search engine failed'],
    [new EngineTimeoutError(10), 'the search engine failed'],
    [Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), "the server's storage is full"],
    [new Error('/srv/pdi/var/documents.db: something odd'), 'an error on the server'],
  ];
  for (const [err, reason] of cases) {
    const failure = runFailure(err);
    t.equal(failure.reason, reason, (err as Error).message);
    t.ok(RUN_REASONS.includes(failure.reason as (typeof RUN_REASONS)[number]));
  }
  t.same(
    runFailure(new EngineUnavailableError(undefined, 'connect ECONNREFUSED 10.0.0.5:9200')).error,
    'The search engine is unavailable; try again shortly (connect ECONNREFUSED 10.0.0.5:9200)',
  );
});

t.test('when the run was stopped, then it is "stopped before the end" whatever surfaced, and the error says why', async (t) => {
  const stop = new AbortController();
  stop.abort('the server shut down');
  t.same(runFailure(new UpstreamNoAnswer('GET http://x failed'), stop.signal), {
    error: 'stopped before the end: the server shut down',
    reason: 'stopped before the end',
  });
});

t.test('when the API documents the reasons, then the OpenAPI enum and docs/api.md list exactly these', async (t) => {
  const openapi = JSON.parse(fs.readFileSync(projectPath('docs', 'openapi.json'), 'utf8'));
  const lastIngest = openapi.components.schemas.Source.properties.last_ingest.oneOf.find((s: { type: string }) => s.type === 'object');
  t.same(lastIngest.properties.error.enum, RUN_REASONS);
  const api = fs.readFileSync(projectPath('docs', 'api.md'), 'utf8');
  const table = [...api.matchAll(/^\| `([^`]+)` \| /gm)].map((m) => m[1]).filter((r) => RUN_REASONS.includes(r as (typeof RUN_REASONS)[number]));
  t.same(table, RUN_REASONS, 'docs/api.md "Sources" has a row for each, in order');
});
