// The report as a PDF, one function per section in the order they print: title page, summary,
// indicators with links to their evidence, procurement (a chart of yearly totals and the tables),
// decisions and regulatory records, then page numbers and a footer on every page. The words are
// pdf-text.ts's, the drawing pdf-writer.ts's.
import type { jsPDF } from 'jspdf';
import type { ContractRow, DocumentRow, Report } from './build.js';
import { PDF_TEXT, type PdfText } from './pdf-text.js';
import { barChart, CHART_HEIGHT, LINE, MARGIN, newDocument, PAGE_H, PAGE_W, WIDTH, Writer } from './pdf-writer.js';
import { formatEur } from './summary.js';

/** Evidence ids printed per indicator; report_json lists them all. */
const MAX_EVIDENCE_SHOWN = 16;

/** What every section draws with: the page, the words of the report's language, the report. */
interface Section {
  w: Writer;
  doc: jsPDF;
  t: PdfText;
  report: Report;
}

export function renderPdf(report: Report): Buffer {
  const t = PDF_TEXT[report.entity.language];
  const doc = newDocument();
  doc.setProperties({ title: `${t.title}: ${report.entity.names[0] ?? report.entity.identifier}`, creator: 'Public Data Intelligence' });
  const s: Section = { w: new Writer(doc), doc, t, report };
  titlePage(s);
  summary(s);
  indicators(s);
  procurement(s);
  documentLists(s);
  pageFooters(s);
  return Buffer.from(doc.output('arraybuffer'));
}

function titlePage({ w, doc, t, report }: Section): void {
  w.y = 80;
  w.font(24, true);
  doc.text(t.title, MARGIN, w.y);
  w.y += 16;
  w.font(16, true);
  for (const line of doc.splitTextToSize(report.entity.names[0] ?? report.entity.identifier, WIDTH) as string[]) {
    doc.text(line, MARGIN, w.y);
    w.y += 8;
  }
  w.font(12);
  w.y += 4;
  if (report.entity.afm) doc.text(`${t.afm}: ${report.entity.afm} (${report.entity.afm_valid ? t.valid : t.invalid})`, MARGIN, (w.y += 7));
  else doc.text(`${t.identifier} (${report.entity.type}): ${report.entity.identifier}`, MARGIN, (w.y += 7));
  doc.text(`${t.generated}: ${report.generated_at.slice(0, 10)}`, MARGIN, (w.y += 7));
  w.font(14, true);
  doc.text(`${t.score}: ${report.risk_score}/100`, MARGIN, (w.y += 12));
}

/** Starts the second page. */
function summary({ w, doc, t, report }: Section): void {
  doc.addPage();
  w.y = MARGIN;
  w.heading(t.summary);
  w.paragraph(report.sections.executive_summary, 11);
}

/** Each indicator: its status (flagged in red, with its weight), explanation, threshold and evidence ids, linked to their source. */
function indicators({ w, doc, t, report }: Section): void {
  const p = report.sections.procurement;
  w.heading(t.indicators);
  for (const ind of report.sections.risk_indicators) {
    w.room(20);
    w.font(10, true);
    if (ind.status === 'flagged') doc.setTextColor(170, 30, 30);
    doc.text(`${ind.name}: ${t[ind.status]}${ind.status === 'flagged' ? ` (+${ind.weight})` : ''}`, MARGIN, w.y);
    doc.setTextColor(0, 0, 0);
    w.y += LINE + 0.5;
    w.paragraph(ind.explanation, 9);
    w.y -= 1;
    w.font(8);
    doc.setTextColor(90, 90, 90);
    for (const line of doc.splitTextToSize(`${t.threshold}: ${ind.threshold}`, WIDTH) as string[]) {
      w.room(LINE);
      doc.text(line, MARGIN, w.y);
      w.y += 3.8;
    }
    doc.setTextColor(0, 0, 0);
    if (ind.evidence.length) {
      const shown = ind.evidence.slice(0, MAX_EVIDENCE_SHOWN);
      const urls = new Map([...p.contracts, ...p.payments, ...report.sections.decisions, ...report.sections.regulatory].map((r) => [r.id, r.source_url]));
      w.font(8);
      let x = MARGIN;
      w.room(LINE);
      doc.text(`${t.evidence}:`, x, w.y);
      x += doc.getTextWidth(`${t.evidence}: `);
      for (const id of shown) {
        const width = doc.getTextWidth(`${id}  `);
        if (x + width > MARGIN + WIDTH) {
          w.y += 3.8;
          w.room(LINE);
          x = MARGIN + 4;
        }
        const url = urls.get(id);
        doc.setTextColor(20, 70, 160);
        if (url) doc.textWithLink(id, x, w.y, { url });
        else doc.text(id, x, w.y);
        doc.setTextColor(0, 0, 0);
        x += width;
      }
      if (shown.length < ind.evidence.length) doc.text(`+${ind.evidence.length - shown.length} ${t.more}`, x, w.y);
      w.y += 4;
    }
    w.y += 3;
  }
}

/** The yearly totals (chart and table), the main buyers and suppliers, the contracts and the payments. */
function procurement({ w, doc, t, report }: Section): void {
  const p = report.sections.procurement;
  const lang = report.entity.language;
  // The section's heading and the chart's title stay with the chart.
  w.room(p.totals_by_year.length ? CHART_HEIGHT + 36 : 24);
  w.heading(t.procurement);
  w.font(11, true);
  doc.text(t.byYear, MARGIN, w.y);
  w.y += 6;
  barChart(w, p.totals_by_year, lang);
  w.table(
    [
      { header: t.year, width: 40 },
      { header: t.contracts, width: 50, align: 'right' },
      { header: t.value, width: WIDTH - 90, align: 'right' },
    ],
    p.totals_by_year.map((y) => [String(y.year), String(y.contracts), formatEur(y.value, lang)]),
  );
  for (const [label, list] of [
    [t.buyers, p.main_buyers],
    [t.suppliers, p.main_suppliers],
  ] as const) {
    if (list.length === 0) continue;
    w.subheading(label);
    w.table(
      [
        { header: t.name, width: 96 },
        { header: t.afm, width: 28 },
        { header: t.contracts, width: 22, align: 'right' },
        { header: t.value, width: WIDTH - 146, align: 'right' },
      ],
      list.map((b) => [b.name, b.afm ?? '—', String(b.contracts), formatEur(b.value, lang)]),
    );
  }
  w.subheading(t.contracts);
  if (p.contracts.length === 0) w.paragraph(t.none);
  else contractTable(w, t, p.contracts, lang);
  if (p.payments.length > 0) {
    w.subheading(t.payments);
    contractTable(w, t, p.payments, lang);
  }
}

/** The supplier column takes what the other contract columns leave. */
const SUPPLIER_WIDTH = WIDTH - 20 - 62 - 36 - 22;

function contractTable(w: Writer, t: PdfText, rows: ContractRow[], lang: Report['entity']['language']): void {
  w.table(
    [
      { header: t.date, width: 20 },
      { header: t.titleCol, width: 62 },
      { header: t.buyer, width: 36 },
      { header: t.supplier, width: SUPPLIER_WIDTH },
      { header: t.value, width: 22, align: 'right' },
    ],
    rows.map((c) => [c.date, c.title, c.buyers.join(', ') || '—', c.suppliers.join(', ') || '—', c.value === null ? '—' : formatEur(c.value, lang)]),
  );
}

/** The decisions and the regulatory records, each a section with its table. */
function documentLists({ w, t, report }: Section): void {
  for (const [label, rows] of [
    [t.decisions, report.sections.decisions],
    [t.regulatory, report.sections.regulatory],
  ] as [string, DocumentRow[]][]) {
    w.heading(label);
    if (rows.length === 0) w.paragraph(t.none);
    else
      w.table(
        [
          { header: t.date, width: 20 },
          { header: t.titleCol, width: 110 },
          { header: t.source, width: WIDTH - 130 },
        ],
        rows.map((r) => [r.date, r.title, r.id]),
      );
  }
}

/** Page numbers and the footer, on every page once all exist. */
function pageFooters({ w, doc, t, report }: Section): void {
  const pages = doc.getNumberOfPages();
  for (let i = 1; i <= pages; i++) {
    doc.setPage(i);
    w.font(7.5);
    doc.setTextColor(110, 110, 110);
    doc.text(`${t.footer} ${report.generated_at}`, MARGIN, PAGE_H - 10);
    doc.text(`${t.page} ${i} ${t.of} ${pages}`, PAGE_W - MARGIN, PAGE_H - 10, { align: 'right' });
    doc.setTextColor(0, 0, 0);
  }
}
