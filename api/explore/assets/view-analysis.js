// The analysis view: GET /v1/aggregate of the form's words and filters by one grouping, as a chart
// and a table in the API's order (by value or by documents), and the CSV export of the same documents
// (GET /v1/export) a click away.
import { callApi, fetchFile, problemText } from './api.js';
import { barChart } from './charts.js';
import { el } from './dom.js';
import { bucketLabel, fmt, formatCount, formatDecimal, formatEuro, formatShare, formatSize, L } from './text.js';
import { ui } from './ui.js';

const ENTITY_GROUPINGS = new Set(['buyer', 'supplier']);

/** A row's cells after its name: the metrics of docs/api.md "Aggregates". */
function metricCells(m) {
  return [
    formatCount(m.documents),
    formatCount(m.contracts),
    formatEuro(m.value_sum),
    formatEuro(m.value_median),
    formatDecimal(m.tenders_mean),
    formatShare(m.single_bid_share),
  ].map((text) => el('td', { class: 'num' }, text));
}

function table(answer) {
  const headings = [L.rank, L.name, L.documents, L.contracts, L.value, L.median, L.tendersMean, L.singleBidShare];
  const rows = answer.buckets.map((b, i) => {
    const name = bucketLabel(b);
    const cell = ENTITY_GROUPINGS.has(answer.group_by)
      ? el('a', { href: ui.href('entity', { id: b.key, type: 'afm' }), 'aria-label': fmt(L.profileOf, { name }) }, name)
      : name;
    return el(
      'tr',
      { 'data-key': b.key },
      el('td', { class: 'num' }, formatCount(i + 1)),
      el('th', { scope: 'row' }, cell, name === b.key ? null : el('small', {}, ` ${b.key}`)),
      metricCells(b),
    );
  });
  const other = answer.other === null ? null : el('tr', { class: 'other' }, el('td', {}), el('th', { scope: 'row' }, L.other), metricCells(answer.other));
  return el(
    'div',
    { class: 'scroll' },
    el(
      'table',
      { id: 'aggregate-table' },
      el('caption', {}, fmt(answer.order_by === 'value' ? L.chartByValue : L.chartByDocuments, { group: L[`g_${answer.group_by}`] })),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          headings.map((h, i) => el('th', { scope: 'col', class: i === 1 ? null : 'num' }, h)),
        ),
      ),
      el('tbody', {}, rows, other),
      el('tfoot', {}, el('tr', { class: 'totals' }, el('td', {}), el('th', { scope: 'row' }, L.totals), metricCells(answer.totals))),
    ),
  );
}

function chart(answer) {
  const byValue = answer.order_by === 'value';
  const items = answer.buckets.map((b) => ({
    key: b.key,
    label: bucketLabel(b),
    value: byValue ? b.value_sum : b.documents,
    href: ENTITY_GROUPINGS.has(answer.group_by) ? ui.href('entity', { id: b.key, type: 'afm' }) : null,
  }));
  const caption = fmt(byValue ? L.chartByValue : L.chartByDocuments, { group: L[`g_${answer.group_by}`] });
  return barChart({
    id: 'aggregate-chart',
    caption,
    items,
    format: byValue ? formatEuro : formatCount,
    keyHeading: L[`g_${answer.group_by}`],
    valueHeading: byValue ? L.value : L.documents,
  });
}

/** The export button: the same words and filters as CSV, saved by the browser once it has arrived. */
function exportButton(filters) {
  const button = el('button', { type: 'button', id: 'export-csv' }, L.exportCsv);
  const status = el('span', { role: 'status', class: 'export-status' });
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.replaceChildren(L.exporting);
    try {
      const file = await fetchFile({ path: '/v1/export', params: { format: 'csv', ...filters } }, 'export.csv');
      file.link.textContent = fmt(L.exported, { file: file.name, size: formatSize(file.size) });
      status.replaceChildren(file.link);
      file.link.click();
    } catch (err) {
      status.replaceChildren(problemText(err));
    } finally {
      button.disabled = false;
    }
  });
  return el('p', { class: 'export' }, button, ' ', status);
}

export async function showAnalysis(params) {
  const { group_by = 'buyer', order_by = 'value', limit = '20', ...filters } = params;
  const answer = await callApi({ path: '/v1/aggregate', params: { ...filters, group_by, order_by, limit } });
  const t = answer.totals;
  ui.status(`${formatCount(t.documents)} ${L.documents.toLowerCase()} · ${formatCount(t.contracts)} ${L.contracts.toLowerCase()} · ${formatEuro(t.value_sum)}`);
  ui.results.append(exportButton(filters), chart(answer), table(answer));
}
