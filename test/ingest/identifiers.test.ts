// Test vectors from docs/upstream-sources.md §1.9 (ΑΦΜ), §1.1 (ΑΔΑ), §1.3 (ΑΔΑΜ), §1.2 (TED).
import t from 'tap';
import { canonicalSourceId, extractIdentifiers, isAda, isAdam, isTedPublicationNumber, isValidAfm, normalizeAda, normalizeAfm } from '../../lib/identifiers.js';

t.test('when an AFM has a correct check digit, then it is valid', async (t) => {
  for (const afm of ['090252840', '094311152', '084065149', '801362883', '123456783', '999999993']) {
    t.equal(isValidAfm(afm), true, afm);
  }
});

t.test('when an AFM has a wrong check digit, the wrong length or is all zeros, then it is invalid', async (t) => {
  for (const afm of ['123456789', '099123456', '099369820', '000000000', '09025284', '0902528400', '09025284O', '', ' 090252840']) {
    t.equal(isValidAfm(afm), false, JSON.stringify(afm));
  }
});

t.test('when an AFM carries an EL/GR prefix, spaces or dots, then normalizeAfm returns the 9 digits', async (t) => {
  t.equal(normalizeAfm('EL090252840'), '090252840');
  t.equal(normalizeAfm('gr 094311152'), '094311152');
  t.equal(normalizeAfm(' 090 252 840 '), '090252840');
  t.equal(normalizeAfm('090.252.840'), '090252840');
  t.equal(normalizeAfm(90252840), '090252840', 'a JSON number that lost its leading zero');
  t.equal(normalizeAfm('123456789'), '123456789', 'the check digit is not normalizeAfm’s business');
});

t.test('when a value is not 9 digits after stripping, then normalizeAfm returns null', async (t) => {
  for (const v of ['12345678', '1234567890', 'ELABCDEFGHI', 'DE123456789', '', null, undefined, 123, {}]) {
    t.equal(normalizeAfm(v), null, JSON.stringify(v));
  }
});

t.test('when an ADA is in the documented forms, then it is an ADA and normalizes to itself', async (t) => {
  for (const ada of ['ΨΘ82ΩΡΦ-7ΑΙ', '6ΨΙΞΩ1Ρ-ΑΒΓ', 'Ω6Η2ΟΡΡ9-Β9Ω', 'Ρ2Γ6469Β7Δ-ΤΛ4', '6Ε0Ε46Ψ842-Φ46', '7ΧΔΛ46ΨΖ2Ν-87Ν']) {
    t.equal(isAda(ada), true, ada);
    t.equal(normalizeAda(ada), ada, ada);
  }
});

t.test('when an ADA is typed with Latin look-alike capitals, then normalizeAda maps them to Greek', async (t) => {
  t.equal(normalizeAda('4AΓΤΛ-8'), '4ΑΓΤΛ-8', 'the early 2010 form with a Latin A');
  t.equal(normalizeAda('ABEZHIKMNOPTYX-1'), null, '14 characters before the hyphen is too long');
  t.equal(normalizeAda('ABEZHIKM-NOP'), 'ΑΒΕΖΗΙΚΜ-ΝΟΡ');
  t.equal(normalizeAda('TYX9-1'), 'ΤΥΧ9-1');
  t.equal(normalizeAda(' Ρ6ΓΚ7ΛΒ-ΚΑΡ'), 'Ρ6ΓΚ7ΛΒ-ΚΑΡ', 'surrounding spaces, as KIMDIS sends them');
  t.equal(normalizeAda('ψθ82ωρφ-7αι'), 'ΨΘ82ΩΡΦ-7ΑΙ', 'lower case');
});

t.test('when a string is not an ADA, then isAda is false and normalizeAda null', async (t) => {
  for (const v of ['ΨΘ82ΩΡΦ7ΑΙ', 'ΨΘ8-7ΑΙ', 'ΨΘ82ΩΡΦ-7ΑΙΚ', 'SCDF-123', 'ΨΘ82ΩΡΦ-', '', null, 42]) {
    t.equal(isAda(v), false, JSON.stringify(v));
    t.equal(normalizeAda(v), null, JSON.stringify(v));
  }
});

t.test('when an ADAM has a known act type, then it is an ADAM; otherwise not', async (t) => {
  for (const v of ['26REQ000000001', '24PROC014500000', '25AWRD000000001', '25SYMV017115178', '25PAY018125670', '25DIAB000000123']) {
    t.equal(isAdam(v), true, v);
  }
  for (const v of ['25SYMV01711517', '25XXXX017115178', 'SYMV017115178', '2025SYMV017115178', '', null]) {
    t.equal(isAdam(v), false, JSON.stringify(v));
  }
});

t.test('when a TED publication number is <number>-<year>, then it is recognised', async (t) => {
  for (const v of ['449657-2026', '00654321-2023', '1-2024']) t.equal(isTedPublicationNumber(v), true, v);
  for (const v of ['123456789-2023', '449657/2026', '449657-26', '', null]) t.equal(isTedPublicationNumber(v), false, JSON.stringify(v));
});

t.test('when free text mentions AFMs and ADAs, then only valid AFMs and well-formed ADAs are extracted', async (t) => {
  const text = [
    'Ανάθεση στην ΤΟΜΕΣ ΑΤΕ (ΑΦΜ: 094311152) και στον ΑΦΜ EL090252840.',
    'Λανθασμένος ΑΦΜ 123456789, τηλέφωνο 2101234567, ποσό 123456783,50 ευρώ.',
    'Σχετικές: ΑΔΑ Ω6Η2ΟΡΡ9-Β9Ω, ΨΘ82ΩΡΦ-7ΑΙ και ξανά Ω6Η2ΟΡΡ9-Β9Ω, επίσης 4AΓΤΛ-8.',
    'Όχι ADA: COVID-19, TOYOTA-123, ΑΝΑΘΕΣΗ-ΤΟΥ, 2016-2020, ΧΧΧ-ΨΨΨ-ΩΩΩ1.',
  ].join('\n');
  const found = extractIdentifiers(text);
  t.same(found.afm, ['094311152', '090252840']);
  t.same(found.ada, ['Ω6Η2ΟΡΡ9-Β9Ω', 'ΨΘ82ΩΡΦ-7ΑΙ', '4ΑΓΤΛ-8']);
});

t.test('when the text is empty, then nothing is extracted', async (t) => {
  t.same(extractIdentifiers(''), { afm: [], ada: [] });
});

t.test('when a document id is written another way, then canonicalSourceId gives the id ingest wrote; null when it is that id already', async (t) => {
  t.equal(canonicalSourceId('e_procurement:26SYMV019848381'), 'kimdis:26SYMV019848381', 'the source alias');
  t.equal(canonicalSourceId('ted:00449657-2026'), 'ted:449657-2026');
  t.equal(canonicalSourceId('diavgeia:ω97τωξχ-8κλ'), 'diavgeia:Ω97ΤΩΞΧ-8ΚΛ');
  t.equal(canonicalSourceId('e_procurement:ω97τωξχ-8κλ'), 'kimdis:ω97τωξχ-8κλ', 'a KIMDIS id is not read as an ΑΔΑ');
  for (const id of ['kimdis:26SYMV019848381', 'ted:449657-2026', 'diavgeia:Ω97ΤΩΞΧ-8ΚΛ', 'no-colon', 'constructor:x', 'unknown:1']) {
    t.equal(canonicalSourceId(id), null, id);
  }
});
