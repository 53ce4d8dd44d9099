// The dashboard's HTML template and chart: every interpolated value escaped, bars scaled to the busiest day.
import t from 'tap';
import { lastDays, usageChart } from '../../api/dashboard/chart.js';
import { Html, html } from '../../api/presenters/html.js';

t.test('when text is interpolated, then the five HTML-significant characters are escaped, in content and in attributes', async (t) => {
  const name = `<a href="x" onclick='y'>&amp;</a>`;
  t.equal(
    html`<td title="${name}">${name}</td>`.text,
    '<td title="&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;">&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;</td>',
  );
});

t.test(
  'when Html, arrays, numbers and absent values are interpolated, then Html is kept, arrays joined, numbers written and absent values dropped',
  async (t) => {
    const rows = ['<1>', '<2>'].map((v) => html`<li>${v}</li>`);
    t.equal(html`<ul>${rows}</ul>${null}${undefined}${false}${0}`.text, '<ul><li>&lt;1&gt;</li><li>&lt;2&gt;</li></ul>0');
    t.equal(html`${new Html('<b>')}`.text, '<b>');
  },
);

t.test('when 30 days end on a day, then they run oldest first across a month end', async (t) => {
  const days = lastDays('2026-03-01', 30);
  t.equal(days.length, 30);
  t.equal(days[0], '2026-01-31');
  t.equal(days[28], '2026-02-28');
  t.equal(days[29], '2026-03-01');
});

t.test('when a chart is drawn, then the busiest day fills its height and an idle day is a 1-pixel baseline', async (t) => {
  const svg = usageChart(
    ['2026-01-01', '2026-01-02', '2026-01-03'],
    new Map([
      ['2026-01-01', 10],
      ['2026-01-03', 1],
    ]),
  ).text;
  const heights = [...svg.matchAll(/height="(\d+)"><title>([\d-]+): (\d+)</g)].map((m) => [m[2], Number(m[3]), Number(m[1])]);
  t.same(heights, [
    ['2026-01-01', 10, 24],
    ['2026-01-02', 0, 1],
    ['2026-01-03', 1, 2],
  ]);
  t.match(svg, 'aria-label="11 requests in the last 3 days, at most 10 a day"');
  t.match(usageChart(['2026-01-01'], undefined).text, 'aria-label="0 requests in the last 1 days, at most 0 a day"', 'a key never used');
});
