// The concepts a question asks about, and how much of them a document holds. A concept is one English
// word or phrase of the question with its Greek translations (translate.ts), or one word of a Greek
// question; a document holds it when it holds any of its forms (each compared by stems, as the engines
// compare words). Ask weighs sources by it and keeps none that hold too little of the question: a
// question on a topic the corpus lacks answers with no sources rather than with documents that share
// only its commonest word.
import { ENGLISH_STOP_WORDS, GREEK_STOP_WORDS } from '../../index-mappings/settings.js';
import { searchedContent, searchedCpvLabels, searchedSummary, searchedTitles, type SearchedFields } from '../../index-mappings/searched-text.js';
import { tokens } from '../greek.js';
import { stem } from '../stem.js';
import { englishQuestion, type Translation } from './translate.js';

/**
 * Words that say what kind of document or purchase is meant, not what about: in every other procurement
 * document, so holding one tells little. Stems (lib/stem.ts), English and Greek.
 */
const KIND_STEMS = new Set(
  [
    'service',
    'services',
    'supply',
    'supplies',
    'work',
    'works',
    'contract',
    'contracts',
    'decision',
    'decisions',
    'product',
    'products',
    'document',
    'documents',
    'tender',
    'procurement',
    'purchase',
    'award',
    'awarded',
    'public',
    'municipal',
    'υπηρεσια',
    'υπηρεσιεσ',
    'υπηρεσιων',
    'προμηθεια',
    'προμηθειασ',
    'προμηθειεσ',
    'εργασιεσ',
    'εργασιων',
    'εργα',
    'εργου',
    'συμβαση',
    'συμβασησ',
    'συμβασεισ',
    'αναθεση',
    'αναθεσησ',
    'αποφαση',
    'αποφασεισ',
    'δαπανη',
    'δαπανησ',
    'προιοντα',
    'προιοντων',
    'ειδη',
    'ειδων',
    'δημοσ',
    'δημου',
    'δημοτικοσ',
    'δημοσιου',
  ].map(stem),
);
/** Words of a question that ask, not name (`What did …`, `Ποιες …`), and Greek articles and prepositions Lucene's stop set lacks. */
const QUESTION_WORDS = new Set(
  [
    'what',
    'which',
    'who',
    'whom',
    'whose',
    'when',
    'where',
    'why',
    'how',
    'do',
    'does',
    'did',
    'done',
    'has',
    'have',
    'had',
    'were',
    'been',
    'about',
    'any',
    'all',
    'some',
    'from',
    'me',
    'my',
    'our',
    'your',
    'show',
    'find',
    'list',
    'give',
    'tell',
    'there',
    'than',
    'τι',
    'ποιεσ',
    'ποιοι',
    'ποια',
    'ποιο',
    'ποιοσ',
    'ποσα',
    'ποσο',
    'πωσ',
    'ποτε',
    'ειχε',
    'εχει',
    'εχουν',
    'αφορα',
    'αφορουν',
    'ολεσ',
    'ολα',
    'τουσ',
    'τισ',
    'στουσ',
    'στισ',
    'στα',
    'στων',
    'ενα',
    'ενασ',
    'μια',
    'μιασ',
    'ηταν',
    'εγινε',
    'εγιναν',
  ].flatMap((w) => tokens(w)),
);
const STOP = new Set([...GREEK_STOP_WORDS, ...ENGLISH_STOP_WORDS, ...QUESTION_WORDS]);
/** A kind word's weight among a question's concepts; any other concept weighs 1. */
const KIND_WEIGHT = 0.25;

/** One form of a concept: the stems of its content words (a CPV label has several). */
type Form = string[];

export interface Concept {
  forms: Form[];
  weight: number;
}

/** The stems of a text's content words, stop words and question words left out. */
export function contentStems(text: string): string[] {
  return tokens(text)
    .filter((w) => !STOP.has(w) && (w.length > 1 || /\d/.test(w)))
    .map(stem);
}

/**
 * The concepts of a question: each group of an English question's translation (its English words and
 * their Greek alternatives), or each content word of a question in Greek. A word of an English question
 * that the vocabulary does not know (a name, Greek in Latin letters, an acronym) is no concept: what it
 * means is unknown, so no document is judged by it.
 */
export function questionConcepts(question: string, translation: Translation): Concept[] {
  if (englishQuestion(question)) {
    return translation.groups.flatMap((g) => {
      const english = contentStems(g.english);
      const greek = g.greek.map(contentStems);
      const forms = [english, ...greek].map(withoutKindWords).filter((f) => f.length > 0);
      // A concept is a kind word by its English, or by its Greek when a model gave it no English.
      const kind = (english.length > 0 ? [english] : greek).every((f) => f.every((s) => KIND_STEMS.has(s)));
      return forms.length > 0 ? [{ forms, weight: kind ? KIND_WEIGHT : 1 }] : [];
    });
  }
  return [...new Set(contentStems(question))].map((s) => ({ forms: [[s]], weight: KIND_STEMS.has(s) ? KIND_WEIGHT : 1 }));
}

/** A form's kind words left out, unless it has nothing else (`services` alone stays a form). */
function withoutKindWords(form: Form): Form {
  const rest = form.filter((s) => !KIND_STEMS.has(s));
  return rest.length > 0 ? rest : form;
}

/**
 * A translation as a search takes it (TextQuery.translated): each group's Greek alternatives as the
 * words a document must hold, stop and question words and kind words left out (`Υπηρεσίες συντήρησης
 * ανελκυστήρων` is `συντήρησης ανελκυστήρων`), each alternative once.
 */
export function searchAlternatives(translation: Translation): string[][] {
  return translation.groups
    .map((g) => [...new Set(g.greek.map((alt) => contentWords(alt).join(' ')).filter((alt) => alt !== ''))])
    .filter((group) => group.length > 0);
}

/** The content words of a text as written (folded), kind words left out unless it has nothing else. */
function contentWords(text: string): string[] {
  const words = tokens(text).filter((w) => !STOP.has(w) && (w.length > 1 || /\d/.test(w)));
  const rest = words.filter((w) => !KIND_STEMS.has(stem(w)));
  return rest.length > 0 ? rest : words;
}

/** How much of a document is read: what makes it match is near its start (title, summary, first lines). */
const READ_CHARS = 3_000;

/** The stems of what search reads of a document (index-mappings/searched-text.ts), its first READ_CHARS of content. */
export function documentStems(doc: SearchedFields): Set<string> {
  const text = [
    ...searchedTitles(doc),
    searchedSummary(doc),
    searchedContent(doc).slice(0, READ_CHARS),
    ...searchedCpvLabels(doc),
    ...(doc.entities?.names ?? []),
  ].join('\n');
  return new Set(tokens(text).map(stem));
}

/**
 * The share of the question's concepts a document holds, 0..1, each by its weight: a concept counts
 * as much as the most of any one of its forms the document holds (two of a label's four words: half).
 */
export function coverage(concepts: Concept[], stems: ReadonlySet<string>): number {
  let held = 0;
  let total = 0;
  for (const c of concepts) {
    total += c.weight;
    let best = 0;
    for (const form of c.forms) best = Math.max(best, form.filter((s) => stems.has(s)).length / form.length);
    held += c.weight * best;
  }
  return total > 0 ? held / total : 0;
}
