// One typed configuration, read once from the environment and validated at start.
// A bad value fails fast with a ConfigError that names the variable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { proxyEntry } from './client-address.js';
import { projectPath } from './paths.js';

const DEFAULT_DATA_DIR = projectPath('var');
/**
 * The largest corpus measured where every read of the embedded engine kept p50 ≤ 100 ms and p99 ≤ 500 ms
 * with 10 clients on two cores: 100,000 documents (docs/scaling.md "The embedded engine's envelope").
 */
const DEFAULT_EMBEDDED_ENVELOPE = 100_000;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export interface Config {
  port: number;
  host: string;
  /** PEM files of the certificate and key the API serves HTTPS with (PDI_TLS_CERT + PDI_TLS_KEY), or null for HTTP. */
  tls: TlsFiles | null;
  dataDir: string;
  elasticsearchUrl: string | null;
  indexPrefix: string;
  /** Primary shards of a new Elasticsearch index (PDI_ES_SHARDS, default 1). */
  esShards: number;
  /** Replicas of a new Elasticsearch index (PDI_ES_REPLICAS); null: one as soon as a second node holds it. */
  esReplicas: number | null;
  /** Reader threads of the embedded engine; 0 runs its reads on the main thread. */
  embeddedReaders: number;
  /** Documents past which the embedded engine warns that Elasticsearch should serve (PDI_EMBEDDED_ENVELOPE). */
  embeddedEnvelope: number;
  smtpUrl: string | null;
  modelDir: string | null;
  /**
   * Without PDI_MODEL_DIR or PDI_EMBED_URL: the pinned model is used from `cacheDir` when it is there and
   * fetched into it in the background when it is not (PDI_MODEL_FETCH, default on; ingest/model-switch.ts).
   */
  modelFetch: boolean;
  /** PDI_CACHE_DIR, else $HOME/.cache/pdi (scripts/fetch-model.sh's default); null without either. */
  cacheDir: string | null;
  /** The Python 3 that fetches the model (PDI_PYTHON, default python3). */
  python: string;
  /** The OpenAI-compatible embeddings service (PDI_EMBED_*), or null to embed in process. */
  embedService: EmbedService | null;
  askModels: string[];
  /** The answer generator of POST /v1/ask (PDI_LLM_URL + PDI_LLM_KEY), or null for the placeholder answer. */
  llm: { url: string; key: string; timeoutMs: number; translateTimeoutMs: number } | null;
  webhookAllowPrivate: boolean;
  /** A webhook attempt's whole-request deadline (PDI_WEBHOOK_TIMEOUT, default 10s). */
  webhookTimeoutMs: number;
  /** Active alert profiles one organization may hold (PDI_MAX_ALERT_PROFILES); past it, 409. */
  maxAlertProfiles: number;
  demo: boolean;
  ingestEveryMs: number | null;
  /** Reports generated at once (PDI_REPORT_CONCURRENCY). */
  reportConcurrency: number;
  /** A report generating longer is failed (PDI_REPORT_TIMEOUT, ms). */
  reportTimeoutMs: number;
  logLevel: string;
  /** Requests one API key may have in flight at once; more are answered 429 (docs/api.md "Limits"). */
  maxInFlightPerKey: number;
  /** The same for all the keys of one organization together. */
  maxInFlightPerOrg: number;
  /** How long the API waits for one engine read before answering 504. */
  engineDeadlineMs: number;
  /**
   * PDI_PUBLIC_URL: the address clients reach the API at, when a proxy in front terminates TLS; an
   * https one turns on Strict-Transport-Security and the dashboard cookie's Secure, as the server's own TLS does.
   */
  publicUrl: string | null;
  /** PDI_ADMIN_TOKEN: signs the operator in to /dashboard; null leaves the dashboard off (404). */
  adminToken: string | null;
  /**
   * PDI_TRUST_PROXY: addresses and CIDR blocks of the reverse proxies in front; from them the client's
   * address is read from X-Forwarded-For (lib/client-address.ts). Empty: the socket's address.
   */
  trustProxy: string[];
}

/** The embeddings service (PDI_EMBED_*), as lib/embedding/service-embedder.ts calls it. */
export interface EmbedService {
  /** Base URL as OpenAI clients take it, e.g. http://gpu-box:8080/v1 (no trailing slash); requests go to `${url}/embeddings`. */
  url: string;
  /** Sent as `Authorization: Bearer <key>`; never shown in a message. */
  key: string | null;
  /** The request's `model` member. */
  model: string;
  /** Texts per request (the `input` array). */
  batchSize: number;
  /** Requests in flight at once, over every caller of the embedder. */
  concurrency: number;
  /** One request's time limit, ms. */
  timeoutMs: number;
  /** Retries of a request after a 429, a 5xx, a timeout or a network error. */
  retries: number;
  /** Put before each query (ask's question) and each passage (a document's text); empty by default. */
  queryPrefix: string;
  passagePrefix: string;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** Used when PDI_ASK_MODELS is unset; the first entry is the default. */
export const DEFAULT_ASK_MODELS = ['anthropic/claude-sonnet-4-5', 'openai/gpt-4.1-mini', 'mistralai/mistral-small-3.1'];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === '' ? null : v.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const v = text(env, name);
  if (v === null) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${v}"`);
  }
  return Number(v);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const v = text(env, name);
  if (v === null) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(v.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(v.toLowerCase())) return false;
  throw new ConfigError(name, `must be one of 1, 0, true, false, yes, no, on, off, got "${v}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const v = text(env, name);
  if (v === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${withoutPassword(v)}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return v.replace(/\/+$/, '');
}

/** One URL or several separated by commas (the nodes of a cluster), each checked; joined by commas. */
function urlList(env: Env, name: string, protocols: string[]): string | null {
  const v = text(env, name);
  if (v === null) return null;
  return v
    .split(',')
    .map((one) => url({ [name]: one.trim() }, name, protocols) ?? '')
    .map((one) => {
      if (one === '') throw new ConfigError(name, `lists an empty URL: "${withoutPassword(v)}"`);
      return one;
    })
    .join(',');
}

/**
 * A URL as it may be shown: its password (ELASTICSEARCH_URL, SMTP_URL carry one) replaced by ***, in
 * text that does not parse as a URL too (`user:secret@host` with a typo in the scheme).
 */
export function withoutPassword(v: string): string {
  return v.replace(/^([^@/?#]*\/\/)?([^@/?#:]*):[^/?#]*@/, (_, scheme: string | undefined, user: string) => `${scheme ?? ''}${user}:***@`);
}

/** The longest PDI_INGEST_EVERY: Node's timers hold at most 2^31 - 1 ms (24.8 days). */
const MAX_INGEST_EVERY_MS = 24 * 86_400_000;

/** Parses durations such as 90s, 15m, 1h, 1d into milliseconds. */
export function parseDuration(v: string): number | null {
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(v.trim());
  if (!m) return null;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  const ms = Number(m[1]) * unit;
  return ms > 0 ? ms : null;
}

export function loadConfig(env: Env = process.env): Config {
  const askModels = (text(env, 'PDI_ASK_MODELS') ?? DEFAULT_ASK_MODELS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of askModels) {
    if (!/^[A-Za-z0-9][\w.-]*\/[\w.:-]+$/.test(id)) {
      throw new ConfigError('PDI_ASK_MODELS', `entries must look like <vendor>/<model-name>, got "${id}"`);
    }
  }
  if (askModels.length === 0) throw new ConfigError('PDI_ASK_MODELS', 'must list at least one model');

  const prefix = text(env, 'PDI_INDEX_PREFIX') ?? 'pdi';
  if (!/^[a-z0-9][a-z0-9_-]{0,40}$/.test(prefix)) {
    throw new ConfigError('PDI_INDEX_PREFIX', `must be lower-case letters, digits, _ or - (at most 41), got "${prefix}"`);
  }

  const every = text(env, 'PDI_INGEST_EVERY');
  let ingestEveryMs: number | null = null;
  if (every !== null && every !== 'off' && every !== '0') {
    ingestEveryMs = parseDuration(every);
    if (ingestEveryMs === null) throw new ConfigError('PDI_INGEST_EVERY', `must be a duration such as 30m, 1h or off, got "${every}"`);
    // Past it, setInterval fires every millisecond.
    if (ingestEveryMs > MAX_INGEST_EVERY_MS) throw new ConfigError('PDI_INGEST_EVERY', `must be at most 24d, got "${every}"`);
  }

  const timeout = text(env, 'PDI_REPORT_TIMEOUT') ?? '5m';
  const reportTimeoutMs = parseDuration(timeout);
  if (reportTimeoutMs === null) throw new ConfigError('PDI_REPORT_TIMEOUT', `must be a duration such as 90s or 5m, got "${timeout}"`);

  const deadline = text(env, 'PDI_ENGINE_DEADLINE') ?? '10s';
  const engineDeadlineMs = parseDuration(deadline);
  // Past the server's 60 s request timeout the client would be gone before its 504.
  if (engineDeadlineMs === null || engineDeadlineMs > 60_000) {
    throw new ConfigError('PDI_ENGINE_DEADLINE', `must be a duration from 1s to 60s, such as 10s, got "${deadline}"`);
  }
  const maxInFlightPerKey = integer(env, 'PDI_MAX_IN_FLIGHT_PER_KEY', 8, 1, 10_000);
  const maxInFlightPerOrg = integer(env, 'PDI_MAX_IN_FLIGHT_PER_ORG', Math.max(16, maxInFlightPerKey), 1, 10_000);
  if (maxInFlightPerOrg < maxInFlightPerKey) {
    throw new ConfigError('PDI_MAX_IN_FLIGHT_PER_ORG', `must be at least PDI_MAX_IN_FLIGHT_PER_KEY (${maxInFlightPerKey}), got "${maxInFlightPerOrg}"`);
  }

  const adminToken = text(env, 'PDI_ADMIN_TOKEN');
  const weakness = adminToken === null ? null : adminTokenWeakness(adminToken);
  if (weakness !== null) throw new ConfigError('PDI_ADMIN_TOKEN', weakness);

  const hookTimeout = text(env, 'PDI_WEBHOOK_TIMEOUT') ?? '10s';
  const webhookTimeoutMs = parseDuration(hookTimeout);
  if (webhookTimeoutMs === null || webhookTimeoutMs > 60_000) {
    throw new ConfigError('PDI_WEBHOOK_TIMEOUT', `must be a duration from 1s to 60s, such as 10s, got "${hookTimeout}"`);
  }

  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  return {
    port: integer(env, 'PORT', 8000, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    tls: tlsFiles(env),
    // The default is the checkout's own folder, not ./var of wherever a command runs: a key created by
    // `npx pdi` in a subfolder went to another database than the server's.
    dataDir: dataDir(env),
    elasticsearchUrl: urlList(env, 'ELASTICSEARCH_URL', ['http:', 'https:']),
    indexPrefix: prefix,
    esShards: integer(env, 'PDI_ES_SHARDS', 1, 1, 64),
    esReplicas: text(env, 'PDI_ES_REPLICAS') === null ? null : integer(env, 'PDI_ES_REPLICAS', 0, 0, 16),
    // One per core, at most four: each runs one query at a time on a core of its own, and more than
    // the cores would only queue in the OS instead of here.
    embeddedReaders: integer(env, 'PDI_EMBEDDED_READERS', Math.min(4, os.availableParallelism()), 0, 64),
    embeddedEnvelope: integer(env, 'PDI_EMBEDDED_ENVELOPE', DEFAULT_EMBEDDED_ENVELOPE, 1, 1_000_000_000),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    modelDir: modelDir(env),
    modelFetch: flag(env, 'PDI_MODEL_FETCH', true),
    cacheDir: text(env, 'PDI_CACHE_DIR') ?? (text(env, 'HOME') === null ? null : path.join(text(env, 'HOME')!, '.cache', 'pdi')),
    python: text(env, 'PDI_PYTHON') ?? 'python3',
    embedService: embedService(env),
    askModels: [...new Set(askModels)],
    llm: llm(env),
    webhookAllowPrivate: flag(env, 'PDI_WEBHOOK_ALLOW_PRIVATE', false),
    webhookTimeoutMs,
    // Each profile without filters records a delivery per channel for every new document: 100 of them
    // made 73,000 rows from one demo ingest.
    maxAlertProfiles: integer(env, 'PDI_MAX_ALERT_PROFILES', 25, 1, 10_000),
    demo: flag(env, 'PDI_DEMO', true),
    ingestEveryMs,
    reportConcurrency: integer(env, 'PDI_REPORT_CONCURRENCY', 2, 1, 16),
    reportTimeoutMs,
    logLevel,
    maxInFlightPerKey,
    maxInFlightPerOrg,
    engineDeadlineMs,
    publicUrl: url(env, 'PDI_PUBLIC_URL', ['http:', 'https:']),
    adminToken,
    trustProxy: trustProxy(env),
  };
}

/** PDI_TRUST_PROXY: comma-separated addresses or CIDR blocks, each checked. */
function trustProxy(env: Env): string[] {
  const entries = (text(env, 'PDI_TRUST_PROXY') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    if (proxyEntry(entry) === null) {
      throw new ConfigError('PDI_TRUST_PROXY', `must list IP addresses or CIDR blocks of the proxies in front (e.g. 127.0.0.1,10.0.0.0/8), got "${entry}"`);
    }
  }
  return entries;
}

/** Whether clients reach the API over https through a proxy in front (PDI_PUBLIC_URL). */
export function publicOverHttps(config: Pick<Config, 'publicUrl'>): boolean {
  return config.publicUrl?.startsWith('https:') ?? false;
}

/**
 * Why PDI_ADMIN_TOKEN is too weak, or null. Anyone who reaches the server may try it, so it must carry
 * at least 128 random bits in a form whose size says so: 32+ hex characters (openssl rand -hex 16) or
 * 22+ base64/base64url characters (openssl rand -base64 16). Fewer than 8 distinct characters is no
 * random string of that length (aaaa…, abab…). The token itself is never shown.
 */
export function adminTokenWeakness(token: string): string | null {
  const how =
    'must carry at least 128 random bits: 32 or more hex characters (openssl rand -hex 16) or 22 or more base64url characters (openssl rand -base64 16)';
  const hex = /^[0-9a-fA-F]+$/.test(token);
  if (!hex && !/^[A-Za-z0-9+/_-]+=*$/.test(token)) return `${how}; it holds other characters`;
  const least = hex ? 32 : 22;
  if (token.replace(/=+$/, '').length < least) return `${how}; got ${token.length} ${hex ? 'hex' : 'base64'} characters`;
  if (new Set(token).size < 8) return `${how}; it repeats a few characters`;
  return null;
}

/** The longest PDI_LLM_TIMEOUT: an ask waits for its answer that long at most. */
const MAX_LLM_TIMEOUT_MS = 300_000;

/** The longest PDI_LLM_TRANSLATE_TIMEOUT: the translation is a short call before ask's retrieval. */
const MAX_TRANSLATE_TIMEOUT_MS = 30_000;

/**
 * PDI_LLM_URL and PDI_LLM_KEY come together; PDI_LLM_TIMEOUT (default 20s) bounds each answer, and
 * PDI_LLM_TRANSLATE_TIMEOUT (default 2s) the translation of an English question.
 */
function llm(env: Env): Config['llm'] {
  const endpoint = url(env, 'PDI_LLM_URL', ['http:', 'https:']);
  const key = text(env, 'PDI_LLM_KEY');
  if (endpoint === null && key === null) return null;
  if (endpoint === null) throw new ConfigError('PDI_LLM_URL', 'must be set when PDI_LLM_KEY is (an OpenAI-compatible chat-completions endpoint)');
  if (key === null) throw new ConfigError('PDI_LLM_KEY', 'must be set when PDI_LLM_URL is');
  const timeout = text(env, 'PDI_LLM_TIMEOUT') ?? '20s';
  const timeoutMs = parseDuration(timeout);
  if (timeoutMs === null || timeoutMs > MAX_LLM_TIMEOUT_MS) {
    throw new ConfigError('PDI_LLM_TIMEOUT', `must be a duration from 1s to 5m such as 20s, got "${timeout}"`);
  }
  const translate = text(env, 'PDI_LLM_TRANSLATE_TIMEOUT') ?? '2s';
  const translateTimeoutMs = parseDuration(translate);
  if (translateTimeoutMs === null || translateTimeoutMs > MAX_TRANSLATE_TIMEOUT_MS) {
    throw new ConfigError('PDI_LLM_TRANSLATE_TIMEOUT', `must be a duration from 1s to 30s such as 2s, got "${translate}"`);
  }
  return { url: endpoint, key, timeoutMs, translateTimeoutMs };
}

/** The longest PDI_EMBED_TIMEOUT. */
const MAX_EMBED_TIMEOUT_MS = 300_000;
/** The longest PDI_EMBED_QUERY_PREFIX / PDI_EMBED_PASSAGE_PREFIX. */
const MAX_EMBED_PREFIX = 100;

/**
 * PDI_EMBED_URL with PDI_EMBED_MODEL (and optionally PDI_EMBED_KEY) sends every embedding to that
 * service. PDI_MODEL_DIR beside it is refused: which of the two embeds would be a guess.
 */
function embedService(env: Env): EmbedService | null {
  const endpoint = url(env, 'PDI_EMBED_URL', ['http:', 'https:']);
  const names = [
    'PDI_EMBED_MODEL',
    'PDI_EMBED_KEY',
    'PDI_EMBED_BATCH',
    'PDI_EMBED_CONCURRENCY',
    'PDI_EMBED_TIMEOUT',
    'PDI_EMBED_RETRIES',
    'PDI_EMBED_QUERY_PREFIX',
    'PDI_EMBED_PASSAGE_PREFIX',
  ];
  if (endpoint === null) {
    const stray = names.find((n) => env[n] !== undefined && env[n] !== '');
    if (stray)
      throw new ConfigError(
        'PDI_EMBED_URL',
        `must be set when ${stray} is (the base URL of an OpenAI-compatible embeddings endpoint, e.g. http://gpu-box:8080/v1)`,
      );
    return null;
  }
  if (text(env, 'PDI_MODEL_DIR') !== null) {
    throw new ConfigError('PDI_EMBED_URL', 'and PDI_MODEL_DIR are both set: unset one (the service or the model in this process embeds, not both)');
  }
  const model = text(env, 'PDI_EMBED_MODEL');
  if (model === null)
    throw new ConfigError('PDI_EMBED_MODEL', 'must be set when PDI_EMBED_URL is (the `model` the service serves, e.g. intfloat/multilingual-e5-small)');
  if (model.length > 200 || /[\s\p{Cc}]/u.test(model))
    throw new ConfigError('PDI_EMBED_MODEL', 'must be a model name of at most 200 characters without spaces');
  const key = text(env, 'PDI_EMBED_KEY');
  if (key !== null && /[\s\p{Cc}]/u.test(key)) throw new ConfigError('PDI_EMBED_KEY', 'must not contain spaces or control characters');
  const timeout = text(env, 'PDI_EMBED_TIMEOUT') ?? '30s';
  const timeoutMs = parseDuration(timeout);
  if (timeoutMs === null || timeoutMs > MAX_EMBED_TIMEOUT_MS) {
    throw new ConfigError('PDI_EMBED_TIMEOUT', `must be a duration from 1s to 5m such as 30s, got "${timeout}"`);
  }
  return {
    url: endpoint,
    key,
    model,
    batchSize: integer(env, 'PDI_EMBED_BATCH', 32, 1, 2048),
    concurrency: integer(env, 'PDI_EMBED_CONCURRENCY', 4, 1, 64),
    timeoutMs,
    retries: integer(env, 'PDI_EMBED_RETRIES', 4, 0, 10),
    queryPrefix: prefixText(env, 'PDI_EMBED_QUERY_PREFIX'),
    passagePrefix: prefixText(env, 'PDI_EMBED_PASSAGE_PREFIX'),
  };
}

/** A prefix is taken as written, not trimmed: E5's `query: ` ends with its space. */
function prefixText(env: Env, name: string): string {
  const v = env[name] ?? '';
  if (v.length > MAX_EMBED_PREFIX || /\p{Cc}/u.test(v)) {
    throw new ConfigError(name, `must be at most ${MAX_EMBED_PREFIX} characters without control characters (e.g. "query: ")`);
  }
  return v;
}

/**
 * PDI_TLS_CERT and PDI_TLS_KEY come together. Only the paths are read here: the files are read when the
 * server starts (lib/tls.ts), so that a `pdi` command run by another user does not need them.
 */
function tlsFiles(env: Env): TlsFiles | null {
  const cert = text(env, 'PDI_TLS_CERT');
  const key = text(env, 'PDI_TLS_KEY');
  if (cert === null && key === null) return null;
  if (cert === null) throw new ConfigError('PDI_TLS_CERT', 'must be set when PDI_TLS_KEY is (the PEM certificate file served with that key)');
  if (key === null) throw new ConfigError('PDI_TLS_KEY', 'must be set when PDI_TLS_CERT is (the PEM private key file of that certificate)');
  return { certFile: path.resolve(cert), keyFile: path.resolve(key) };
}

/** PDI_DATA_DIR: created on first use; a file by that name is a mistake to say, not EEXIST from mkdir. */
function dataDir(env: Env): string {
  const dir = path.resolve(text(env, 'PDI_DATA_DIR') ?? DEFAULT_DATA_DIR);
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) throw new ConfigError('PDI_DATA_DIR', `${dir} is not a folder`);
  return dir;
}

/** PDI_MODEL_DIR: unset means the lexical fallback embedder; set, it must name a folder. */
function modelDir(env: Env): string | null {
  const value = text(env, 'PDI_MODEL_DIR');
  if (value === null) return null;
  const dir = path.resolve(value);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError('PDI_MODEL_DIR', `${dir} is not a folder (scripts/fetch-model.sh prints one; unset it to use the lexical fallback embedder)`);
  }
  return dir;
}
