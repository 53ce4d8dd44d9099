// A procedure → one `procedure` document: what it is, who owns it, who may apply, which documents and fees,
// the steps, and its legal basis. Rules that cite a Diavgeia decision (`rule_ada`) put that ADA in
// entities.ada, which links the procedure to the decision in entity search and monitoring.
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { extractIdentifiers, isAda, normalizeAda } from '../../../lib/identifiers.js';
import { qualityScore } from '../../quality.js';
import { decodeEntities } from '../text.js';
import { MalformedRecordError } from '../types.js';
import { partyOf, partyList } from '../parties.js';
import type { MitosRecord, MitosRule, MitosServiceExtended, Text } from './types.js';

/** Plain text of a string or `{el,en}` map (Greek first); HTML tags and common entities removed. */
export function text(v: Text | unknown): string {
  let s = '';
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number') s = String(v);
  else if (v && typeof v === 'object' && !Array.isArray(v)) {
    const m = v as { el?: unknown; en?: unknown; title?: unknown };
    s = typeof m.el === 'string' && m.el.trim() ? m.el : typeof m.en === 'string' ? m.en : m.title !== undefined ? text(m.title) : '';
  }
  return decodeEntities(s.replace(/<br\s*\/?>|<\/p>|<\/li>/gi, '\n').replace(/<[^>]+>/g, ' '))
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `last_updated` as ISO 8601 UTC seconds; naive times are read as UTC; epoch seconds or ms accepted. */
export function toIsoUtc(v: unknown): string | null {
  let d: Date | null = null;
  if (typeof v === 'number' && Number.isFinite(v)) d = new Date(v < 1e12 ? v * 1000 : v);
  else if (typeof v === 'string') {
    const s = v.trim();
    if (/^\d{10,13}$/.test(s)) return toIsoUtc(Number(s));
    const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(s);
    if (!m) return null;
    const time = m[2] ? (m[2].length === 5 ? `${m[2]}:00` : m[2]) : '00:00:00';
    const zone = m[4] ? (m[4].toUpperCase() === 'Z' ? 'Z' : m[4].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')) : 'Z';
    d = new Date(`${m[1]}T${time}${zone}`);
  }
  if (!d || Number.isNaN(d.getTime())) return null;
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function list(items: unknown): Array<Record<string, unknown>> {
  return Array.isArray(items) ? items.filter((i): i is Record<string, unknown> => !!i && typeof i === 'object') : [];
}

function join(parts: Array<string | null | undefined>, sep: string): string {
  return parts
    .map((p) => (p ?? '').trim())
    .filter(Boolean)
    .join(sep);
}

function ruleLine(r: MitosRule, ada: string | null): string {
  const number = join([text(r.rule_decision_number), text(r.rule_decision_year)], '/');
  const head = join([text(r.rule_type), number], ' ');
  const article = text(r.rule_article);
  const gazette = join([text(r.rule_gazette_doc_issue), text(r.rule_gazette_doc_number)], ' ');
  return join(
    [
      join([head, article ? `άρθρο ${article}` : '', gazette ? `(ΦΕΚ ${gazette})` : ''], ' '),
      text(r.rule_description),
      ada ? `ΑΔΑ ${ada}` : '',
      typeof r.rule_url === 'string' ? r.rule_url.trim() : '',
    ],
    ' · ',
  );
}

function section(heading: string, lines: string[]): string[] {
  const kept = lines.filter((l) => l.trim() !== '');
  return kept.length > 0 ? ['', `${heading}:`, ...kept] : [];
}

function firstSentences(s: string, max = 300): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const stop = cut.lastIndexOf('. ');
  return stop > 80 ? cut.slice(0, stop + 1) : `${cut.replace(/\s+\S*$/, '')}…`;
}

export function normalizeMitos(input: unknown): NormalizedDocument {
  const rec = input as Partial<MitosRecord> | null;
  if (!rec || (rec.kind !== 'service_extended' && rec.kind !== 'service_summary') || !rec.service) {
    throw new MalformedRecordError('mitos: not a service record');
  }
  const service = rec.service as MitosServiceExtended;
  const id = String(service.id ?? '').trim();
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new MalformedRecordError(`mitos: service id ${JSON.stringify(service.id)} is not usable`);
  const meta = rec.kind === 'service_extended' ? (service.metadata ?? {}) : {};
  const process = meta.process ?? {};
  const title = text(service.title) || text(process.official_title);
  if (!title) throw new MalformedRecordError(`mitos: service ${id} has no title`);
  const published = toIsoUtc(service.last_updated);
  if (!published) throw new MalformedRecordError(`mitos: service ${id} has no usable last_updated (${JSON.stringify(service.last_updated)})`);

  const owner = text(process.org_owner?.title);
  const description = text(process.description);
  const officialTitle = text(process.official_title);

  const rules = (meta.process_rules ?? []).filter((r): r is MitosRule => !!r && typeof r === 'object');
  const ruleAdas: string[] = [];
  const ruleLines = rules.map((r) => {
    const raw = typeof r.rule_ada === 'string' ? r.rule_ada.trim() : '';
    const ada = raw ? normalizeAda(raw) : null;
    const valid = ada && isAda(ada) ? ada : null;
    if (valid) ruleAdas.push(valid);
    return `- ${ruleLine(r, valid ?? (raw || null))}`;
  });

  const lines = [
    title,
    ...(officialTitle && officialTitle !== title ? [`Επίσημος τίτλος: ${officialTitle}`] : []),
    ...(owner ? [`Αρμόδιος φορέας: ${owner}`] : []),
    ...(description ? ['', description] : []),
    ...section(
      'Προϋποθέσεις',
      list(meta.process_conditions).map((c) => {
        const line = join([text(c.conditions_name), text(c.conditions_type) ? `(${text(c.conditions_type)})` : ''], ' ');
        return line ? `- ${line}` : '';
      }),
    ),
    ...section(
      'Δικαιολογητικά',
      list(meta.process_evidences).map((e) => {
        const type = text((e.evidence_type as { title?: Text } | undefined)?.title);
        const line = join([type, text(e.evidence_description), text(e.evidence_note)], ': ');
        return line ? `- ${line}` : '';
      }),
    ),
    ...section(
      'Κόστος',
      list(meta.process_evidences_cost).map((c) => {
        const min = c.evidence_cost_min ?? null;
        const max = c.evidence_cost_max ?? null;
        const range = min !== null && max !== null && String(min) !== String(max) ? `${min}–${max} €` : min !== null || max !== null ? `${min ?? max} €` : '';
        const line = join([text(c.evidence_cost_type), text(c.evidence_cost_description), range], ': ');
        return line ? `- ${line}` : '';
      }),
    ),
    ...section(
      'Βήματα',
      list(meta.process_steps).map((s, i) => {
        const line = join([text(s.step_title), text(s.step_description)], ': ');
        return line ? `${i + 1}. ${line}` : '';
      }),
    ),
    ...section(
      'Ψηφιακά βήματα',
      list(meta.process_steps_digital).map((s, i) => {
        const line = join([text(s.step_digital_title), text(s.step_digital_description), text(s.step_digital_url)], ': ');
        return line ? `${i + 1}. ${line}` : '';
      }),
    ),
    ...section(
      'Ψηφιακή υποβολή',
      list(meta.process_provision_digital_locations).map((l) => {
        const line = join([text(l.provision_digital_location_title), text(l.provision_digital_location_url)], ': ');
        return line ? `- ${line}` : '';
      }),
    ),
    ...section('Νομικό πλαίσιο', ruleLines),
    ...section(
      'Γεγονότα ζωής',
      (Array.isArray(process.life_events) ? process.life_events : []).map((e) => (text(e) ? `- ${text(e)}` : '')),
    ),
    ...section(
      'Χρήσιμοι σύνδεσμοι',
      list(meta.process_useful_links).map((l) => {
        const line = join([text(l.useful_link_title), text(l.useful_link_url)], ': ');
        return line ? `- ${line}` : '';
      }),
    ),
  ];
  const content = lines.join('\n').replace(/\n{3,}/g, '\n\n');
  const found = extractIdentifiers(content);

  const doc: Omit<NormalizedDocument, 'quality_score'> = {
    source_id: `mitos:${id}`,
    source: 'mitos',
    country: 'GR',
    title,
    doc_type: 'procedure',
    doc_category: 'administrative_procedure',
    published_at: published,
    source_url: `https://id.mitos.gov.gr/${id}`,
    language: 'el',
    content,
    summary: firstSentences(description || title),
    entities: {
      afm: found.afm,
      ada: [...new Set([...ruleAdas, ...found.ada])],
      names: owner ? [owner] : [],
    },
    parties: partyList([partyOf('issuer', owner, null)]),
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: null,
  };
  return { ...doc, quality_score: qualityScore(doc) };
}
