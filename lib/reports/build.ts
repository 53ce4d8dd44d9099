// report_json (decisions.md "Reports"): the entity, its procurement, decisions, regulatory records,
// risk indicators and score, and a summary written from those figures. The PDF renders this object.
import type { EntityTotals } from '../entities.js';
import { isValidAfm } from '../identifiers.js';
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
    procurement: {
      contracts: ContractRow[];
      payments: ContractRow[];
      contract_count: number;
      total_value: number;
      totals_by_year: { year: number; contracts: number; value: number }[];
      main_buyers: PartyTotal[];
      main_suppliers: PartyTotal[];
    };
    decisions: DocumentRow[];
    regulatory: DocumentRow[];
    risk_indicators: Indicator[];
    sources: { source: string; documents: number }[];
  };
  risk_score: number;
}

export interface BuildInput {
  entity: Entity;
  /** The documents read, at most MAX_REPORT_DOCUMENTS: what the tables list and the indicators weigh. */
  documents: StoredDocument[];
  /** The entity's aggregates (lib/entities.ts): the counts, dates and value, as GET /v1/entity states them. */
  totals: EntityTotals;
  truncated: boolean;
  now: Date;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function rowOf(f: DocumentFacts): DocumentRow {
  return { id: f.id, date: f.published_at.slice(0, 10), title: f.title, source: f.source, source_url: f.source_url };
}

function contractRow(f: DocumentFacts): ContractRow {
  return {
    id: f.id,
    date: f.published_at.slice(0, 10),
    title: f.title,
    kind: f.kind,
    value: f.value,
    buyers: f.buyers.map((p) => p.name),
    suppliers: f.suppliers.map((p) => p.name),
    procedure: f.procedure,
    source_url: f.source_url,
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
  const { totals } = input;
  const indicators = assessIndicators(facts, entity, lang);
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
    documents: { total: totals.total, covered: facts.length, truncated: input.truncated, first_seen: totals.first_seen, last_seen: totals.last_seen },
    sections: {
      executive_summary: '',
      procurement: {
        contracts: contracts.slice(0, MAX_ROWS).map(contractRow),
        // Payments and amendments: what value_overrun weighs against the awards.
        payments: facts
          .filter((f) => f.kind === 'payment' || f.kind === 'modification')
          .slice(0, MAX_ROWS)
          .map(contractRow),
        // Counted over every match by the entity's one definition (lib/contract-value.ts), so they
        // agree with GET /v1/entity however many documents the report read.
        contract_count: totals.years.reduce((n, y) => n + y.contracts, 0),
        total_value: totals.total_contract_value,
        totals_by_year: totals.years,
        main_buyers: topParties(contracts, (f) => f.buyers, self),
        main_suppliers: topParties(contracts, (f) => f.suppliers, self),
      },
      decisions: facts
        .filter((f) => f.kind === 'decision')
        .slice(0, MAX_ROWS)
        .map(rowOf),
      regulatory: facts
        .filter((f) => f.kind === 'regulatory')
        .slice(0, MAX_ROWS)
        .map(rowOf),
      risk_indicators: indicators,
      sources: Object.entries(totals.sources)
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([source, documents]) => ({ source, documents })),
    },
    risk_score: riskScore(indicators),
  };
  report.sections.executive_summary = executiveSummary(report);
  return report;
}
