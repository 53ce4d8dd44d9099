// The search view: GET /v1/search with the form's words and filters and facets over the whole match;
// results with their marked snippets and a link to each original, the facets as counts that apply
// themselves as filters, and pages to the last.
import { callApi } from './api.js';
import { el, originalLink, snippetNodes } from './dom.js';
import { bucketLabel, fmt, formatCount, formatDay, L } from './text.js';
import { ui } from './ui.js';

const FACETS = ['source', 'year', 'doc_category', 'cpv_division', 'buyer', 'supplier'];
const FACET_LIMIT = 8;
const DEFAULT_LIMIT = '20';
/** Where explore.css puts the facets beside the results. */
const WIDE = '(min-width: 52rem)';

/** The filters a facet's bucket stands for: a year is its first to its last day. */
function facetFilters(grouping, key) {
  switch (grouping) {
    case 'year':
      return { since: `${key}-01-01`, until: `${key}-12-31` };
    case 'cpv_division':
      return { cpv: key };
    default:
      return { [grouping]: key };
  }
}

function isApplied(params, filters) {
  return Object.entries(filters).every(([name, value]) => params[name] === value);
}

function facetList(params, grouping, buckets) {
  const items = buckets.map((bucket) => {
    const filters = facetFilters(grouping, bucket.key);
    const name = bucketLabel(bucket);
    const applied = isApplied(params, filters);
    const link = el(
      'a',
      {
        href: ui.href('search', { ...params, ...filters, offset: null }),
        'aria-label': fmt(L.facetApply, { label: name, count: bucket.documents }),
        'aria-current': applied ? 'true' : null,
        'data-facet': grouping,
        'data-key': bucket.key,
      },
      el('span', { class: 'facet-label' }, name),
      ' ',
      el('span', { class: 'count' }, formatCount(bucket.documents)),
    );
    const profile =
      grouping === 'buyer' || grouping === 'supplier'
        ? el('a', { href: ui.href('entity', { id: bucket.key, type: 'afm' }), class: 'profile', 'aria-label': fmt(L.profileOf, { name }) }, L.profile)
        : null;
    return el('li', {}, link, profile);
  });
  return el('section', { class: 'facet' }, el('h3', {}, L[`g_${grouping}`]), el('ul', {}, items));
}

/** The filters in the address, each with a link that removes it. */
function appliedFilters(params) {
  const names = ui.filterNames().filter((name) => params[name] !== undefined);
  if (names.length === 0) return null;
  return el(
    'section',
    { class: 'applied' },
    el('h3', {}, L.applied),
    el(
      'ul',
      {},
      names.map((name) => {
        const label = document.querySelector(`label[for="f-${name}"]`)?.textContent ?? name;
        return el(
          'li',
          {},
          el(
            'a',
            { href: ui.href('search', { ...params, [name]: null, offset: null }), 'aria-label': fmt(L.remove, { name: `${label}: ${params[name]}` }) },
            `${label}: ${params[name]} ✕`,
          ),
        );
      }),
    ),
  );
}

/** The facets under a disclosure, open beside the results on a wide screen, closed above them on a phone. */
function facetsBox(facets) {
  if (facets.length === 0) return null;
  return el('details', { open: matchMedia(WIDE).matches }, el('summary', {}, L.facets), facets);
}

function resultItem(doc) {
  return el(
    'li',
    { class: 'result' },
    el('h3', {}, originalLink(doc.source_url, doc.title, fmt(L.originalOf, { title: doc.title }))),
    el('p', { class: 'meta' }, `${doc.source} · ${doc.doc_category} · ${formatDay(doc.published_at)} · `, el('code', {}, doc.source_id)),
    doc.snippet ? el('p', { class: 'snippet' }, snippetNodes(doc.snippet)) : null,
  );
}

/** First, previous, next and last page links around "page p of n". */
export function pager(view, params, total, limit, offset) {
  const pages = Math.max(1, Math.ceil(total / limit));
  const page = Math.floor(offset / limit) + 1;
  if (pages === 1) return null;
  const link = (key, target, rel) =>
    target === null
      ? el('span', { class: 'disabled', 'aria-disabled': 'true' }, L[key])
      : el('a', { href: ui.href(view, { ...params, offset: target || null }), rel, 'data-page': key }, L[key]);
  return el(
    'nav',
    { class: 'pager', 'aria-label': L.pages },
    link('first', page > 1 ? 0 : null),
    link('previous', page > 1 ? offset - limit : null, 'prev'),
    el('span', { class: 'page' }, fmt(L.pageOf, { page: formatCount(page), pages: formatCount(pages) })),
    link('next', page < pages ? offset + limit : null, 'next'),
    link('last', page < pages ? (pages - 1) * limit : null),
  );
}

export async function showSearch(params) {
  if (!params.q) return ui.status(L.typeQuery);
  const limit = Number(params.limit ?? DEFAULT_LIMIT);
  const offset = Number(params.offset ?? 0);
  const answer = await callApi({
    path: '/v1/search',
    params: { ...params, limit: params.limit ?? DEFAULT_LIMIT, facets: FACETS.join(','), facet_limit: FACET_LIMIT },
  });
  ui.status(answer.total === 1 ? L.oneResult : fmt(L.results, { total: formatCount(answer.total) }));
  ui.results.dataset.total = answer.total;
  const facets = FACETS.filter((g) => answer.facets?.[g]?.length > 0).map((g) => facetList(params, g, answer.facets[g]));
  ui.results.append(
    el(
      'div',
      { class: 'search-layout' },
      el('aside', { class: 'facets', 'aria-label': L.facets }, appliedFilters(params), facetsBox(facets)),
      el(
        'div',
        { class: 'hits' },
        answer.results.length === 0 ? el('p', {}, L.noResults) : el('ol', { class: 'results', start: offset + 1 }, answer.results.map(resultItem)),
        pager('search', params, answer.total, limit, offset),
      ),
    ),
  );
}
