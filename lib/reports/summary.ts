// The executive summary: a few plain sentences written from the report's figures, in Greek for a
// Greek entity and in English otherwise. No model: every number comes from the report itself.
import type { Report } from './build.js';

export function formatEur(value: number, lang: 'el' | 'en'): string {
  return `${value.toLocaleString(lang === 'el' ? 'el-GR' : 'en-GB', { maximumFractionDigits: 0 })} €`;
}

/** `n` with the singular or plural word. */
function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function executiveSummary(r: Report): string {
  const lang = r.entity.language;
  const p = r.sections.procurement;
  const who = r.entity.names[0] ?? r.entity.identifier;
  const flagged = r.sections.risk_indicators.filter((i) => i.status === 'flagged');
  const unknown = r.sections.risk_indicators.filter((i) => i.status === 'not_assessable');
  const total = r.sections.risk_indicators.length;
  const busiest = [...p.totals_by_year].sort((a, b) => b.value - a.value)[0];
  const counterpart = (r.entity.type === 'afm' || r.entity.type === 'name') && p.main_buyers[0] ? p.main_buyers[0] : p.main_suppliers[0];
  const out: string[] = [];
  if (lang === 'el') {
    const afm = r.entity.afm ? ` (ΑΦΜ ${r.entity.afm}${r.entity.afm_valid ? '' : ', μη έγκυρος'})` : '';
    if (r.documents.covered === 0) {
      out.push(`Δεν βρέθηκαν έγγραφα για την οντότητα ${who}${afm} στις πηγές δεδομένων.`);
    } else {
      out.push(
        `Η οντότητα ${who}${afm} εμφανίζεται σε ${count(r.documents.total, 'έγγραφο', 'έγγραφα')} από ${count(r.sections.sources.length, 'πηγή', 'πηγές')}, από ${r.documents.first_seen!.slice(0, 10)} έως ${r.documents.last_seen!.slice(0, 10)}.`,
      );
      out.push(
        p.contract_count > 0
          ? `${p.contract_count === 1 ? 'Καταγράφεται 1 ανάθεση ή σύμβαση' : `Καταγράφονται ${p.contract_count} αναθέσεις και συμβάσεις`} συνολικής αξίας ${formatEur(p.total_value, lang)}${busiest ? `, με τη μεγαλύτερη αξία το ${busiest.year} (${formatEur(busiest.value, lang)})` : ''}.`
          : 'Δεν καταγράφονται αναθέσεις ή συμβάσεις.',
      );
      if (counterpart)
        out.push(
          `Κύριος αντισυμβαλλόμενος: ${counterpart.name} (${count(counterpart.contracts, 'σύμβαση', 'συμβάσεις')}, ${formatEur(counterpart.value, lang)}).`,
        );
    }
    out.push(
      flagged.length
        ? `${flagged.length === 1 ? 'Ενεργοποιήθηκε 1' : `Ενεργοποιήθηκαν ${flagged.length}`} από ${total} δείκτες κινδύνου: ${flagged.map((i) => i.name).join(', ')}.`
        : `Κανένας από τους ${total} δείκτες κινδύνου δεν ενεργοποιήθηκε.`,
    );
    if (unknown.length)
      out.push(
        unknown.length === 1
          ? '1 δείκτης δεν μπορεί να εκτιμηθεί με τα διαθέσιμα δεδομένα.'
          : `${unknown.length} δείκτες δεν μπορούν να εκτιμηθούν με τα διαθέσιμα δεδομένα.`,
      );
    out.push(`Βαθμός κινδύνου: ${r.risk_score}/100.`);
  } else {
    const afm = r.entity.afm ? ` (VAT ${r.entity.afm}${r.entity.afm_valid ? '' : ', check digit invalid'})` : '';
    if (r.documents.covered === 0) {
      out.push(`No documents were found for ${who}${afm} in the data sources.`);
    } else {
      out.push(
        `${who}${afm} appears in ${count(r.documents.total, 'document', 'documents')} from ${count(r.sections.sources.length, 'source', 'sources')}, from ${r.documents.first_seen!.slice(0, 10)} to ${r.documents.last_seen!.slice(0, 10)}.`,
      );
      out.push(
        p.contract_count > 0
          ? `${p.contract_count === 1 ? '1 award or contract is recorded' : `${p.contract_count} awards and contracts are recorded`}, worth ${formatEur(p.total_value, lang)} in total${busiest ? `, the most in ${busiest.year} (${formatEur(busiest.value, lang)})` : ''}.`
          : 'No awards or contracts are recorded.',
      );
      if (counterpart)
        out.push(`Main counterparty: ${counterpart.name} (${count(counterpart.contracts, 'contract', 'contracts')}, ${formatEur(counterpart.value, lang)}).`);
    }
    out.push(
      flagged.length
        ? `${flagged.length} of ${total} risk indicators are flagged: ${flagged.map((i) => i.name).join(', ')}.`
        : `None of the ${total} risk indicators is flagged.`,
    );
    if (unknown.length) out.push(`${count(unknown.length, 'indicator', 'indicators')} cannot be assessed from the available data.`);
    out.push(`Risk score: ${r.risk_score}/100.`);
  }
  if (r.documents.truncated)
    out.push(
      lang === 'el'
        ? `Η έκθεση καλύπτει τα πρώτα ${r.documents.covered} από ${r.documents.total} έγγραφα.`
        : `The report covers the first ${r.documents.covered} of ${r.documents.total} documents.`,
    );
  return out.join(' ');
}
