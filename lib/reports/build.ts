// report_json (decisions.md "Reports"): the entity, its procurement, decisions, regulatory records,
// risk indicators and score, and a summary written from those figures. The PDF renders this object.
import { countedContractValues } from '../contract-value.js';
import { isValidAfm, normalizeAda } from '../identifiers.js';
import type { StoredDocument } from '../search/provider.js';
import type { IdentifierType } from '../identifiers.js';
import { factsOf, isEntity, partyKey, type DocumentFacts, type Entity, type Party } from './facts.js';
import { assessIndicators, riskScore, type Indicator, type Lang } from './indicators.js';
import { executiveSummary } from './summary.js';

/** Rows the report lists at most per table; totals always count every document. */
const MAX_ROWS = 500;
const TOP = 10;

export interface ContractRow {
  id: string;
  date: string;
  title: string;
  kind: string;
  value: number | null;
  buyers: string[];
  suppliers: string[];
  procedure: string | null;
  source_url: string;
}

export interface PartyTotal {
  name: string;
  afm: string | null;
  contracts: number;
  value: number;
}

export interface DocumentRow {
  id: string;
  date: string;
  title: string;
  source: string;
  source_url: string;
}

export interface Report {
  entity: { identifier: string; type: IdentifierType; names: string[]; afm: string | null; afm_valid: boolean | null; language: Lang };
  generated_at: string;
  documents: { total: number; covered: number; truncated: boolean; first_seen: string | null; last_seen: string | null };
  sections: {
    executive_summary: string;
    procurement: { contracts: ContractRow[]; payments: ContractRow[]; contract_count: number; total_value: number; totals_by_year: { year: number; contracts: number; value: number }[]; main_buyers: PartyTotal[]; main_suppliers: PartyTotal[] };
    decisions: DocumentRow[];
    regulatory: DocumentRow[];
    risk_indicators: Indicator[];
    sources: { source: string; documents: number }[];
  };
  risk_score: number;
}

export interface BuildInput {
  entity: Entity;
  documents: StoredDocument[];
  total: number;
  truncated: boolean;
  now: Date;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function rowOf(f: DocumentFacts): DocumentRow {
  return { id: f.id, date: f.published_at.slice(0, 10), title: f.title, source: f.source, source_url: f.source_url };
}

function contractRow(f: DocumentFacts): ContractRow {
  return {
    id: f.id, date: f.published_at.slice(0, 10), title: f.title, kind: f.kind, value: f.value,
    buyers: f.buyers.map((p) => p.name), suppliers: f.suppliers.map((p) => p.name), procedure: f.procedure, source_url: f.source_url,
  };
}

function topParties(contracts: DocumentFacts[], side: (f: DocumentFacts) => Party[], skip: (p: Party) => boolean): PartyTotal[] {
  const by = new Map<string, PartyTotal>();
  for (const f of contracts) {
    for (const p of side(f)) {
      if (skip(p)) continue;
      const e = by.get(partyKey(p)) ?? { name: p.name, afm: p.afm, contracts: 0, value: 0 };
      e.contracts += 1;
      e.value = round2(e.value + (f.value ?? 0));
      by.set(partyKey(p), e);
    }
  }
  return [...by.values()].sort((a, b) => b.value - a.value || b.contracts - a.contracts || a.name.localeCompare(b.name)).slice(0, TOP);
}

/**
 * Greek for a Greek entity: one whose documents are mostly Greek; with no documents, one asked by an
 * ΑΦΜ or ΑΔΑ or by a name in Greek letters.
 */
function languageOf(identifier: string, type: IdentifierType, docs: StoredDocument[]): Lang {
  if (docs.length > 0) return docs.filter((d) => d.language === 'el').length * 2 >= docs.length ? 'el' : 'en';
  return type !== 'name' || /[\u0370-\u03ff]/.test(identifier) ? 'el' : 'en';
}

export function buildReport(input: BuildInput): Report {
  const { entity } = input;
  const { identifier, type } = entity;
  const facts = input.documents.map(factsOf).sort((a, b) => b.published_at.localeCompare(a.published_at) || a.id.localeCompare(b.id));
  const lang = languageOf(identifier, type, input.documents);
  const self = (p: Party) => isEntity(p, entity);

  // The names the entity goes by: the resolver's, else the parties that are the entity.
  const own = facts.flatMap((f) => [...f.buyers, ...f.suppliers].filter(self).map((p) => p.name));
  const names = [...new Set(entity.names?.length ? entity.names : own)].slice(0, 20);

  const contracts = facts.filter((f) => f.kind === 'contract');
  // What each contract adds to the totals: the entity's definition (lib/contract-value.ts), so a
  // procurement recorded by two documents counts once, as GET /v1/entity counts it.
  const counted = countedContractValues(input.documents.map((d) => ({
    id: d.source_id,
    category: d.doc_category,
    amount: d.amount?.value ?? null,
    currency: d.amount?.currency ?? null,
    adas: (d.entities?.ada ?? []).map(normalizeAda).filter((a): a is string => a !== null),
  })));
  const countOf = (f: DocumentFacts) => counted.get(f.id) ?? 0;
  const years = new Map<number, { contracts: number; value: number }>();
  for (const f of contracts) {
    const y = years.get(f.year) ?? { contracts: 0, value: 0 };
    y.contracts += 1;
    y.value = round2(y.value + countOf(f));
    years.set(f.year, y);
  }
  const bySource = new Map<string, number>();
  for (const f of facts) bySource.set(f.source, (bySource.get(f.source) ?? 0) + 1);

  const indicators = assessIndicators(facts, entity, lang);
  const dates = facts.map((f) => f.published_at).sort();
  const report: Report = {
    entity: {
      identifier,
      type,
      names,
      afm: type === 'afm' ? identifier : null,
      afm_valid: type === 'afm' ? isValidAfm(identifier) : null,
      language: lang,
    },
    generated_at: input.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    documents: { total: input.total, covered: facts.length, truncated: input.truncated, first_seen: dates[0] ?? null, last_seen: dates.at(-1) ?? null },
    sections: {
      executive_summary: '',
      procurement: {
        contracts: contracts.slice(0, MAX_ROWS).map(contractRow),
        // Payments and amendments: what value_overrun weighs against the awards.
        payments: facts.filter((f) => f.kind === 'payment' || f.kind === 'modification').slice(0, MAX_ROWS).map(contractRow),
        contract_count: contracts.length,
        total_value: round2(contracts.reduce((s, f) => s + countOf(f), 0)),
        totals_by_year: [...years].sort((a, b) => a[0] - b[0]).map(([year, y]) => ({ year, ...y })),
        main_buyers: topParties(contracts, (f) => f.buyers, self),
        main_suppliers: topParties(contracts, (f) => f.suppliers, self),
      },
      decisions: facts.filter((f) => f.kind === 'decision').slice(0, MAX_ROWS).map(rowOf),
      regulatory: facts.filter((f) => f.kind === 'regulatory').slice(0, MAX_ROWS).map(rowOf),
      risk_indicators: indicators,
      sources: [...bySource].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([source, documents]) => ({ source, documents })),
    },
    risk_score: riskScore(indicators),
  };
  report.sections.executive_summary = executiveSummary(report);
  return report;
}
