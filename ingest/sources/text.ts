// Text as the normalizers write it: whitespace collapsed, HTML entities decoded, and every document's
// text composed (Greek letters, NFC) after its normalizer.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { greekLetters } from '../../lib/greek.js';

/** Trims and collapses runs of whitespace (line breaks included); non-strings become ''. */
export function collapse(v: unknown): string {
  return typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '';
}

/** Decodes the HTML entities TED leaves in some values (`Falu Energi &amp;`). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (whole, e: string) => {
    const k = e.toLowerCase();
    if (k === 'amp') return '&';
    if (k === 'lt') return '<';
    if (k === 'gt') return '>';
    if (k === 'quot') return '"';
    if (k === 'apos') return "'";
    if (k === 'nbsp') return ' ';
    const code = k.startsWith('#x') ? parseInt(k.slice(2), 16) : parseInt(k.slice(1), 10);
    return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * The document with its text in Greek letters (greekLetters: `∆ηµοτικού` → `Δημοτικού`) and in NFC.
 * Some upstream text (PDF extraction above all) spells accents as combining marks; the Greek analysis on
 * Elasticsearch folds precomposed letters but leaves a combining mark in the token, so `δη\u0301μος`
 * was never found by `δήμος`. One place, after every normalizer.
 */
export function composedText<D extends NormalizedDocument>(doc: D): D {
  let changed = false;
  const tidy = (s: string) => {
    const t = greekLetters(s).normalize('NFC');
    if (t !== s) changed = true;
    return t;
  };
  const orNull = (s: string | null) => (s === null ? null : tidy(s));
  const composed = {
    ...doc,
    title: tidy(doc.title),
    content: tidy(doc.content),
    summary: tidy(doc.summary),
    entities: { ...doc.entities, names: doc.entities.names.map(tidy) },
    region: orNull(doc.region),
    sector: orNull(doc.sector),
  };
  // The same object when nothing changed: pdi reindex then keeps the stored hash without hashing again.
  return changed ? composed : doc;
}
