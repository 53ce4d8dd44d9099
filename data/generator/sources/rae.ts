// geo.rae.gr GeoServer WFS GetFeature responses (outputFormat=application/json, srsName=EPSG:4326,
// count=100&startIndex=N), one FeatureCollection per page and layer, with GeoServer's
// totalFeatures/numberMatched/numberReturned/timeStamp/crs members.
import { END } from '../dates.js';
import { json, seq, type OutFile } from '../output.js';
import { RAE_LAYERS, permitProperties } from '../permits.js';
import type { Rng } from '../prng.js';
import type { World } from '../world.js';

const PAGE = 100;

export function renderRae(world: World, rng: Rng): OutFile[] {
  const files: OutFile[] = [];
  let n = 1;
  for (const layer of RAE_LAYERS) {
    const permits = world.permits.filter((p) => p.layer.name === layer.name);
    const pages = Math.max(1, Math.ceil(permits.length / PAGE));
    for (let page = 0; page < pages; page++) {
      const slice = permits.slice(page * PAGE, (page + 1) * PAGE);
      const body = {
        type: 'FeatureCollection',
        features: slice.map((p, i) => ({
          type: 'Feature',
          id: `${layer.name}.${page * PAGE + i + 1}`,
          geometry: { type: 'MultiPolygon', coordinates: p.polygons },
          geometry_name: 'SHAPE',
          properties: permitProperties(p),
        })),
        totalFeatures: permits.length,
        numberMatched: permits.length,
        numberReturned: slice.length,
        timeStamp: new Date(END + 9 * 3600_000 + rng.int(0, 3_599_999)).toISOString(),
        crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } },
      };
      files.push({ path: `rae/${seq(n++)}-${layer.name}-start${page * PAGE}.json`, body: json(body), records: slice.length });
    }
  }
  return files;
}
