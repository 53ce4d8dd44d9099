// The quality score: how complete and usable a normalized document is, 0..1. One rule for all eight
// sources (it looks only at the common model, never at the source), deterministic, documented in
// docs/quality-score.md. Change the weights there and here together.
import type { NormalizedDocument } from '../index-mappings/document.js';

export type ScorableDocument = Omit<NormalizedDocument, 'quality_score'>;

/** Each criterion's weight; they add up to 1. */
export const QUALITY_WEIGHTS = {
  title: 0.15,
  content: 0.2,
  published_at: 0.15,
  source_url: 0.1,
  summary: 0.05,
  entities: 0.1,
  amount: 0.1,
  cpv: 0.05,
  region: 0.05,
  sector: 0.05,
} as const;

/** A title this long (characters, after trimming) earns the full title weight; shorter ones a share. */
export const FULL_TITLE_CHARS = 20;
/** Content this long earns the full content weight; shorter content a proportional share. */
export const FULL_CONTENT_CHARS = 400;

const ISO_UTC_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function share(length: number, full: number): number {
  return Math.min(1, Math.max(0, length) / full);
}

function filled(v: unknown): boolean {
  return typeof v === 'string' && v.trim() !== '';
}

/** The score of each criterion in 0..1, before weighting (for docs, tests and debugging). */
export function qualityParts(doc: ScorableDocument): Record<keyof typeof QUALITY_WEIGHTS, number> {
  const entities = doc.entities ?? { afm: [], ada: [], names: [] };
  const hasIds = (entities.afm?.length ?? 0) + (entities.ada?.length ?? 0) > 0;
  const hasNames = (entities.names?.length ?? 0) > 0;
  const amount = doc.amount;
  return {
    title: share((doc.title ?? '').trim().length, FULL_TITLE_CHARS),
    content: share((doc.content ?? '').trim().length, FULL_CONTENT_CHARS),
    published_at: typeof doc.published_at === 'string' && ISO_UTC_SECONDS.test(doc.published_at) && !Number.isNaN(Date.parse(doc.published_at)) ? 1 : 0,
    source_url: typeof doc.source_url === 'string' && /^https?:\/\/\S+$/.test(doc.source_url) ? 1 : 0,
    summary: filled(doc.summary) ? 1 : 0,
    // Identifiers (ΑΦΜ, ΑΔΑ) are what entity resolution and monitoring join on; names alone count half.
    entities: hasIds ? 1 : hasNames ? 0.5 : 0,
    amount: amount != null && Number.isFinite(amount.value) && amount.value > 0 && /^[A-Z]{3}$/.test(amount.currency ?? '') ? 1 : 0,
    cpv: (doc.cpv?.length ?? 0) > 0 ? 1 : 0,
    region: filled(doc.region) ? 1 : 0,
    sector: filled(doc.sector) ? 1 : 0,
  };
}

/** Weighted sum of the criteria, rounded to two decimals so equal documents always score equal. */
export function qualityScore(doc: ScorableDocument): number {
  const parts = qualityParts(doc);
  let sum = 0;
  for (const key of Object.keys(QUALITY_WEIGHTS) as (keyof typeof QUALITY_WEIGHTS)[]) {
    sum += QUALITY_WEIGHTS[key] * parts[key];
  }
  return Math.min(1, Math.max(0, Math.round(sum * 100) / 100));
}
