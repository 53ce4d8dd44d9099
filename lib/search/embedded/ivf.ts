// The arithmetic of the embedded engine's inverted-file vector index (vectors.ts): spherical k-means
// over unit vectors, and a vector's nearest centroids. Pure: no SQLite, no I/O.

/** Dot product of a[ao..ao+d) and b[bo..bo+d); four accumulators let V8 pipeline the adds. */
export function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < d; j += 4) {
    s0 += a[ao + j] * b[bo + j];
    s1 += a[ao + j + 1] * b[bo + j + 1];
    s2 += a[ao + j + 2] * b[bo + j + 2];
    s3 += a[ao + j + 3] * b[bo + j + 3];
  }
  for (; j < d; j++) s0 += a[ao + j] * b[bo + j];
  return s0 + s1 + s2 + s3;
}

/** The centroid (of `count` in `centroids`) nearest the vector at `vectors[offset..]`: highest dot product. */
export function nearestCentroid(centroids: Float32Array, count: number, vectors: Float32Array, offset: number, d: number): number {
  let best = Number.NEGATIVE_INFINITY;
  let index = 0;
  for (let c = 0; c < count; c++) {
    const s = dot(centroids, c * d, vectors, offset, d);
    if (s > best) {
      best = s;
      index = c;
    }
  }
  return index;
}

/** Centroid indices by their dot product with `query`, best first. */
export function centroidsByScore(centroids: Float32Array, count: number, query: Float32Array, d: number): number[] {
  const scores = new Float64Array(count);
  for (let c = 0; c < count; c++) scores[c] = dot(centroids, c * d, query, 0, d);
  return Array.from({ length: count }, (_, c) => c).sort((a, b) => scores[b] - scores[a] || a - b);
}

/**
 * Spherical k-means (cosine): `lists` unit centroids for the `n` vectors of `sample`, seeded with
 * evenly spaced sample vectors (deterministic), `iterations` rounds of assign-and-average. A list that
 * loses every vector keeps its previous centroid.
 */
export function trainCentroids(sample: Float32Array, n: number, d: number, lists: number, iterations: number): Float32Array {
  const k = Math.max(1, Math.min(lists, n));
  const centroids = new Float32Array(k * d);
  for (let c = 0; c < k; c++) {
    const from = Math.floor((c * n) / k) * d;
    centroids.set(sample.subarray(from, from + d), c * d);
  }
  const assigned = new Int32Array(n);
  for (let round = 0; round < iterations; round++) {
    for (let i = 0; i < n; i++) assigned[i] = nearestCentroid(centroids, k, sample, i * d, d);
    const sums = new Float64Array(k * d);
    const counts = new Int32Array(k);
    for (let i = 0; i < n; i++) {
      const c = assigned[i];
      counts[c] += 1;
      for (let j = 0; j < d; j++) sums[c * d + j] += sample[i * d + j];
    }
    for (let c = 0; c < k; c++) {
      if (!counts[c]) continue;
      let norm = 0;
      for (let j = 0; j < d; j++) norm += sums[c * d + j] ** 2;
      norm = Math.sqrt(norm);
      if (norm === 0) continue;
      for (let j = 0; j < d; j++) centroids[c * d + j] = sums[c * d + j] / norm;
    }
  }
  return centroids;
}

/** Groups searched per assignment: a vector near a group border still finds its nearest centroid. */
const GROUPS_SEARCHED = 3;

/**
 * Nearest-centroid search in two levels, for assigning many vectors: the centroids clustered into about
 * √lists groups, a vector compared with the group centres, then with the centroids of its best
 * GROUPS_SEARCHED groups: about 4·√lists dot products instead of `lists` (a 1M-vector set: 6× fewer).
 * Near-ties may go to the second-nearest list, which costs recall nothing that probing does not cover.
 */
export class CentroidGroups {
  private readonly centres: Float32Array;
  private readonly members: number[][];

  constructor(private readonly centroids: Float32Array, private readonly count: number, private readonly d: number) {
    const groups = Math.max(1, Math.round(Math.sqrt(count)));
    this.centres = trainCentroids(centroids.subarray(0, count * d), count, d, groups, 4);
    const made = this.centres.length / d;
    this.members = Array.from({ length: made }, () => []);
    for (let c = 0; c < count; c++) this.members[nearestCentroid(this.centres, made, centroids, c * d, d)].push(c);
  }

  nearest(vectors: Float32Array, offset: number): number {
    const d = this.d;
    if (this.members.length <= GROUPS_SEARCHED) return nearestCentroid(this.centroids, this.count, vectors, offset, d);
    const scores = this.members.map((_, g) => dot(this.centres, g * d, vectors, offset, d));
    const best = scores.map((s, g) => ({ s, g })).sort((a, b) => b.s - a.s).slice(0, GROUPS_SEARCHED);
    let top = Number.NEGATIVE_INFINITY;
    let index = 0;
    for (const { g } of best) {
      for (const c of this.members[g]) {
        const s = dot(this.centroids, c * d, vectors, offset, d);
        if (s > top) {
          top = s;
          index = c;
        }
      }
    }
    return index;
  }
}
