// Every run takes a full snapshot of each layer (WFS 2.0 GetFeature, `count`/`startIndex` paging) because
// the layers carry no modification date. Pages are yielded as they come (the pipeline's content hash skips
// unchanged licences); alongside, the fetcher hashes each feature's properties and, when a layer is
// complete, compares it with the previous snapshot kept in the checkpoint: added, changed and removed
// licences are logged and recorded under `changes`, and the layer's new snapshot replaces the old one.
// A licence moving between stage layers (application → production licence …) shows as removed from one
// layer and added to another. The checkpoint stays small: per layer, `aa` → a 16-hex-digit hash.
// --since does not apply: there is nothing to filter on.
import { createHash } from 'node:crypto';
import { UpstreamError } from '../../http.js';
import type { Checkpoint, FetchContext, FetchedPage } from '../types.js';
import { featureKey, localLayerName, readFeatureCollection, withLayer } from './parse.js';
import { DEFAULT_LAYERS, type RaeCheckpoint, type RaeFeature, type RaeOptions, type RaeSnapshot, type SnapshotDiff } from './types.js';

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** A short hash of a feature's properties (geometry left out): equal iff the licence record is unchanged. */
export function hashFeature(feature: RaeFeature): string {
  return createHash('sha256')
    .update(stableJson(feature.properties ?? {}))
    .digest('hex')
    .slice(0, 16);
}

/** Per layer: key → hash, for the features of one or more pages. */
export function snapshotOf(layer: string, features: RaeFeature[]): RaeSnapshot {
  const map: Record<string, string> = {};
  for (const f of features) {
    const key = featureKey(f);
    if (key) map[key] = hashFeature(f);
  }
  return { [localLayerName(layer)]: map };
}

/**
 * What changed from `prev` to `next`, as `<layer>:<aa>` keys (`rae:<key>` is the source_id), sorted.
 * A layer present in only one side counts wholly as added or removed.
 */
export function diffSnapshots(prev: RaeSnapshot, next: RaeSnapshot): SnapshotDiff {
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const layer of new Set([...Object.keys(prev), ...Object.keys(next)])) {
    const before = prev[layer] ?? {};
    const after = next[layer] ?? {};
    for (const [key, hash] of Object.entries(after)) {
      if (!(key in before)) added.push(`${layer}:${key}`);
      else if (before[key] !== hash) changed.push(`${layer}:${key}`);
    }
    for (const key of Object.keys(before)) if (!(key in after)) removed.push(`${layer}:${key}`);
  }
  return { added: added.sort(), changed: changed.sort(), removed: removed.sort() };
}

export function getFeatureUrl(baseUrl: string, typeName: string, startIndex: number, count: number): string {
  const url = new URL(baseUrl);
  url.searchParams.set('service', 'WFS');
  url.searchParams.set('version', '2.0.0');
  url.searchParams.set('request', 'GetFeature');
  url.searchParams.set('typeNames', typeName);
  url.searchParams.set('outputFormat', 'application/json');
  url.searchParams.set('srsName', 'EPSG:4326');
  url.searchParams.set('count', String(count));
  url.searchParams.set('startIndex', String(startIndex));
  return url.toString();
}

function readCheckpoint(cp: Checkpoint | null): RaeSnapshot {
  const snapshots = (cp as Partial<RaeCheckpoint> | null)?.snapshots;
  return snapshots && typeof snapshots === 'object' ? { ...snapshots } : {};
}

export async function* fetchRae(ctx: FetchContext, options: RaeOptions = {}): AsyncGenerator<FetchedPage> {
  const layers = options.layers ?? DEFAULT_LAYERS;
  const count = Math.max(1, options.count ?? 1000);
  let snapshots = readCheckpoint(ctx.checkpoint);
  let changes: NonNullable<RaeCheckpoint['changes']> = {};
  if (ctx.since) ctx.log.info({ since: ctx.since }, 'rae has no dates to filter on; taking a full snapshot');

  for (const typeName of layers) {
    const layer = localLayerName(typeName);
    const next: Record<string, string> = {};
    let startIndex = 0;
    for (;;) {
      const res = await ctx.http.request(getFeatureUrl(ctx.baseUrl, typeName, startIndex, count));
      let fc;
      try {
        fc = readFeatureCollection(res.body);
      } catch (err) {
        throw new UpstreamError(`rae: ${typeName} startIndex=${startIndex}: ${(err as Error).message}`, null);
      }
      Object.assign(next, snapshotOf(layer, fc.features)[layer]);
      const matched = typeof fc.numberMatched === 'number' ? fc.numberMatched : null;
      // numberMatched, when the server gives it, decides: a server capping its page size below `count`
      // returns short pages that are not the last. Without it, a short page is the last.
      const last = fc.features.length === 0 || (matched !== null ? startIndex + fc.features.length >= matched : fc.features.length < count);
      if (last) {
        const diff = diffSnapshots({ [layer]: snapshots[layer] ?? {} }, { [layer]: next });
        ctx.log.info(
          { layer, features: Object.keys(next).length, added: diff.added.length, changed: diff.changed.length, removed: diff.removed.length },
          'layer snapshot compared',
        );
        snapshots = { ...snapshots, [layer]: next };
        changes = { ...changes, [layer]: { added: diff.added.length, changed: diff.changed.length, removed: diff.removed.map((k) => `rae:${k}`) } };
      }
      yield { body: res.body, contentType: withLayer(res.contentType, layer), checkpoint: { snapshots, changes } };
      if (last) break;
      startIndex += fc.features.length;
    }
  }
}
