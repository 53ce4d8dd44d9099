// The entity view: GET /v1/entity for an ΑΦΜ, a name or an ΑΔΑ (its totals, counterparties and
// documents), its contract value by year from GET /v1/aggregate?party=<its ΑΦΜ>&group_by=year, the
// documents on a timeline, and a due-diligence report requested, awaited and linked as a PDF.
import { callApi, fetchFile, problemText } from './api.js';
import { barChart, columnChart, timeline } from './charts.js';
import { el, originalLink } from './dom.js';
import { fmt, formatCount, formatDay, formatEuro, formatEuroShort, formatSize, L } from './text.js';
import { ui } from './ui.js';
import { pager } from './view-search.js';

const MATCHES = 50;
const COUNTERPARTIES = 10;
/** A report is polled after 0.5 s, then each wait doubles up to 4 s: each poll is a request of the quota. */
const FIRST_POLL_MS = 500;
const LONGEST_POLL_MS = 4_000;

/** The kind the API would read the identifier as: 9 digits an ΑΦΜ, a decision id's shape an ΑΔΑ, else a name. */
function detectType(id) {
  if (/^(?:EL|GR)?\d{9}$/i.test(id.replace(/[\s.-]/g, ''))) return 'afm';
  if (/^[0-9A-ZΑ-Ω]{4,}-[0-9A-ZΑ-Ω]{3}$/iu.test(id) && /\d/.test(id)) return 'ada';
  return 'name';
}

function totals(entity) {
  const sources = Object.entries(entity.sources)
    .map(([source, n]) => `${source} ${formatCount(n)}`)
    .join(' · ');
  const row = (key, value) => [el('dt', {}, L[key]), el('dd', {}, value)];
  return el(
    'dl',
    { class: 'totals' },
    row('afm', entity.afm.length ? entity.afm.join(', ') : '—'),
    row('documents', formatCount(entity.total)),
    row('sources', sources || '—'),
    row('firstSeen', formatDay(entity.first_seen)),
    row('lastSeen', formatDay(entity.last_seen)),
    row('contractValue', formatEuro(entity.total_contract_value)),
    entity.names.length > 1 ? row('names', entity.names.join(' · ')) : null,
  );
}

function yearsChart(afm, aggregate) {
  if (aggregate === null) return el('p', { id: 'chart-years', class: 'chart' }, L.byYearNone);
  const items = [...aggregate.buckets].sort((a, b) => (a.key < b.key ? -1 : 1)).map((b) => ({ key: b.key, label: b.key, value: b.value_sum }));
  return columnChart({
    id: 'chart-years',
    caption: fmt(L.byYear, { afm }),
    items,
    format: formatEuro,
    short: formatEuroShort,
    keyHeading: L.year,
    valueHeading: L.value,
  });
}

function counterpartiesChart(entity) {
  const top = entity.counterparties.slice(0, COUNTERPARTIES);
  if (top.length === 0) return el('p', { id: 'chart-counterparties', class: 'chart' }, L.noCounterparties);
  const items = top.map((c) => ({
    key: `${c.role}:${c.afm ?? c.name}`,
    label: `${c.name ?? c.afm} (${L[`role_${c.role}`]})`,
    value: c.documents,
    href: c.afm ? ui.href('entity', { id: c.afm, type: 'afm' }) : ui.href('entity', { id: c.name, type: 'name' }),
  }));
  return barChart({ id: 'chart-counterparties', caption: L.counterparties, items, format: formatCount, keyHeading: L.name, valueHeading: L.documents });
}

function documents(params, entity) {
  if (entity.matches.length === 0) return null;
  const shown = fmt(L.timelineShown, { shown: formatCount(entity.matches.length), total: formatCount(entity.total) });
  const rows = [...entity.matches]
    .sort((a, b) => (a.published_at < b.published_at ? 1 : -1))
    .map((d) =>
      el(
        'tr',
        {},
        el('td', {}, formatDay(d.published_at)),
        el('td', {}, originalLink(d.source_url, d.title, fmt(L.originalOf, { title: d.title }))),
        el('td', {}, d.source),
        el('td', {}, d.doc_category),
      ),
    );
  return el(
    'section',
    { class: 'documents' },
    el('h2', {}, L.timeline),
    timeline({ id: 'timeline', caption: shown, docs: entity.matches }),
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        {},
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            [L.date, L.title, L.source, L.category].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el('tbody', {}, rows),
      ),
    ),
    pager('entity', params, entity.total, MATCHES, Number(params.offset ?? 0)),
  );
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** POST /v1/reports, then its status until it is completed or failed, then its PDF as a link. */
async function requestReport(identifier, type, button, status) {
  button.disabled = true;
  status.replaceChildren(L.reportPending);
  try {
    const created = await callApi({ method: 'POST', path: '/v1/reports', body: { entity_identifier: identifier, identifier_type: type } });
    let report = created;
    for (let delay = FIRST_POLL_MS; report.status === 'pending'; delay = Math.min(delay * 2, LONGEST_POLL_MS)) {
      await wait(delay);
      report = await callApi({ path: `/v1/reports/${encodeURIComponent(created.id)}` });
    }
    if (report.status !== 'completed') {
      status.replaceChildren(fmt(L.reportFailed, { why: report.error_message ?? report.status }));
      return;
    }
    const pdf = await fetchFile({ path: `/v1/reports/${encodeURIComponent(created.id)}/pdf` }, `report-${created.id}.pdf`);
    pdf.link.id = 'report-pdf';
    pdf.link.textContent = fmt(L.reportReady, { size: formatSize(pdf.size) });
    status.replaceChildren(pdf.link);
  } catch (err) {
    status.replaceChildren(problemText(err));
  } finally {
    button.disabled = false;
  }
}

function reportSection(identifier, type) {
  const button = el('button', { type: 'button', id: 'request-report' }, L.requestReport);
  const status = el('p', { role: 'status', class: 'report-status' });
  button.addEventListener('click', () => requestReport(identifier, type, button, status));
  return el('section', { class: 'report' }, el('h2', {}, L.report), button, status);
}

export async function showEntity(params) {
  const identifier = params.id;
  if (!identifier) return ui.status(L.typeIdentifier);
  const type = params.type ?? detectType(identifier);
  const entity = await callApi({ path: `/v1/entity/${encodeURIComponent(identifier)}`, params: { type, limit: MATCHES, offset: params.offset ?? 0 } });
  // The chart by year is of one ΑΦΜ: the one looked up, a name's first, or an ΑΔΑ's issuer.
  const afm = entity.afm[0] ?? null;
  const years = afm === null ? null : await callApi({ path: '/v1/aggregate', params: { party: afm, group_by: 'year', limit: 100 } });
  ui.status(entity.total === 0 ? L.noResults : '');
  ui.results.append(
    el('h2', { id: 'entity-name' }, entity.names[0] ?? identifier),
    totals(entity),
    reportSection(identifier, type),
    el('div', { class: 'charts' }, yearsChart(afm, years), counterpartiesChart(entity)),
    documents(params, entity),
  );
}
