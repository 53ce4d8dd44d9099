// The official CPV 2008 vocabulary: every code with its parent and its English and Greek labels
// (data/vocabulary/cpv.tsv, from the TED eForms SDK; data/vocabulary/README.md says where from and under
// which licence). Read once, on first use. Codes are the 8 digits documents carry (normalizeCpv).
import fs from 'node:fs';
import { projectPath } from '../paths.js';

export interface CpvEntry {
  /** 8 digits, without the check digit. */
  code: string;
  /** The code one level up; null for a division (`03000000`). */
  parent: string | null;
  en: string;
  el: string;
}

export const CPV_FILE = projectPath('data', 'vocabulary', 'cpv.tsv');

let table: ReadonlyMap<string, Readonly<CpvEntry>> | undefined;

function load(): ReadonlyMap<string, Readonly<CpvEntry>> {
  const lines = fs.readFileSync(CPV_FILE, 'utf8').split('\n');
  const out = new Map<string, Readonly<CpvEntry>>();
  // The first line names the columns: code, parent, en, el.
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    const [code, parent, en, el] = line.split('\t') as [string, string, string, string];
    out.set(code, Object.freeze({ code, parent: parent || null, en, el }));
  }
  return out;
}

function cpvTable(): ReadonlyMap<string, Readonly<CpvEntry>> {
  table ??= load();
  return table;
}

/** `50232100-0`, `50232100` → `50232100` (the 8-digit code; the check digit adds nothing); else null. */
export function normalizeCpv(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{8})(?:-\d)?$/.exec(v.trim());
  return m ? m[1]! : null;
}

/** A code's official labels and parent (the code with or without its check digit), or undefined when CPV 2008 has no such code. */
export function cpvLabel(code: string): Readonly<CpvEntry> | undefined {
  const normal = normalizeCpv(code);
  return normal === null ? undefined : cpvTable().get(normal);
}

/** Every code of the vocabulary, in code order. */
export function cpvEntries(): Iterable<Readonly<CpvEntry>> {
  return cpvTable().values();
}
