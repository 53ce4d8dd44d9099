// The page's language: its labels (the JSON block the server wrote, api/explore/strings.ts) and how
// numbers, amounts, dates and sizes are written in it.

export const LANG = document.body.dataset.lang === 'el' ? 'el' : 'en';
export const L = JSON.parse(document.getElementById('labels').textContent);

const LOCALE = LANG === 'el' ? 'el-GR' : 'en-GB';
const integer = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });
const euro = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
const euroShort = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'EUR', notation: 'compact', maximumFractionDigits: 1 });
const share = new Intl.NumberFormat(LOCALE, { style: 'percent', maximumFractionDigits: 1 });
const decimal = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 2 });

/** A label with its `{name}` placeholders filled. */
export function fmt(template, values = {}) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

export const formatCount = (n) => integer.format(n);
export const formatEuro = (n) => (n === null || n === undefined ? '—' : euro.format(n));
/** An amount in a few characters (€11M), for a chart's labels. */
export const formatEuroShort = (n) => (n === null || n === undefined ? '—' : euroShort.format(n));
export const formatShare = (n) => (n === null || n === undefined ? '—' : share.format(n));
export const formatDecimal = (n) => (n === null || n === undefined ? '—' : decimal.format(n));
/** An ISO date-time's UTC day, as the API's dates are UTC. */
export const formatDay = (iso) => (iso ? iso.slice(0, 10) : '—');

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${decimal.format(bytes / 1024)} KB`;
  return `${decimal.format(bytes / 1024 / 1024)} MB`;
}

/** A bucket's or a counterparty's name in the page's language: the Greek label on a Greek page when there is one. */
export function bucketLabel(bucket) {
  return (LANG === 'el' && bucket.label_el) || bucket.label || bucket.key;
}
