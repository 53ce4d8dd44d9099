// The report as a PDF (jspdf): title page, summary, indicators with links to their evidence,
// procurement tables whose headers repeat after a page break, a bar chart of yearly totals drawn with
// vector primitives, page numbers and a footer. Noto Sans (npm @expo-google-fonts/noto-sans, OFL) is
// embedded so Greek renders and extracts as text; jspdf writes only the glyphs used.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { jsPDF } from 'jspdf';
import type { Report } from './build.js';
import { formatEur } from './summary.js';

const require = createRequire(import.meta.url);
const FONT = 'NotoSans';
let fonts: { regular: string; bold: string } | null = null;

/** The TTFs as base64, read once per process. */
function fontData(): { regular: string; bold: string } {
  fonts ??= {
    regular: fs.readFileSync(require.resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf')).toString('base64'),
    bold: fs.readFileSync(require.resolve('@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf')).toString('base64'),
  };
  return fonts;
}

const PAGE_W = 210;
const PAGE_H = 297;
const MARGIN = 18;
const BOTTOM = PAGE_H - 22;
const WIDTH = PAGE_W - 2 * MARGIN;
const LINE = 4.6;
/** Evidence ids printed per indicator; report_json lists them all. */
const MAX_EVIDENCE_SHOWN = 16;
const CHART_HEIGHT = 60;

const TEXT = {
  el: {
    title: 'Έκθεση δέουσας επιμέλειας',
    entity: 'Οντότητα',
    afm: 'ΑΦΜ',
    valid: 'έγκυρος',
    invalid: 'μη έγκυρος',
    identifier: 'Αναγνωριστικό',
    generated: 'Ημερομηνία',
    score: 'Βαθμός κινδύνου',
    summary: 'Σύνοψη',
    indicators: 'Δείκτες κινδύνου',
    indicator: 'Δείκτης',
    status: 'Κατάσταση',
    evidence: 'Τεκμήρια',
    threshold: 'Όριο',
    flagged: 'ΕΝΕΡΓΟΣ',
    clear: 'χωρίς ένδειξη',
    not_assessable: 'δεν εκτιμάται',
    procurement: 'Δημόσιες συμβάσεις',
    byYear: 'Σύνολα ανά έτος',
    year: 'Έτος',
    contracts: 'Συμβάσεις',
    value: 'Αξία',
    date: 'Ημ/νία',
    titleCol: 'Τίτλος',
    buyer: 'Αναθέτουσα αρχή',
    supplier: 'Ανάδοχος',
    buyers: 'Κύριες αναθέτουσες αρχές',
    suppliers: 'Κύριοι ανάδοχοι',
    decisions: 'Αποφάσεις',
    regulatory: 'Ρυθμιστικές εγγραφές',
    page: 'Σελίδα',
    of: 'από',
    none: 'Κανένα έγγραφο.',
    footer: 'Πηγές: Διαύγεια, ΚΗΜΔΗΣ, TED, ΡΑΕ και λοιπά ανοικτά δεδομένα · Δημιουργήθηκε',
    payments: 'Πληρωμές και τροποποιήσεις',
    name: 'Επωνυμία',
    docs: 'Έγγραφα',
    source: 'Πηγή',
    more: 'ακόμη (στο report_json)',
  },
  en: {
    title: 'Due-diligence report',
    entity: 'Entity',
    afm: 'VAT (AFM)',
    valid: 'valid',
    invalid: 'check digit invalid',
    identifier: 'Identifier',
    generated: 'Date',
    score: 'Risk score',
    summary: 'Summary',
    indicators: 'Risk indicators',
    indicator: 'Indicator',
    status: 'Status',
    evidence: 'Evidence',
    threshold: 'Threshold',
    flagged: 'FLAGGED',
    clear: 'clear',
    not_assessable: 'not assessable',
    procurement: 'Public procurement',
    byYear: 'Totals by year',
    year: 'Year',
    contracts: 'Contracts',
    value: 'Value',
    date: 'Date',
    titleCol: 'Title',
    buyer: 'Buyer',
    supplier: 'Supplier',
    buyers: 'Main buyers',
    suppliers: 'Main suppliers',
    decisions: 'Decisions',
    regulatory: 'Regulatory records',
    page: 'Page',
    of: 'of',
    none: 'No documents.',
    footer: 'Sources: Diavgeia, KIMDIS, TED, RAE and other open data · Generated',
    payments: 'Payments and amendments',
    name: 'Name',
    docs: 'Documents',
    source: 'Source',
    more: 'more (in report_json)',
  },
};

interface Column {
  header: string;
  width: number;
  align?: 'left' | 'right';
}

class Writer {
  y = MARGIN;
  constructor(readonly doc: jsPDF) {}

  font(size: number, bold = false): void {
    this.doc.setFont(FONT, bold ? 'bold' : 'normal');
    this.doc.setFontSize(size);
  }

  /** Starts a new page when `height` does not fit; returns whether it did. */
  room(height: number): boolean {
    if (this.y + height <= BOTTOM) return false;
    this.doc.addPage();
    this.y = MARGIN;
    return true;
  }

  heading(text: string): void {
    this.room(16);
    this.y += 4;
    this.font(14, true);
    this.doc.text(text, MARGIN, this.y);
    this.y += 3;
    this.doc.setDrawColor(40, 70, 120);
    this.doc.setLineWidth(0.4);
    this.doc.line(MARGIN, this.y, MARGIN + WIDTH, this.y);
    this.y += 6;
  }

  /** A table's title, kept on the page with the table's first rows. */
  subheading(text: string): void {
    this.font(11, true);
    this.room(14);
    this.doc.text(text, MARGIN, this.y);
    this.y += 6;
  }

  paragraph(text: string, size = 10): void {
    this.font(size);
    for (const line of this.doc.splitTextToSize(text, WIDTH) as string[]) {
      this.room(LINE);
      this.doc.text(line, MARGIN, this.y);
      this.y += LINE;
    }
    this.y += 2;
  }

  /** A table whose header row is drawn again at the top of every page it continues on. */
  table(columns: Column[], rows: string[][]): void {
    const header = () => {
      this.font(8.5, true);
      this.doc.setFillColor(225, 232, 242);
      this.doc.rect(MARGIN, this.y - 3.6, WIDTH, 5.6, 'F');
      this.cells(
        columns,
        columns.map((c) => [c.header]),
      );
      this.y += 5.2;
    };
    this.room(12);
    header();
    this.font(8.5);
    rows.forEach((row, r) => {
      const cells = row.map((text, i) => this.doc.splitTextToSize(text, columns[i]!.width - 3) as string[]);
      const height = Math.max(...cells.map((c) => c.length)) * 3.8 + 1.4;
      if (this.room(height)) header();
      this.font(8.5);
      if (r % 2 === 1) {
        this.doc.setFillColor(246, 248, 251);
        this.doc.rect(MARGIN, this.y - 3.4, WIDTH, height, 'F');
      }
      this.cells(columns, cells);
      this.y += height;
    });
    this.y += 3;
  }

  /** One row's cells, each its lines, in the header's font or the body's: the one drawer of both. */
  private cells(columns: Column[], cells: string[][]): void {
    let x = MARGIN;
    cells.forEach((lines, i) => {
      const c = columns[i]!;
      lines.forEach((line, k) => this.doc.text(line, c.align === 'right' ? x + c.width - 1.5 : x + 1.5, this.y + k * 3.8, { align: c.align ?? 'left' }));
      x += c.width;
    });
  }
}

function barChart(w: Writer, data: { year: number; value: number }[], lang: 'el' | 'en'): void {
  if (data.length === 0) return;
  const height = CHART_HEIGHT;
  w.room(height + 14);
  const { doc } = w;
  const top = w.y;
  const left = MARGIN + 24;
  const chartW = WIDTH - 26;
  const max = Math.max(...data.map((d) => d.value), 1);
  doc.setDrawColor(120);
  doc.setLineWidth(0.2);
  doc.line(left, top, left, top + height);
  doc.line(left, top + height, left + chartW, top + height);
  w.font(7);
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    const y = top + height - (height * i) / 4;
    doc.setDrawColor(220);
    if (i > 0) doc.line(left, y, left + chartW, y);
    doc.text(formatEur(v, lang), left - 1.5, y + 1, { align: 'right' });
  }
  const slot = chartW / data.length;
  const bar = Math.min(18, slot * 0.7);
  data.forEach((d, i) => {
    const h = (height * d.value) / max;
    const x = left + i * slot + (slot - bar) / 2;
    doc.setFillColor(52, 101, 164);
    if (h > 0) doc.rect(x, top + height - h, bar, h, 'F');
    doc.text(String(d.year), x + bar / 2, top + height + 4, { align: 'center' });
  });
  w.y = top + height + 10;
}

export function renderPdf(report: Report): Buffer {
  const t = TEXT[report.entity.language];
  const doc = new jsPDF({ unit: 'mm', format: 'a4', compress: true });
  const f = fontData();
  doc.addFileToVFS('NotoSans-Regular.ttf', f.regular);
  doc.addFont('NotoSans-Regular.ttf', FONT, 'normal');
  doc.addFileToVFS('NotoSans-Bold.ttf', f.bold);
  doc.addFont('NotoSans-Bold.ttf', FONT, 'bold');
  doc.setProperties({ title: `${t.title}: ${report.entity.names[0] ?? report.entity.identifier}`, creator: 'Public Data Intelligence' });
  const w = new Writer(doc);
  const p = report.sections.procurement;

  // Title page.
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

  doc.addPage();
  w.y = MARGIN;
  w.heading(t.summary);
  w.paragraph(report.sections.executive_summary, 11);

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

  // The section's heading and the chart's title stay with the chart.
  w.room(p.totals_by_year.length ? CHART_HEIGHT + 36 : 24);
  w.heading(t.procurement);
  w.font(11, true);
  doc.text(t.byYear, MARGIN, w.y);
  w.y += 6;
  barChart(w, p.totals_by_year, report.entity.language);
  w.table(
    [
      { header: t.year, width: 40 },
      { header: t.contracts, width: 50, align: 'right' },
      { header: t.value, width: WIDTH - 90, align: 'right' },
    ],
    p.totals_by_year.map((y) => [String(y.year), String(y.contracts), formatEur(y.value, report.entity.language)]),
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
      list.map((b) => [b.name, b.afm ?? '—', String(b.contracts), formatEur(b.value, report.entity.language)]),
    );
  }
  w.subheading(t.contracts);
  const contractTable = (rows: typeof p.contracts) =>
    w.table(
      [
        { header: t.date, width: 20 },
        { header: t.titleCol, width: 62 },
        { header: t.buyer, width: 36 },
        { header: t.supplier, width: braceWidth() },
        { header: t.value, width: 22, align: 'right' },
      ],
      rows.map((c) => [
        c.date,
        c.title,
        c.buyers.join(', ') || '—',
        c.suppliers.join(', ') || '—',
        c.value === null ? '—' : formatEur(c.value, report.entity.language),
      ]),
    );
  if (p.contracts.length === 0) w.paragraph(t.none);
  else contractTable(p.contracts);
  if (p.payments.length > 0) {
    w.subheading(t.payments);
    contractTable(p.payments);
  }
  for (const [label, rows] of [
    [t.decisions, report.sections.decisions],
    [t.regulatory, report.sections.regulatory],
  ] as const) {
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

  // Page numbers and the footer, on every page once all exist.
  const pages = doc.getNumberOfPages();
  for (let i = 1; i <= pages; i++) {
    doc.setPage(i);
    w.font(7.5);
    doc.setTextColor(110, 110, 110);
    doc.text(`${t.footer} ${report.generated_at}`, MARGIN, PAGE_H - 10);
    doc.text(`${t.page} ${i} ${t.of} ${pages}`, PAGE_W - MARGIN, PAGE_H - 10, { align: 'right' });
    doc.setTextColor(0, 0, 0);
  }
  return Buffer.from(doc.output('arraybuffer'));
}

/** The supplier column takes what the other contract columns leave. */
function braceWidth(): number {
  return WIDTH - 20 - 62 - 36 - 22;
}
