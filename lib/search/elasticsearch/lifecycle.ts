// Index lifecycle of the Elasticsearch adapter (docs/operations.md "Elasticsearch"): create the first
// generation, check the node's version and what serves (mapping version, model, the per-source layout
// of older builds), and rebuild. Every source: a new physical index, loaded, writes made meanwhile
// caught up, counts verified per source, one atomic alias swap, the old one pruned. One source of a
// current index: its new generation written beside the old one in place (source-rebuild.ts); after a
// mapping change, a new physical index with the other sources carried over.
import type { estypes } from '@elastic/elasticsearch';
import type { IndexedDocument } from '../../../index-mappings/document.js';
import { indexMeta, legacyIndexPatterns, physicalIndexName, physicalIndexPattern, readAlias, timeStamp } from '../../../index-mappings/index-names.js';
import { buildMapping, SEARCH_TEXT_SINCE } from '../../../index-mappings/mapping.js';
import { buildSettings, MAX_RESULT_WINDOW, type ShardLayout } from '../../../index-mappings/settings.js';
import { SOURCE_NAMES, type SourceName } from '../../../index-mappings/sources.js';
import type { Logger } from '../../logger.js';
import { CATCH_UP_MARGIN_MS, type EmbeddingIdentity, type RebuildResult, type RebuildScope } from '../provider.js';
import { describe, EngineResponseError, isIndexNotFound, PING_TIMEOUT_MS, type EngineClient } from './client.js';
import { aliasFilter, aliasState, freshGenerations, servingGenerations, type Generations } from './generations.js';
import { countsBySource, dropOld, forceMerge, unblockWrites } from './generation-ops.js';
import type { Query } from './queries.js';
import { copyInto, loadInto } from './carry-over.js';
import { rebuildSourceInPlace } from './source-rebuild.js';
import type { BulkOutcome } from './writes.js';

/** The oldest Elasticsearch major this adapter talks to (the client's major matches it). */
export const MIN_SERVER_MAJOR = 9;

export function unsupportedServer(version: string): string {
  return `Elasticsearch ${version} is not supported: pdi needs Elasticsearch ${MIN_SERVER_MAJOR}.x (8.x and older are no longer supported); upgrade the node, or unset ELASTICSEARCH_URL to use the embedded engine`;
}

/** A physical index behind the alias and its mapping `_meta`. */
interface ServingIndex {
  index: string;
  meta: Record<string, unknown>;
}

export interface LifecycleOptions {
  prefix: string;
  dimension: number;
  embeddingModel: string;
  layout?: ShardLayout;
  log: Logger;
}

export class IndexLifecycle {
  private readonly prefix: string;
  /** What new indices record and serve; a rebuild for another embedder changes them at its swap. */
  private dimension: number;
  private embeddingModel: string;
  private readonly layout: ShardLayout | undefined;
  private readonly log: Logger;
  /** Why what serves is not one index of this build (checkServing), or null when it is. */
  private outdated: string | null = null;
  /** The server's version (serverMajor), read once. */
  private serverVersion?: Promise<{ major: number; version: string }>;
  /** An index of a mapping version before SEARCH_TEXT_SINCE serves (olderIndicesServe), as last read. */
  private olderServing = false;
  private versionsReadAt = -Infinity;
  private versionsReading?: Promise<void>;

  constructor(
    private readonly engine: EngineClient,
    opts: LifecycleOptions,
  ) {
    buildMapping(opts.dimension); // validates the dimension now rather than at the first index creation
    this.prefix = opts.prefix;
    this.dimension = opts.dimension;
    this.embeddingModel = opts.embeddingModel;
    this.layout = opts.layout;
    this.log = opts.log;
  }

  private mapping(embedding: EmbeddingIdentity = { model: this.embeddingModel, dimension: this.dimension }): estypes.MappingTypeMapping {
    return buildMapping(embedding.dimension, { ...indexMeta(embedding.model, embedding.dimension) }) as estypes.MappingTypeMapping;
  }

  /** The serving index's embedder (checkServing's `_meta`, without its warning); null before the first index. */
  async recordedEmbedding(): Promise<EmbeddingIdentity | null> {
    let res: estypes.IndicesGetMappingResponse = {};
    try {
      res = await this.engine.call('indices.get_mapping', () => this.engine.es.indices.getMapping({ index: readAlias(this.prefix) }));
    } catch (err) {
      if (!isIndexNotFound(err)) throw err;
    }
    const meta = Object.values(res)[0]?.mappings?._meta;
    return meta?.embedding_model ? { model: String(meta.embedding_model), dimension: Number(meta.embedding_dimension) } : null;
  }

  async init(): Promise<void> {
    await this.checkServerVersion();
    const alias = readAlias(this.prefix);
    await this.checkAliasName(alias);
    let targets = (await aliasState(this.engine, alias)).map((a) => a.index);
    if (targets.length === 0) {
      // A fixed first-generation name: two processes initialising at once create one index, not two.
      const index = physicalIndexName(this.prefix, 'init');
      const filter = aliasFilter(freshGenerations(timeStamp()));
      try {
        const settings = await this.indexSettings();
        await this.engine.call('indices.create', () =>
          this.engine.es.indices.create({ index, settings, mappings: this.mapping(), aliases: { [alias]: { is_write_index: true, filter } } }),
        );
        this.log.info({ index }, 'index created');
      } catch (err) {
        if (!(err instanceof EngineResponseError && err.type === 'resource_already_exists_exception')) throw err;
      }
      targets = (await aliasState(this.engine, alias)).map((a) => a.index);
      if (targets.length === 0) {
        // The index existed without its alias (an interrupted setup, so nothing was written to it): attach it.
        await this.engine.call('indices.update_aliases', () =>
          this.engine.es.indices.updateAliases({ actions: [{ add: { index, alias, is_write_index: true, filter } }] }),
        );
        targets = [index];
      }
    }
    await this.checkServing();
    for (const index of targets) await this.ensureResultWindow(index);
  }

  /**
   * Refuses a node older than MIN_SERVER_MAJOR with an error naming its version. Asked without the
   * client's compatibility header (`compatible-with=9`), which an 8.x node refuses with a 400 that
   * names no version at all.
   */
  private async checkServerVersion(): Promise<void> {
    const major = await this.serverMajor();
    if (major.major < MIN_SERVER_MAJOR) throw new Error(unsupportedServer(major.version));
  }

  /** The server's version, read once. */
  private serverMajor(): Promise<{ major: number; version: string }> {
    this.serverVersion ??= this.engine
      .call('nodes.info', () =>
        this.engine.es.transport.request<{ nodes?: Record<string, { version?: string }> }>(
          { method: 'GET', path: '/_nodes', querystring: { filter_path: 'nodes.*.version' } },
          { headers: { accept: 'application/json' } },
        ),
      )
      .then((res) => {
        // The oldest node decides: a cluster mid-upgrade answers as its oldest member.
        const versions = Object.values(res.nodes ?? {}).map((n) => String(n.version ?? 'unknown'));
        const version = versions.sort((a, b) => (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0))[0] ?? 'unknown';
        return { major: parseInt(version, 10) || 0, version };
      })
      .catch((err: unknown) => {
        this.serverVersion = undefined;
        throw err;
      });
    return this.serverVersion;
  }

  /**
   * Refuses an index that stands where pdi's alias must be (made by hand, or by a write to the name
   * while its alias was gone): every alias action on the name fails with Elasticsearch's
   * invalid_alias_name_exception, which says nothing of what to do.
   */
  async strayIndexAt(name: string): Promise<string | null> {
    // exists() is true for an alias as well as an index.
    if (!(await this.engine.call('indices.exists', () => this.engine.es.indices.exists({ index: name })))) return null;
    if (await this.engine.call('indices.exists_alias', () => this.engine.es.indices.existsAlias({ name }))) return null;
    return (
      `an index named ${name} stands where pdi's alias of that name must be (pdi never makes an index by that name): ` +
      `look at it, delete it (DELETE /${name}), then run pdi reindex`
    );
  }

  /** Throws when a stray index stands where the alias `name` must be (strayIndexAt). */
  private async checkAliasName(name: string): Promise<void> {
    const stray = await this.strayIndexAt(name);
    if (stray) throw new Error(stray);
  }

  /**
   * An index created before index.max_result_window was raised keeps the old 10,000, which a walk's
   * steps would exceed; the setting is dynamic, so it is raised in place rather than by a reindex.
   */
  private async ensureResultWindow(index: string): Promise<void> {
    const res = await this.engine.call('indices.get_settings', () =>
      this.engine.es.indices.getSettings({ index, name: 'index.max_result_window', flat_settings: true }),
    );
    const current = Number(Object.values(res)[0]?.settings?.['index.max_result_window' as keyof estypes.IndicesIndexSettings] ?? 10_000);
    if (current >= MAX_RESULT_WINDOW) return;
    await this.engine.call('indices.put_settings', () =>
      this.engine.es.indices.putSettings({ index, settings: { 'index.max_result_window': MAX_RESULT_WINDOW } as estypes.IndicesIndexSettings }),
    );
    this.log.info({ index, from: current, to: MAX_RESULT_WINDOW }, 'index.max_result_window raised');
  }

  /**
   * Notes (and warns) when what serves is not one index of this build's mapping version and embedding
   * model: per-source indices of a build before the one-index layout, or an index of another mapping
   * or model. Reads go on (older records are read as they were stored), writes are refused until
   * `pdi reindex` builds one index of this version (refuseOutdated). Returns the serving `_meta`s.
   */
  async checkServing(): Promise<ServingIndex[]> {
    let res: estypes.IndicesGetMappingResponse = {};
    try {
      res = await this.engine.call('indices.get_mapping', () => this.engine.es.indices.getMapping({ index: readAlias(this.prefix) }));
    } catch (err) {
      if (!isIndexNotFound(err)) throw err;
    }
    const serving = Object.entries(res).map(([index, m]) => ({ index, meta: (m.mappings?._meta ?? {}) as Record<string, unknown> }));
    const expected = indexMeta(this.embeddingModel, this.dimension);
    const labels = { mapping_version: 'mapping version', embedding_model: 'embedding model', embedding_dimension: 'embedding dimension' } as const;
    const rebuild = 'run pdi reindex, which builds one index of every source from the stored documents without fetching them again';
    let why: string | null = null;
    if (serving.length > 1) {
      why =
        `${serving.length} indices serve ${readAlias(this.prefix)}, one per source (the layout of builds before mapping version 6); ` +
        `this build keeps every source in one index: ${rebuild}`;
    } else if (serving.length === 1) {
      const [{ index, meta }] = serving;
      const differs = (Object.keys(labels) as (keyof typeof labels)[]).filter((k) => meta[k] !== expected[k]);
      if (differs.length > 0) {
        why =
          `the index ${index} was built for ${differs.map((k) => `${labels[k]} ${meta[k] ?? '(none)'}`).join(', ')}; ` +
          `this build writes ${differs.map((k) => `${labels[k]} ${expected[k]}`).join(', ')}: ${rebuild}`;
      }
    }
    if (why !== null && why !== this.outdated) this.log.warn({ serving: serving.map((s) => s.index), expected }, why);
    this.outdated = why;
    return serving;
  }

  /**
   * Writes into an index built for another mapping would be refused document by document (a field it
   * lacks is a strict-mapping error) or land in a form this build cannot read: an upgrade lost every
   * document ingested before the reindex. The alias is looked at again first, in case another process
   * (pdi reindex) rebuilt it since.
   */
  async refuseOutdated(): Promise<void> {
    if (this.outdated === null) return;
    await this.checkServing();
    if (this.outdated !== null) throw new Error(`not written: ${this.outdated}`);
  }

  /**
   * The serving index and each source's current generation, read from the alias (the one record of
   * them: another process may have rebuilt a source since). Throws when what serves has no generations
   * (an index of a build before them, which refuseOutdated refuses writes to anyway).
   */
  async generations(): Promise<{ index: string; gens: Generations }> {
    const serving = await servingGenerations(this.engine, readAlias(this.prefix));
    if (!serving) throw new Error(`not written: ${readAlias(this.prefix)} is not one index of this build: run pdi reindex`);
    return serving;
  }

  /**
   * The settings of a new index. Vectors stay out of `_source` (Elasticsearch 9's default, said
   * explicitly): kept there as JSON they made a 30,000-document index a third larger (docs/benchmarks.md
   * "Reindex"). The reads that need them (a get, a rebuild's carry-over) ask for them back with
   * VECTORS_IN_SOURCE.
   */
  private async indexSettings(): Promise<Record<string, unknown>> {
    const settings = buildSettings(this.layout);
    settings.index = { ...(settings.index as object), mapping: { exclude_source_vectors: true } };
    return settings;
  }

  /**
   * Whether an index of a mapping version before SEARCH_TEXT_SINCE is behind the read alias (an upgrade
   * not yet followed by pdi reindex), so text queries must name its fields too. Looked at again once a
   * minute: another process may rebuild a source, or an older build swap its own index in.
   */
  async olderIndicesServe(): Promise<boolean> {
    // One read at a time: the searches arriving while it runs wait for it rather than send their own.
    if (this.versionsReading === undefined && performance.now() - this.versionsReadAt >= 60_000) {
      this.versionsReading = this.readVersions().finally(() => {
        this.versionsReading = undefined;
      });
    }
    await this.versionsReading;
    return this.olderServing;
  }

  private async readVersions(): Promise<void> {
    try {
      const res = await this.engine.es.indices.getMapping({ index: readAlias(this.prefix) }, { requestTimeout: PING_TIMEOUT_MS, maxRetries: 0 });
      this.olderServing = Object.values(res).some((m) => !(Number(m.mappings?._meta?.mapping_version) >= SEARCH_TEXT_SINCE));
      this.versionsReadAt = performance.now();
    } catch {
      // No alias or no engine: the search itself meets the same and answers as it always has.
    }
  }

  /**
   * Rebuilds `scope` from `batches`. One source of an index of this build: in place
   * (source-rebuild.ts), costing that source alone. Otherwise a new physical index: `scope` loaded
   * from `batches` (one source, or every source), every other source carried over from the serving
   * generation (read back and written anew, so fields this build derives are written as it derives
   * them), per-source counts verified, one atomic alias swap, the old index pruned. Documents ingests
   * write meanwhile go to the serving index; just before the swap it is write-blocked and what it
   * received since the start is copied over where it differs from what was loaded (catch-up), so none
   * is lost: writes refused during that moment are refused for the index's state, which the sink
   * retries. One rebuild at a time (a second one fails at its swap, leaving the first one's serving).
   */
  async rebuild(scope: RebuildScope, batches: AsyncIterable<IndexedDocument[]>, embedding?: EmbeddingIdentity): Promise<RebuildResult> {
    const alias = readAlias(this.prefix);
    await this.checkAliasName(alias);
    const serving = await this.checkServing();
    const target = embedding ?? { model: this.embeddingModel, dimension: this.dimension };
    const switching = target.model !== this.embeddingModel || target.dimension !== this.dimension;
    if (scope !== 'all' && this.outdated === null && !switching) {
      const current = await servingGenerations(this.engine, alias);
      if (current) {
        await this.dropAbandoned([current.index]);
        return rebuildSourceInPlace(this.engine, this.log, { alias, ...current, source: scope }, batches);
      }
    }
    const old = serving.map((s) => s.index);
    // What the alias shows of the old indices: documents of a replaced generation not yet deleted are
    // not carried over.
    const oldFilter = (await aliasState(this.engine, alias)).map((a) => a.filter);
    const shown: Query[] = oldFilter.length === 1 && oldFilter[0] ? [oldFilter[0]] : [];
    // Vectors of another model or dimension cannot be carried over; their documents come over without
    // one until their own source is rebuilt (kNN misses them meanwhile, text search does not).
    const expected = indexMeta(target.model, target.dimension);
    const keepVectors = serving.every(
      (s) => s.meta.embedding_model === expected.embedding_model && s.meta.embedding_dimension === expected.embedding_dimension,
    );
    await unblockWrites(this.engine, this.log, old);
    await this.dropAbandoned(old);
    const stamp = timeStamp();
    const index = physicalIndexName(this.prefix, stamp);
    const gens = freshGenerations(stamp);
    const settings = await this.indexSettings();
    await this.engine.call('indices.create', () =>
      this.engine.es.indices.create({
        index,
        // Loading into an index nobody reads: no refreshes until the end.
        settings: { ...settings, refresh_interval: '-1' },
        mappings: this.mapping(target),
      }),
    );
    this.log.info({ index, scope }, 'rebuild started');
    const started = Date.now();
    const what = scope === 'all' ? 'every source' : scope;
    let blocked = false;
    let counts: Map<string, number>;
    try {
      const created = new Map<string, number>();
      const add = (out: BulkOutcome) => {
        for (const [s, n] of out.created) created.set(s, (created.get(s) ?? 0) + n);
      };
      for await (const batch of batches) {
        const stray = scope === 'all' ? undefined : batch.find((d) => d.source !== scope);
        if (stray) throw new Error(`rebuild of ${scope} was given ${stray.source_id} of source ${stray.source}`);
        add(await loadInto(this.engine, index, gens, batch, what));
      }
      // Not the rebuilt source in what is carried over or caught up: its ingest waits for the rebuild
      // (the ingest lock), and what the store no longer holds must not come back. Of every source, each
      // may be ingested meanwhile, so all are caught up.
      const notRebuilt: Query[] = scope === 'all' ? [] : [{ term: { source: scope } }];
      if (old.length > 0 && scope !== 'all') {
        // Every write acknowledged before this point is carried over by this copy, not left to the
        // catch-up, which finds documents by indexed_at (a write without a fresh one was missed).
        await this.engine.call('indices.refresh', () => this.engine.es.indices.refresh({ index: old.join(',') }));
        await copyInto(this.engine, old, index, gens, { bool: { filter: shown, must_not: notRebuilt } }, keepVectors, add);
      }
      await this.engine.call('indices.put_settings', () =>
        // Back to the default (settings.ts): null resets a setting, which the client's types do not allow.
        this.engine.es.indices.putSettings({ index, settings: { index: { refresh_interval: null } } as unknown as estypes.IndicesIndexSettings }),
      );
      // One segment before it serves: a rebuilt index is read far more than it is written, and every
      // search pays per segment (the 1M-document benchmark: rare term 2x, common term 1.3x the
      // throughput of the ~28 segments a bulk load leaves). Later upserts add segments as usual.
      await forceMerge(this.engine, index);
      if (old.length > 0) {
        blocked = true;
        await this.engine.call('indices.add_block', () => this.engine.es.indices.addBlock({ index: old.join(','), block: 'write' }));
        await this.engine.call('indices.refresh', () => this.engine.es.indices.refresh({ index: old.join(',') }));
        await this.engine.call('indices.refresh', () => this.engine.es.indices.refresh({ index }));
        const since = new Date(started - CATCH_UP_MARGIN_MS).toISOString();
        const recent = { bool: { filter: [...shown, { range: { indexed_at: { gte: since } } }], must_not: notRebuilt } };
        await copyInto(this.engine, old, index, gens, recent, keepVectors, add, true);
      }
      await this.engine.call('indices.refresh', () => this.engine.es.indices.refresh({ index }));
      counts = await countsBySource(this.engine, index);
      // Through the alias: what readers see of the old indices.
      const before = old.length > 0 ? await countsBySource(this.engine, alias) : new Map<string, number>();
      for (const s of new Set([...counts.keys(), ...before.keys(), ...created.keys()])) {
        const now = counts.get(s) ?? 0;
        const loaded = created.get(s) ?? 0;
        if (now !== loaded) throw new Error(`rebuild of ${what}: the new index holds ${now} documents of ${s}, ${loaded} were loaded`);
        if (scope !== 'all' && s !== scope && now !== (before.get(s) ?? 0)) {
          throw new Error(`rebuild of ${scope}: the new index holds ${now} documents of ${s}, the serving one ${before.get(s) ?? 0}`);
        }
      }
      // The swap: one cluster-state update, so every search sees either the old index or the new one.
      // `must_exist`: a rebuild that finished first already replaced `old`; this one then fails.
      const actions: estypes.IndicesUpdateAliasesAction[] = old.map((o) => ({ remove: { index: o, alias, must_exist: true } }));
      actions.push({ add: { index, alias, is_write_index: true, filter: aliasFilter(gens) } });
      await this.engine.call('indices.update_aliases', () => this.engine.es.indices.updateAliases({ actions }));
    } catch (err) {
      // Nothing was swapped: the old generation keeps serving, writable again; drop the half-built one.
      if (blocked)
        await unblockWrites(this.engine, this.log, old).catch((e: unknown) =>
          this.log.warn({ indices: old, error: describe(e) }, 'could not lift the write block'),
        );
      try {
        await this.engine.call('indices.delete', () => this.engine.es.indices.delete({ index }));
      } catch (cleanupErr) {
        this.log.warn({ index, error: describe(cleanupErr) }, 'could not delete the abandoned index');
      }
      this.log.warn({ index, scope, error: describe(err) }, 'rebuild failed; previous index still serving');
      throw err;
    }
    this.outdated = null;
    this.embeddingModel = target.model;
    this.dimension = target.dimension;
    this.log.info({ index, scope, documents: Object.fromEntries(counts), replaced: old }, 'rebuild swapped in');
    if (old.length > 0) await dropOld(this.engine, this.log, old);
    const bySource: Partial<Record<SourceName, number>> = {};
    for (const s of SOURCE_NAMES) if ((scope === 'all' || s === scope) && counts.has(s)) bySource[s] = counts.get(s)!;
    return { source: scope, documents: Object.values(bySource).reduce((a, b) => a + b, 0), bySource, index };
  }

  /**
   * Deletes this prefix's indices behind no alias (generations, and per-source indices of older builds):
   * rebuilds that failed while their cleanup could not reach the node (hung, killed) left them, each
   * holding disk. Called at a rebuild's start, when nothing else is being built.
   */
  private async dropAbandoned(keep: string[]): Promise<void> {
    try {
      const patterns = [physicalIndexPattern(this.prefix), ...legacyIndexPatterns(this.prefix)].join(',');
      const rows = await this.engine.call('cat.indices', () =>
        this.engine.es.cat.indices({ index: patterns, format: 'json', h: 'index', expand_wildcards: 'all' }),
      );
      const abandoned = rows.map((r) => r.index!).filter((i) => i && !keep.includes(i));
      if (abandoned.length === 0) return;
      await this.engine.call('indices.delete', () => this.engine.es.indices.delete({ index: abandoned.join(',') }));
      this.log.info({ indices: abandoned }, 'deleted indices abandoned by failed rebuilds');
    } catch (err) {
      this.log.warn({ error: describe(err) }, 'could not delete indices abandoned by failed rebuilds; the next rebuild tries again');
    }
  }
}
