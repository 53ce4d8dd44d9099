// A real Elasticsearch for integration tests: the one in ELASTICSEARCH_URL (npm test and CI start it
// once for the whole run), or else an instance private to this test process, started with
// scripts/elasticsearch.sh and stopped at teardown. Talks to it with fetch: only the adapter imports
// the Elasticsearch client.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { indexMeta, readAlias } from '../../index-mappings/index-names.js';
import { buildMapping, METADATA_JSON_FIELD, SEARCH_TEXT_FIELD } from '../../index-mappings/mapping.js';
import { buildSettings, ENGLISH_ANALYZER, FOLDED_NORMALIZER, GREEK_ANALYZER } from '../../index-mappings/settings.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { REPO_ROOT } from './paths.js';

const run = promisify(execFile);
const SCRIPT = path.join(REPO_ROOT, 'scripts', 'elasticsearch.sh');

type Command = 'start' | 'stop' | 'status' | 'purge';

/** Runs scripts/elasticsearch.sh for one instance; resolves with its stdout. */
export async function esScript(command: Command, instance: string, args: string[] = [], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run('bash', [SCRIPT, command, ...args], {
    // The watchdog stops the instance if this process dies before its teardown.
    env: { ...process.env, PDI_ES_INSTANCE: instance, PDI_ES_OWNER_PID: String(process.pid), ...env },
    // A cluster's start waits up to 240 s for every node (the script's PDI_ES_START_TIMEOUT).
    timeout: 300_000,
    maxBuffer: 4 * 1024 * 1024,
  });
  return stdout;
}

function urlOf(stdout: string): string {
  const last = stdout.trim().split('\n').pop() ?? '';
  const m = /^ELASTICSEARCH_URL=(http:\/\/\S+)$/.exec(last);
  if (!m) throw new Error(`scripts/elasticsearch.sh start printed no URL: ${stdout}`);
  return m[1];
}

export interface PrivateElasticsearch {
  url: string;
  instance: string;
  /** Stops the node (keeps its data and port). */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once cluster health is yellow. */
  start(): Promise<void>;
}

/** An instance only this test controls (it may stop it); purged at teardown. */
export async function privateElasticsearch(t: Test, name: string): Promise<PrivateElasticsearch> {
  const instance = `test-${name}-${process.pid}`;
  const started = performance.now();
  const url = urlOf(await esScript('start', instance));
  t.comment(`Elasticsearch ${instance} started (cluster health yellow) in ${Math.round(performance.now() - started)} ms`);
  t.teardown(() => esScript('purge', instance).then(() => undefined));
  return {
    url,
    instance,
    stop: async () => {
      await esScript('stop', instance);
    },
    start: async () => {
      const again = urlOf(await esScript('start', instance));
      if (again !== url) throw new Error(`restarted on ${again}, expected ${url}`);
    },
  };
}

export interface PrivateCluster {
  /** Every node's URL, comma-separated: the ELASTICSEARCH_URL of a cluster. */
  url: string;
  urls: string[];
  /** The nodes' process ids, in the order of `urls`. */
  pids: number[];
  instance: string;
  /** Starts the nodes that are not running (one that was killed) and waits for every node in the cluster. */
  start(): Promise<void>;
}

/**
 * A cluster of `nodes` nodes on loopback only this test controls (scripts/elasticsearch.sh start
 * --nodes N), purged at teardown. Its JVMs compile with C1 only: that halves a node's start (16 → 8 s
 * of CPU here), and a test cluster needs no peak speed.
 */
export async function privateCluster(t: Test, name: string, nodes: number): Promise<PrivateCluster> {
  const instance = `test-${name}-${process.pid}`;
  const env = { PDI_ES_JAVA_OPTS: '-XX:TieredStopAtLevel=1' };
  // Purged even when the start fails half-way (a node up, the others not).
  t.teardown(() => esScript('purge', instance).then(() => undefined));
  const started = performance.now();
  const parse = (stdout: string) => {
    const lines = stdout.trim().split('\n');
    const url = /^ELASTICSEARCH_URL=(\S+)$/.exec(lines.at(-2) ?? '')?.[1];
    const pids = /^ELASTICSEARCH_PIDS=([\d,]+)$/.exec(lines.at(-1) ?? '')?.[1];
    if (!url || !pids) throw new Error(`scripts/elasticsearch.sh start --nodes ${nodes} printed no URLs and pids: ${stdout}`);
    return { url, pids: pids.split(',').map(Number) };
  };
  const first = parse(await esScript('start', instance, ['--nodes', String(nodes)], env));
  t.comment(`Elasticsearch cluster ${instance} of ${nodes} nodes started (cluster health yellow) in ${Math.round(performance.now() - started)} ms`);
  const cluster: PrivateCluster = {
    url: first.url,
    urls: first.url.split(','),
    pids: first.pids,
    instance,
    start: async () => {
      const again = parse(await esScript('start', instance, [], env));
      if (again.url !== cluster.url) throw new Error(`restarted on ${again.url}, expected ${cluster.url}`);
      cluster.pids = again.pids;
    },
  };
  return cluster;
}

/** ELASTICSEARCH_URL when set, else a private instance for this test file. */
export async function elasticsearchUrl(t: Test): Promise<string> {
  const given = process.env.ELASTICSEARCH_URL?.trim();
  if (given) return given.replace(/\/+$/, '');
  return (await privateElasticsearch(t, 'file')).url;
}

/**
 * An initialized adapter on a fresh prefix of the test's node, with the fallback embedder's dimension
 * (the API contract suites' engine); closed, and its indices deleted, at teardown.
 */
export async function apiTestProvider(t: Test): Promise<ElasticsearchProvider> {
  const url = await elasticsearchUrl(t);
  const prefix = randomPrefix();
  const provider = new ElasticsearchProvider({ url, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384' });
  await provider.init();
  t.teardown(async () => {
    await provider.close();
    await deleteIndices(url, prefix);
  });
  return provider;
}

/** A fresh index prefix per run, so runs and files never see each other's indices. */
export function randomPrefix(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

export interface EsResponse {
  status: number;
  body: any;
}

/** One JSON request to Elasticsearch. */
export async function es(url: string, method: string, pathAndQuery: string, body?: unknown): Promise<EsResponse> {
  const res = await fetch(`${url}${pathAndQuery}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Every index of a prefix (by name, so it also works where wildcard deletes are forbidden). */
export async function indicesOf(url: string, prefix: string): Promise<string[]> {
  const res = await es(url, 'GET', `/_cat/indices/${prefix}-docs-*?format=json&h=index&expand_wildcards=all`);
  if (res.status !== 200) throw new Error(`listing indices failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { index: string }[]).map((r) => r.index).sort();
}

export async function deleteIndices(url: string, prefix: string): Promise<void> {
  const names = await indicesOf(url, prefix);
  if (names.length === 0) return;
  const res = await es(url, 'DELETE', `/${names.join(',')}`);
  if (res.status !== 200) throw new Error(`deleting ${names.join(',')} failed: ${res.status}`);
}

/** Physical indices behind an alias ([] when it does not exist). */
export async function aliasTargets(url: string, alias: string): Promise<string[]> {
  const res = await es(url, 'GET', `/_alias/${alias}`);
  if (res.status === 404) return [];
  return Object.keys(res.body).sort();
}

/** A complete IndexedDocument for tests; `overrides` win. */
/**
 * Makes a serving index of `source` under `prefix` one an older build made, in the layout of builds
 * before mapping version 6 (one index per source behind the read alias and a write alias of its own,
 * `<prefix>-docs-<source>`, and `source` in its _meta): `version` in its _meta,
 * and for version 2 the metadata record as a keyword (raw JSON) instead of binary (base64). Call before
 * a provider initialises the prefix. Returns the index name.
 */
export async function olderIndex(url: string, prefix: string, source: SourceName, version: number, dimension: number, model: string): Promise<string> {
  const index = `${prefix}-docs-${source}-m${version}-old`;
  const mappings = buildMapping(dimension, { ...indexMeta(model, dimension), source, mapping_version: version }) as OlderMapping;
  if (version === 2) mappings.properties[METADATA_JSON_FIELD] = { type: 'keyword', index: false, doc_values: true };
  if (version <= 4) searchedAsBefore5(mappings);
  const created = await es(url, 'PUT', `/${index}`, {
    settings: buildSettings(),
    mappings,
    aliases: { [readAlias(prefix)]: {}, [`${prefix}-docs-${source}`]: { is_write_index: true } },
  });
  if (created.status !== 200) throw new Error(`index of mapping version ${version}: ${created.status} ${JSON.stringify(created.body)}`);
  return index;
}

type OlderMapping = { _source: { excludes: string[] }; properties: Record<string, unknown> & { entities: { properties: Record<string, unknown> } } };

/** Versions 1-4 searched title, content, summary and names themselves; there was no search_text. */
function searchedAsBefore5(mappings: OlderMapping): void {
  const bilingual = { type: 'text', analyzer: GREEK_ANALYZER, fields: { en: { type: 'text', analyzer: ENGLISH_ANALYZER } } };
  const { properties: p } = mappings;
  delete p[SEARCH_TEXT_FIELD];
  mappings._source.excludes = [METADATA_JSON_FIELD];
  p.title = p.content = p.summary = bilingual;
  p.entities.properties.names = {
    type: 'text',
    analyzer: GREEK_ANALYZER,
    fields: { exact: { type: 'keyword', normalizer: FOLDED_NORMALIZER, ignore_above: 512 } },
  };
}

export function makeDoc(source: SourceName, id: string, overrides: Partial<IndexedDocument> = {}): IndexedDocument {
  return {
    source_id: `${source}:${id}`,
    source,
    country: 'GR',
    title: `Document ${id}`,
    doc_type: 'decision',
    doc_category: 'award',
    published_at: '2024-05-01T10:00:00Z',
    source_url: `https://example.org/${source}/${id}`,
    language: 'el',
    quality_score: 0.5,
    content: '',
    summary: '',
    entities: { afm: [], ada: [], names: [] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: null,
    indexed_at: '2024-05-02T00:00:00Z',
    content_hash: '0'.repeat(64),
    original: null,
    embedding: null,
    ...overrides,
  };
}
