// The ask panel: POST /v1/ask with the question and the form's filters; the answer (generated where
// the server has PDI_LLM_URL, else the API's placeholder) with its [n] citations linked to the sources,
// and each source with its passage and its original to download.
import { callApi, fetchFile, problemText } from './api.js';
import { el } from './dom.js';
import { fmt, formatDecimal, L } from './text.js';
import { ui } from './ui.js';

const DEFAULT_LIMIT = '5';
/** Filters that a JSON body carries as numbers, or as `true` (docs/api.md "Filters"). */
const NUMBERS = new Set(['amount_min', 'amount_max']);

function filtersOf(params) {
  const filters = {};
  for (const name of ui.filterNames()) {
    const value = params[name];
    if (value === undefined) continue;
    filters[name] = name === 'single_bid' ? value === 'true' : NUMBERS.has(name) ? Number(value) : value;
  }
  return filters;
}

/** The passages of `context_preview`, by their source's number: `[n] passage`, separated by blank lines. */
function passages(preview) {
  const byNumber = new Map();
  for (const part of preview.split(/\n\n(?=\[\d+\] )/)) {
    const m = /^\[(\d+)\] ([\s\S]*)$/.exec(part);
    if (m) byNumber.set(Number(m[1]), m[2]);
  }
  return byNumber;
}

/** The answer's text with each [n] a link to source n. */
function answerNodes(answer, count) {
  return answer.split(/(\[\d+\])/).map((part) => {
    const n = /^\[(\d+)\]$/.exec(part)?.[1];
    return n && Number(n) >= 1 && Number(n) <= count ? el('a', { href: `#source-${n}` }, part) : part;
  });
}

function downloadButton(source) {
  const button = el('button', { type: 'button', class: 'download' }, L.download);
  const status = el('span', { role: 'status' });
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const file = await fetchFile({ path: `/v1/documents/${encodeURIComponent(source.source_id)}/content` }, source.source_id.replace(/[^\w.-]/g, '_'));
      file.link.textContent = file.name;
      status.replaceChildren(' ', file.link);
      file.link.click();
    } catch (err) {
      status.replaceChildren(' ', problemText(err));
    } finally {
      button.disabled = false;
    }
  });
  return el('p', {}, button, status);
}

export async function showAsk(params) {
  if (!params.question) return ui.status(L.typeQuestion);
  const filters = filtersOf(params);
  const body = { question: params.question, limit: Number(params.limit ?? DEFAULT_LIMIT) };
  if (Object.keys(filters).length > 0) body.filters = filters;
  const answer = await callApi({ method: 'POST', path: '/v1/ask', body });
  ui.status('');
  const byNumber = passages(answer.context_preview);
  ui.results.append(
    el('section', { class: 'answer' }, el('h2', {}, L.answer), el('p', { id: 'answer' }, answerNodes(answer.answer, answer.sources.length))),
    el('h2', {}, L.sources),
    answer.sources.length === 0
      ? el('p', {}, L.noSources)
      : el(
          'ol',
          { class: 'sources' },
          answer.sources.map((s, i) =>
            el(
              'li',
              { id: `source-${i + 1}`, class: 'source' },
              el('h3', {}, s.title),
              el('p', { class: 'meta' }, `${s.source} · ${fmt(L.relevance, { value: formatDecimal(s.relevance) })} · `, el('code', {}, s.source_id)),
              byNumber.has(i + 1) ? el('blockquote', {}, byNumber.get(i + 1)) : null,
              downloadButton(s),
            ),
          ),
        ),
  );
}
