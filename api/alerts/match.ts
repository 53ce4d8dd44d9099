// Which active profiles and monitored entities a new document concerns (decisions "Alerts and
// deliveries", "Monitoring"). Keywords meet the text search searches (index-mappings/searched-text.ts:
// entity names and CPV labels in, TED's label lines out), folded and stemmed as search does
// (lib/greek.ts tokens: case, accents, final sigma; lib/stem.ts: `συμβάσεις` finds `σύμβαση`); names as
// entity resolution does (lib/names.ts: also Greeklish and legal forms). Profiles and entities are
// compiled into a MatchIndex once per batch, a document's words once per document.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { searchedValues, type SearchedFields } from '../../index-mappings/searched-text.js';
import { normalizeAda } from '../../lib/identifiers.js';
import type { ProfileRecord } from './store.js';
import type { EntityRecord, EventType } from '../monitoring/store.js';
import { tokens } from '../../lib/greek.js';
import { nameKey, nameKeyWords } from '../../lib/names.js';
import { stem } from '../../lib/stem.js';

/** The words of a text as keywords are compared: folded, then stemmed. */
export function keywordWords(text: string): string[] {
  return tokens(text).map(stem);
}

// Names recur from document to document (a buyer, a supplier): their keys are kept, up to a bound.
const nameKeys = new Map<string, string>();
const NAME_KEYS_LIMIT = 1 << 16;

function nameKeyOf(name: string): string {
  let key = nameKeys.get(name);
  if (key !== undefined) return key;
  key = nameKey(name);
  if (nameKeys.size >= NAME_KEYS_LIMIT) nameKeys.clear();
  nameKeys.set(name, key);
  return key;
}

/** Stands between two searched values, so that a phrase never runs from one into the next (as in search); no word is one. */
const VALUE_GAP = '|';

/** A document's text as matching reads it, computed on first use. */
export class DocumentText {
  private values?: string[][];
  private words?: Set<string>;
  private phrase?: string;
  private names?: string[];

  /** `doc` as the document store's feed gives it: with the CPV labels indexing gives it (searched-text.ts SearchedFields). */
  constructor(readonly doc: NormalizedDocument & Pick<SearchedFields, 'cpv_labels_en'>) {}

  /** The folded, stemmed words of each searched value. */
  private valueWords(): string[][] {
    if (this.values) return this.values;
    const { titles, body } = searchedValues(this.doc);
    this.values = [...titles, ...body].map(keywordWords);
    return this.values;
  }

  /** The document's folded, stemmed words. */
  wordSet(): Set<string> {
    this.words ??= new Set(this.valueWords().flat());
    return this.words;
  }

  hasWord(word: string): boolean {
    return this.wordSet().has(word);
  }

  /** Whether the folded words `phrase` occur in a row (space-joined; one word is a word lookup). */
  hasPhrase(phrase: string[]): boolean {
    if (phrase.length === 1) return this.hasWord(phrase[0]);
    if (!phrase.every((w) => this.hasWord(w))) return false;
    this.phrase ??= ` ${this.valueWords()
      .map((words) => words.join(' '))
      .join(` ${VALUE_GAP} `)} `;
    return this.phrase.includes(` ${phrase.join(' ')} `);
  }

  /** The name keys of the document's names and of its title, space-padded. */
  namePhrases(): string[] {
    this.names ??= [...this.doc.entities.names.map(nameKeyOf), nameKeyWords(this.doc.title).join(' ')].map((k) => ` ${k} `);
    return this.names;
  }
}

/** Codes (sector, region) compare as their folded words. */
const codeOf = (code: string) => tokens(code).join(' ');
const foldedSet = (items: string[]) => (items.length === 0 ? null : new Set(items.map(codeOf)));

export interface ProfileMatcher {
  profile: ProfileRecord;
  /** The first word of each keyword: a document without any of them cannot match (empty: no keywords). */
  firstWords: string[];
  matches(text: DocumentText): boolean;
}

export function profileMatcher(profile: ProfileRecord): ProfileMatcher {
  const f = profile.filters;
  const sources = f.sources.length === 0 ? null : new Set(f.sources);
  const sectors = foldedSet(f.sectors);
  const regions = foldedSet(f.regions);
  const keywords = f.keywords.map(keywordWords).filter((k) => k.length > 0);
  return {
    profile,
    firstWords: keywords.map((k) => k[0]!),
    matches(text) {
      const d = text.doc;
      if (sources && !sources.has(d.source)) return false;
      if (sectors && (d.sector === null || !sectors.has(codeOf(d.sector)))) return false;
      if (regions && (d.region === null || !regions.has(codeOf(d.region)))) return false;
      if (f.min_value !== null && (d.amount === null || d.amount.value < f.min_value)) return false;
      if (f.max_value !== null && (d.amount === null || d.amount.value > f.max_value)) return false;
      return keywords.length === 0 || keywords.some((k) => text.hasPhrase(k));
    },
  };
}

export function entityMatches(entity: EntityRecord, text: DocumentText): boolean {
  const d = text.doc;
  if (entity.identifier_type === 'afm') return d.entities.afm.includes(entity.match_key);
  if (entity.identifier_type === 'ada') {
    return d.source_id === `diavgeia:${entity.match_key}` || d.entities.ada.some((a) => normalizeAda(a) === entity.match_key);
  }
  const key = ` ${entity.match_key} `;
  return text.namePhrases().some((n) => n.includes(key));
}

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** The items of `lists` (positions in `all`) once each, in the order of `all`. */
function inOrder<T>(all: T[], lists: (number[] | undefined)[]): T[] {
  const at = new Set<number>();
  for (const list of lists) if (list) for (const i of list) at.add(i);
  return [...at].sort((a, b) => a - b).map((i) => all[i]!);
}

/**
 * Active profiles and monitored entities indexed by what a document must hold for them to match: a
 * profile by the first word of each keyword, an entity by its AFM, its ADA or the first word of its
 * name key. A document is then checked only against the candidates its words and identifiers name,
 * not against every profile and entity; the candidates are checked in full as before.
 */
export class MatchIndex {
  private readonly byWord = new Map<string, number[]>();
  private readonly unkeyed: number[] = [];
  private readonly byAfm = new Map<string, number[]>();
  private readonly byAda = new Map<string, number[]>();
  private readonly byNameWord = new Map<string, number[]>();

  constructor(
    readonly profiles: ProfileMatcher[],
    readonly entities: EntityRecord[],
  ) {
    profiles.forEach((m, i) => {
      if (m.firstWords.length === 0) this.unkeyed.push(i);
      for (const w of new Set(m.firstWords)) push(this.byWord, w, i);
    });
    entities.forEach((e, i) => {
      if (e.identifier_type === 'afm') push(this.byAfm, e.match_key, i);
      else if (e.identifier_type === 'ada') push(this.byAda, e.match_key, i);
      else push(this.byNameWord, e.match_key.split(' ')[0]!, i);
    });
  }

  /** The profiles whose filters the document meets. */
  profilesMatching(text: DocumentText): ProfileMatcher[] {
    const lists: (number[] | undefined)[] = [this.unkeyed];
    if (this.byWord.size > 0) for (const w of text.wordSet()) lists.push(this.byWord.get(w));
    return inOrder(this.profiles, lists).filter((m) => m.matches(text));
  }

  /** The monitored entities the document names. */
  entitiesMatching(text: DocumentText): EntityRecord[] {
    if (this.entities.length === 0) return [];
    const d = text.doc;
    const lists = d.entities.afm.map((a) => this.byAfm.get(a));
    if (d.source_id.startsWith('diavgeia:')) lists.push(this.byAda.get(d.source_id.slice('diavgeia:'.length)));
    for (const a of d.entities.ada) lists.push(this.byAda.get(normalizeAda(a) ?? ''));
    if (this.byNameWord.size > 0) {
      for (const phrase of text.namePhrases()) for (const w of phrase.split(' ')) if (w) lists.push(this.byNameWord.get(w));
    }
    return inOrder(this.entities, lists).filter((e) => entityMatches(e, text));
  }
}

/** decisions.md "Monitoring": the event a document raises, by its source and category. */
export function eventTypeOf(doc: NormalizedDocument): EventType {
  const category = doc.doc_category;
  if (doc.source === 'diavgeia') return category === 'award' ? 'contract_award' : 'new_decision';
  if (doc.source === 'ted' || doc.source === 'kimdis') return category === 'award' || category === 'contract' ? 'contract_award' : 'other';
  if (doc.source === 'rae') {
    if (category === 'decision' || category === 'sanction') return 'regulatory_action';
    return category === 'licence' ? 'permit_change' : 'other';
  }
  return 'other';
}

const MAX_SUMMARY = 300;

export function eventSummary(entity: EntityRecord, doc: NormalizedDocument): string {
  const who = entity.label ?? entity.entity_identifier;
  const text = `${who}: ${doc.title} (${doc.source}, ${doc.published_at.slice(0, 10)})`;
  return [...text].length > MAX_SUMMARY ? `${[...text].slice(0, MAX_SUMMARY - 1).join('')}…` : text;
}
