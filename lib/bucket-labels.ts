// What an aggregate's bucket keys are called (GET /v1/aggregate, facets), read from the document store's
// database (documents.db) whichever engine serves: an ΑΦΜ by the name its parties go by most often (the
// entity index, as GET /v1/entity's first name), a CPV code, group or division by its Greek and English
// label (the official CPV vocabulary, lib/vocabulary/cpv.ts, then the labels learned from TED for a code
// it lacks; a group or a division by the label of its own code, 45000000 for `45`), a source by its
// catalogue label.
import type { Grouping } from '../index-mappings/analysis.js';
import { resolveSource } from '../index-mappings/sources.js';
import { SOURCES } from './sources.js';
import type { Sqlite } from './sqlite.js';
import { cpvLabel } from './vocabulary/cpv.js';

export interface BucketLabel {
  /** A party's name, a CPV code's English label, a source's title; null when none is known. */
  label: string | null;
  /** A CPV code's Greek label; null for other keys. */
  label_el: string | null;
}

/** The keys of one grouping to label. */
export interface LabelRequest {
  grouping: Grouping;
  keys: string[];
}

const NONE: BucketLabel = { label: null, label_el: null };

/** A CPV key (2, 3 or 8 digits) as the code its label is kept under. */
export const cpvCodeOf = (key: string) => key.padEnd(8, '0');

export class BucketLabels {
  private readonly name;
  private readonly cpv;

  constructor(db: Sqlite) {
    this.name = db.prepare(`SELECT value FROM entity_identity WHERE kind = 'afm' AND key = ? AND field = 'name' ORDER BY n DESC, value LIMIT 1`).pluck();
    // A store opened by a build before learned labels has no table of them: official labels only then.
    const hasLearned = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'cpv_learned'`).get() !== undefined;
    this.cpv = hasLearned ? db.prepare('SELECT el, en FROM cpv_learned WHERE code = ?') : null;
  }

  /** Each key's label, in the order asked. */
  labels(req: LabelRequest): BucketLabel[] {
    return req.keys.map((key) => this.labelOf(req.grouping, key));
  }

  private labelOf(grouping: Grouping, key: string): BucketLabel {
    switch (grouping) {
      case 'buyer':
      case 'supplier':
        return { label: (this.name.get(key) as string | undefined) ?? null, label_el: null };
      case 'cpv':
      case 'cpv_division':
      case 'cpv_group': {
        const code = cpvCodeOf(key);
        const found = cpvLabel(code) ?? (this.cpv?.get(code) as { el: string; en: string } | undefined);
        return found ? { label: found.en, label_el: found.el } : NONE;
      }
      case 'source': {
        const source = resolveSource(key);
        return { label: source ? SOURCES[source].label : null, label_el: null };
      }
      default:
        return NONE;
    }
  }
}
