// lib/names.ts: the spellings of one name meet under one key; different names do not.
import t, { type Test } from 'tap';
import { nameKey, sameName, toLatin } from '../../lib/names.js';

function meet(t: Test, spellings: string[], msg: string): void {
  const keys = new Set(spellings.map(nameKey));
  t.equal(keys.size, 1, `${msg}: ${spellings.map((s) => `${s} → ${nameKey(s)}`).join('; ')}`);
  t.not([...keys][0], '', msg);
}

t.test('when Greek is transliterated, then it follows ELOT 743', async (t) => {
  t.equal(toLatin('Θεσσαλονίκη'), 'thessaloniki');
  t.equal(toLatin('ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ'), 'dimos athinaion');
  t.equal(toLatin('Ευαγγελισμός'), 'evangelismos', 'ευ before a vowel or voiced consonant is ev, γγ is ng');
  t.equal(toLatin('Αυτοκίνητο'), 'aftokinito', 'αυ before a voiceless consonant is af');
  t.equal(toLatin('Χανιά Ψυχικό Ξάνθη'), 'chania psychiko xanthi');
  t.equal(toLatin('Μπακάλης Ντόρα Αγκυρα Λαού'), 'mpakalis ntora agkyra laou');
  t.equal(toLatin('ORION ΑΕ'), 'orion ae', 'Latin letters stay');
});

t.test('when a name is written in another case, accents or final sigma, then the keys are equal', async (t) => {
  meet(t, ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'Δήμος Αθηναίων', 'δήμος αθηναίων', 'Δημος Αθηναιων'], 'case and accents');
  meet(t, ['ΑΘΗΝΑΙΟΣ', 'αθηναίος', 'ΑΘΗΝΑΙΟσ'], 'final sigma');
  meet(t, ['ΑΠΟΦAΣΗ', 'ΑΠΟΦΑΣΗ'], 'a Latin look-alike inside a Greek word');
});

t.test('when a name is written in Greeklish, ELOT 743 or informally, then it meets the Greek', async (t) => {
  meet(t, ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'dimos athinaion', 'DIMOS ATHINAION', 'dhmos a8hnaiwn', 'Dimos Athinaion'], 'the issue example');
  meet(t, ['Θεσσαλονίκη', 'Thessaloniki', 'Thesaloniki', '8essaloniki'], 'θ as th or 8, doubled letters');
  meet(t, ['Χανιά', 'chania', 'xania', 'hania'], 'χ as ch, x or h');
  meet(t, ['Ξάνθη', 'Xanthi', 'Ksanthi'], 'ξ as x or ks');
  meet(t, ['Ηράκλειο', 'Irakleio', 'Hrakleio', 'Iraklio'], 'η as i or h, ει as ei or i');
  meet(t, ['Ευάγγελος', 'Evangelos', 'Evaggelos', 'Euaggelos'], 'ευ as ev or eu, γγ as ng or gg');
  meet(t, ['Μπακάλης', 'Bakalis', 'Mpakalis'], 'μπ as b or mp');
  meet(t, ['Ντόρας', 'Doras', 'Ntoras'], 'ντ as d or nt');
  meet(t, ['Κυριάκος', 'Kyriakos', 'Kuriakos', 'Kiriakos'], 'υ as y, u or i');
  meet(t, ['Ψυχικό', 'Psychiko', 'psyxiko'], 'ψ as ps, χ as ch or x');
  meet(t, ['ΕΛΛΗΝΙΚΗ ΕΤΑΙΡΕΙΑ ΥΔΑΤΩΝ', 'ellhnikh etaireia ydatwn', 'elliniki etairia idaton'], 'η as h after a consonant, αι as ai or e, ω as w');
});

t.test('when a name carries a legal form, then the key is the name without it', async (t) => {
  meet(t, ['ΤΟΜΕΣ ΑΤΕ', 'ΤΟΜΕΣ Α.Τ.Ε.', 'Tomes ATE', 'ΤΟΜΕΣ'], 'Α.Τ.Ε.');
  meet(t, ['ΠΗΓΑΣΟΣ Α.Ε.', 'ΠΗΓΑΣΟΣ ΑΕ', 'Pigasos S.A.', 'PIGASOS SA', 'Πήγασος Ανώνυμη Εταιρεία', 'ΠΗΓΑΣΟΣ ΜΟΝΟΠΡΟΣΩΠΗ ΑΕ'], 'Α.Ε., S.A.');
  meet(t, ['ΔΟΜΙΚΗ Ε.Π.Ε.', 'ΔΟΜΙΚΗ ΕΠΕ', 'Domiki EPE'], 'Ε.Π.Ε.');
  meet(t, ['IONIAN CATERING ΜΟΝΟΠΡΟΣΩΠΗ Ι.Κ.Ε.', 'IONIAN CATERING ΙΚΕ', 'Ionian Catering IKE'], 'Ι.Κ.Ε.');
  meet(t, ['ΘΩΜΟΠΟΥΛΟΣ ΑΛΕΒΙΖΟΣ ΟΕ', 'Θωμόπουλος Αλεβίζος Ο.Ε.', 'thomopoulos alevizos oe'], 'Ο.Ε.');
  meet(t, ['ORION SECURITY Ε.Ε.', 'ORION SECURITY ΕΕ', 'Orion Security'], 'Ε.Ε.');
  meet(t, ['Acme Ltd', 'ACME LIMITED', 'Acme Ltd.', 'Acme GmbH', 'ACME'], 'Ltd, Limited, GmbH');
  meet(t, ['ΑΦΟΙ ΠΕΤΡΙΔΗ & ΣΙΑ ΟΕ', 'Αφοί Πετρίδη και Σια Ο.Ε.', 'afoi petridh'], '& ΣΙΑ joined');
  t.equal(nameKey('Α.Ε.'), 'ae', 'a name that is only a legal form keeps it');
});

t.test('when names differ, then their keys differ', async (t) => {
  t.notOk(sameName('ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'ΔΗΜΟΣ ΛΑΜΙΕΩΝ'));
  t.notOk(sameName('ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'ΔΗΜΟΥ ΑΘΗΝΑΙΩΝ'), 'another case of the noun is another word');
  t.notOk(sameName('ORION SECURITY ΕΕ', 'ORION FACILITY SERVICES ΑΕ'));
  t.notOk(sameName('', ''), 'an empty name is no name');
  t.notOk(sameName('—', '...'), 'punctuation is no name');
  t.equal(nameKey('ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ'), 'dimos athineon');
});
