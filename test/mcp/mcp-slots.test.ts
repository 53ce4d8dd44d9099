// Every in-flight slot an MCP batch takes is given back, whatever the batch holds: a batch that
// repeated an id once lost a slot per repeat (each extra call's release was kept by id, so a repeat
// overwrote one), until the key was refused on /mcp and /v1 alike for good. api/mcp/http.ts.
import type { Server } from 'node:http';
import { mulberry32 } from '../../data/generator/prng.js';
import t from 'tap';
import { startHoldingApp, type HoldingApp } from '../helpers/holding-engine.js';

const HEADERS = { Accept: 'application/json, text/event-stream' };

function post(app: HoldingApp, key: string, body: unknown, signal?: AbortSignal) {
  return app.request('/mcp', { method: 'POST', key, body, headers: HEADERS, signal });
}

function keyIdOf(app: HoldingApp, org: string): string {
  return app.app.context.keys.list().find((k) => k.org === org)!.id;
}

/**
 * Resolves once every response the server has opened has closed, and every 'close' listener has run
 * (those of admission and of the MCP route among them): what the server holds is then settled.
 */
function trackResponses(server: Server): () => Promise<void> {
  let open = 0;
  const waiters: (() => void)[] = [];
  server.on('request', (_req, res) => {
    open++;
    res.once('close', () =>
      setImmediate(() => {
        if (--open > 0) return;
        for (const w of waiters.splice(0)) w();
      }),
    );
  });
  return () => (open === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)));
}

const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });

t.test('when batches repeat an id, then each is refused whole, a JSON-RPC -32600 per member, and the key keeps its full concurrency', async (t) => {
  const app = await startHoldingApp(t, { PDI_MAX_IN_FLIGHT_PER_KEY: '4' });
  const key = app.key('enterprise', 'Repeat Ltd');
  const settled = trackResponses(app.app.server.server);
  // Four members, as the four slots of the key: before, each such batch lost two of them.
  const repeated = [ping(0), ping(1), ping(1), { jsonrpc: '2.0', method: 'notifications/initialized' }, ping(1)];
  for (let i = 0; i < 3; i++) {
    const res = await post(app, key, repeated);
    t.equal(res.status, 400);
    t.same(
      (res.body as { id: unknown }[]).map((m) => m.id),
      [0, 1, 1, null, 1],
      'one error per member, in order',
    );
    for (const m of res.body) {
      t.match(m, {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: the requests of a batch must have distinct ids; id 1 is repeated', data: { status: 400 } },
      });
    }
  }
  await settled();
  t.equal(app.app.inFlight.ofKey(keyIdOf(app, 'Repeat Ltd')), 0, 'no slot held');

  const pings = await post(app, key, [0, 1, 2, 3].map(ping));
  t.equal(pings.status, 200);
  t.same(
    (pings.body as { result?: unknown }[]).map((m) => m.result),
    [{}, {}, {}, {}],
    'a batch of four distinct pings is answered whole, none refused',
  );
  const searches = [0, 1, 2, 3].map((i) => app.request(`/v1/search?q=hold${i}`, { key }));
  const refused = new Promise((resolve) => {
    for (const s of searches) void s.then((r) => r.status !== 200 && resolve(r.status));
  });
  t.equal(await Promise.race([app.held(4).then(() => 'held'), refused]), 'held', 'four searches of the key are in flight at once');
  app.release();
  t.same(
    (await Promise.all(searches)).map((r) => r.status),
    [200, 200, 200, 200],
  );
});

t.test('when the ids of a batch are strings, then a repeat is refused as a number is, and 1 and "1" are different ids', async (t) => {
  const app = await startHoldingApp(t);
  const key = app.key('enterprise');
  const refused = await post(app, key, [ping('a'), ping('b'), ping('a')]);
  t.equal(refused.status, 400);
  t.match(refused.body[0], { id: 'a', error: { code: -32600, message: /id "a" is repeated$/ } });
  const served = await post(app, key, [ping(1), ping('1')]);
  t.equal(served.status, 200);
  t.same((served.body as { id: unknown }[]).map((m) => m.id).sort(), [1, '1']);
});

const SEED = 20261207;
const RUNS = 60;

/** A random batch: calls whose ids often repeat, notifications, responses, and now and then an invalid member. */
function randomBatch(rnd: () => number): unknown[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const ids = [0, 1, 2, 3, 4, 5, 'a', '1'];
  const members: unknown[] = [];
  for (let n = 1 + Math.floor(rnd() * 7); n > 0; n--) {
    const kind = rnd();
    if (kind < 0.25) members.push(ping(pick(ids)));
    else if (kind < 0.5) members.push({ jsonrpc: '2.0', id: pick(ids), method: 'tools/list' });
    else if (kind < 0.75) members.push({ jsonrpc: '2.0', id: pick(ids), method: 'tools/call', params: { name: 'list_sources', arguments: {} } });
    else if (kind < 0.875) members.push({ jsonrpc: '2.0', method: 'notifications/initialized' });
    else members.push({ jsonrpc: '2.0', id: pick(ids), result: {} });
  }
  // A member that is no JSON-RPC message: the whole batch is then refused before any call runs.
  if (rnd() < 0.15) {
    const invalid = pick([42, null, 'ping', { jsonrpc: '2.0' }, { jsonrpc: '1.0', id: 5, method: 'ping' }, { jsonrpc: '2.0', id: 6, method: 7 }]);
    members.splice(Math.floor(rnd() * (members.length + 1)), 0, invalid);
  }
  return members;
}

/** The batch reaches the tools: it parses, and its requests' ids differ. */
function delivered(members: unknown[]): boolean {
  const calls = members.filter((m): m is { id: unknown; method: unknown } => m !== null && typeof m === 'object' && 'method' in m && 'id' in m);
  const valid = members.every((m) => {
    if (m === null || typeof m !== 'object' || (m as { jsonrpc?: unknown }).jsonrpc !== '2.0') return false;
    return typeof (m as { method?: unknown }).method === 'string' || ('id' in m && 'result' in m);
  });
  return valid && new Set(calls.map((c) => c.id)).size === calls.length;
}

t.test('when random batches come (repeated ids, notifications, responses, invalid members, a client gone mid-batch), then no slot stays held', async (t) => {
  // A cap below the longest batch, so that some calls are refused (429) too.
  const app = await startHoldingApp(t, { PDI_MAX_IN_FLIGHT_PER_KEY: '4' });
  const key = app.key('enterprise', 'Random Ltd');
  const keyId = keyIdOf(app, 'Random Ltd');
  const settled = trackResponses(app.app.server.server);
  const rnd = mulberry32(SEED);
  // The batch that lost slots first, then random ones (seeded: a failure replays).
  const batches = [[0, 1, 1, 1].map(ping), ...Array.from({ length: RUNS }, () => randomBatch(rnd))];
  let held = 0;
  for (const [run, members] of batches.entries()) {
    const single = rnd() < 0.2;
    const gone = delivered(members) && rnd() < 0.4;
    if (gone) {
      // The client goes away while the batch's first call, a search the engine holds, still runs.
      const hold = { jsonrpc: '2.0', id: `hold-${run}`, method: 'tools/call', params: { name: 'search_documents', arguments: { query: 'hold' } } };
      const abort = new AbortController();
      const answer = post(app, key, [hold, ...members], abort.signal).catch(() => null);
      await app.held(++held);
      abort.abort();
      await answer;
    } else {
      const res = await post(app, key, single ? members[0] : members);
      t.ok(res.status < 500, `run ${run} answered ${res.status}`);
    }
    await settled();
    const holding = app.app.inFlight.ofKey(keyId);
    // Frees the reader thread a search held; its answer goes nowhere.
    app.release();
    if (holding !== 0) {
      t.fail(`run ${run} left ${holding} slots held: ${JSON.stringify({ members, single, gone })}`);
      return;
    }
  }
  t.pass(`${batches.length} batches, ${held} of them left mid-batch, and no slot held after any`);
});
