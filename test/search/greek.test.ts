// lib/greek.ts: what stored text and queries are read as.
import t from 'tap';
import { fold, greekLetters } from '../../lib/greek.js';

t.test('when a Greek word has Latin letters drawn like Greek ones, then they are read as the Greek letters', async (t) => {
  t.equal(greekLetters('ΑΠΟΦAΣΗ'), 'ΑΠΟΦΑΣΗ', 'a Latin A among Greek capitals');
  // A real KIMDIS region label (nutsCodes), typed with a Latin A.
  t.equal(greekLetters('Aνατολική Μακεδονία, Θράκη'), 'Ανατολική Μακεδονία, Θράκη');
  t.equal(greekLetters('ΠPOKHPYΞH'), 'ΠΡΟΚΗΡΥΞΗ', 'P, O, K, H, Y');
  t.equal(greekLetters('ΒΕΒΑΙΩΣΗ ZTEX ΜΙΧ'), 'ΒΕΒΑΙΩΣΗ ZTEX ΜΙΧ', 'a word of Latin letters alone stays Latin');
  t.equal(greekLetters('σύμβoλαιο'), 'σύμβολαιο', 'a Latin o among lower-case Greek');
  t.equal(greekLetters('Ω4ΚΤ46ΜΤΛP-AB'), 'Ω4ΚΤ46ΜΤΛΡ-AB', 'a code: digits do not end the word, a hyphen does');
  t.equal(fold(greekLetters('ÁΡΘΡΟ')), fold('ΆΡΘΡΟ'), 'a Latin letter with an accent takes the accent along');
});

t.test('when a word mixes scripts and one Latin letter has no Greek twin, then the word is left as it is', async (t) => {
  t.equal(greekLetters('COVIDιου'), 'COVIDιου');
  t.equal(greekLetters('ΟΤΕnet'), 'ΟΤΕnet');
  t.equal(greekLetters('MWατ'), 'MWατ');
});

t.test('when text has no mixed word, then it comes back unchanged, look-alike signs aside', async (t) => {
  for (const s of ['Απόφαση Δημάρχου', 'Contract notice 2024', '', '6ΥΩΚΟΕΥΖ-86Ο', 'ΕΣΠΑ 2014-2020']) t.equal(greekLetters(s), s);
  t.equal(greekLetters('Αναµόρφωση ∆ηµοτικού'), 'Αναμόρφωση Δημοτικού');
});
