// The PDF's page and its drawing (jspdf, A4 in millimetres): fonts, headings, paragraphs, tables whose
// header row repeats after a page break, and a bar chart drawn with vector primitives. Noto Sans (npm
// @expo-google-fonts/noto-sans, OFL) is embedded so Greek renders and extracts as text; jspdf writes
// only the glyphs used. What the report says, and in what order, is pdf.ts's.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { jsPDF } from 'jspdf';
import type { Lang } from './indicators.js';
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

export const PAGE_W = 210;
export const PAGE_H = 297;
export const MARGIN = 18;
const BOTTOM = PAGE_H - 22;
export const WIDTH = PAGE_W - 2 * MARGIN;
export const LINE = 4.6;
export const CHART_HEIGHT = 60;

/** An A4 document with the fonts embedded. */
export function newDocument(): jsPDF {
  const doc = new jsPDF({ unit: 'mm', format: 'a4', compress: true });
  const f = fontData();
  doc.addFileToVFS('NotoSans-Regular.ttf', f.regular);
  doc.addFont('NotoSans-Regular.ttf', FONT, 'normal');
  doc.addFileToVFS('NotoSans-Bold.ttf', f.bold);
  doc.addFont('NotoSans-Bold.ttf', FONT, 'bold');
  return doc;
}

export interface Column {
  header: string;
  width: number;
  align?: 'left' | 'right';
}

export class Writer {
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

export function barChart(w: Writer, data: { year: number; value: number }[], lang: Lang): void {
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
