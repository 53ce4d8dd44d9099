// The explore page's views, rendered on the server: the frame (navigation, language switch, sign-in)
// and each view's form, its controls filled from the page's address. The data comes from the API,
// called by the page's script (assets/) with the key the browser keeps, so the server renders no data
// and needs no key. A control's name is the API parameter it sets: the script sends the address's
// parameters on as they are.
import { GROUPINGS, type Grouping } from '../../index-mappings/analysis.js';
import { SOURCE_NAMES } from '../../index-mappings/sources.js';
import { SOURCES } from '../../lib/sources.js';
import { Html, html } from '../presenters/html.js';
import { groupingLabel, label, labelsIn, LANGS, type Lang, type StringKey } from './strings.js';

export const VIEWS = ['search', 'entity', 'analysis', 'ask'] as const;
export type View = (typeof VIEWS)[number];

export const VIEW_PATHS: Record<View, string> = { search: '/explore', entity: '/explore/entity', analysis: '/explore/analysis', ask: '/explore/ask' };

/**
 * The query-translation opt-in of GET /v1/search (an English query also finds the Greek documents that
 * hold its translation), sent `true` by a checkbox of the search form, ticked by default: a person
 * searching in English wants the Greek documents too.
 */
export const SEARCH_TRANSLATE_PARAM = 'translate';

/** The analysis view's groupings: the issue's four first, then the rest the API takes. */
const ANALYSIS_GROUPINGS: Grouping[] = [
  'buyer',
  'supplier',
  'cpv_division',
  'year',
  ...GROUPINGS.filter((g) => !['buyer', 'supplier', 'cpv_division', 'year'].includes(g)),
];
const PER_PAGE = ['10', '20', '50', '100'];
const DOC_CATEGORIES = ['award', 'contract', 'tender_notice', 'commitment', 'expenditure_approval', 'payment', 'payment_warrant', 'licence', 'other'];
/** Filters shown at once; the others are under "More filters", opened when one of them has a value. */
const MAIN_FILTERS = ['source', 'since', 'until'];
const MORE_FILTERS = ['buyer', 'supplier', 'party', 'cpv', 'amount_min', 'amount_max', 'procedure_type', 'region', 'doc_category', 'single_bid'];

/** The page's language: `lang` when it names one, else the first of el/en the browser prefers, else English. */
export function pageLang(query: URLSearchParams, acceptLanguage: string | undefined): Lang {
  const asked = query.get('lang');
  if (asked === 'el' || asked === 'en') return asked;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().slice(0, 2).toLowerCase();
    if (tag === 'el' || tag === 'en') return tag;
  }
  return 'en';
}

export interface PageContext {
  view: View;
  lang: Lang;
  /** The page address's parameters (the view's state). */
  query: URLSearchParams;
  /** Where the script and stylesheet are served: a path that changes with their content. */
  assets: string;
  /** The script's modules main.js imports, fetched at once rather than one import after another. */
  modules: readonly string[];
}

/** The same view in the other language, its state kept. */
function otherLanguageHref(ctx: PageContext): string {
  const query = new URLSearchParams(ctx.query);
  query.set('lang', ctx.lang === 'el' ? 'en' : 'el');
  return `${VIEW_PATHS[ctx.view]}?${query}`;
}

function input(ctx: PageContext, name: string, key: StringKey, attrs: Html = html``): Html {
  return html`<div class="field"><label for="f-${name}">${label(ctx.lang, key)}</label><input id="f-${name}" name="${name}" value="${ctx.query.get(name) ?? ''}" ${attrs}></div>`;
}

function select(ctx: PageContext, name: string, key: StringKey, options: [string, string][], fallback = ''): Html {
  const chosen = ctx.query.get(name) ?? fallback;
  return html`<div class="field"><label for="f-${name}">${label(ctx.lang, key)}</label><select id="f-${name}" name="${name}">${options.map(
    ([value, text]) => html`<option value="${value}"${value === chosen ? html` selected` : null}>${text}</option>`,
  )}</select></div>`;
}

function filterField(ctx: PageContext, name: string): Html {
  const l = (key: StringKey) => label(ctx.lang, key);
  switch (name) {
    case 'source':
      return select(ctx, 'source', 'source', [['', l('anySource')], ...SOURCE_NAMES.map((s): [string, string] => [s, SOURCES[s].label])]);
    case 'since':
    case 'until':
      return input(ctx, name, name, html`type="date"`);
    case 'buyer':
    case 'supplier':
    case 'party':
      return input(ctx, name, name, html`inputmode="numeric" autocomplete="off" maxlength="20"`);
    case 'cpv':
      return input(ctx, 'cpv', 'cpv', html`inputmode="numeric" autocomplete="off" maxlength="10"`);
    case 'amount_min':
    case 'amount_max':
      return input(ctx, name, name, html`type="number" min="0" step="any"`);
    case 'doc_category':
      return input(ctx, 'doc_category', 'doc_category', html`list="doc-categories" autocomplete="off"`);
    case 'single_bid':
      return html`<div class="field check"><input type="checkbox" id="f-single_bid" name="single_bid" value="true"${ctx.query.get('single_bid') === 'true' ? html` checked` : null}><label for="f-single_bid">${l('single_bid')}</label></div>`;
    default:
      return input(ctx, name, name as StringKey, html`autocomplete="off" maxlength="200"`);
  }
}

/** The filters of every route that selects documents (docs/api.md "Filters"), as form controls. */
function filterFields(ctx: PageContext): Html {
  const open = MORE_FILTERS.some((name) => ctx.query.get(name));
  return html`<fieldset class="filters"><legend>${label(ctx.lang, 'filters')}</legend>
<div class="fields">${MAIN_FILTERS.map((name) => filterField(ctx, name))}</div>
<details${open ? html` open` : null}><summary>${label(ctx.lang, 'moreFilters')}</summary>
<div class="fields">${MORE_FILTERS.map((name) => filterField(ctx, name))}</div>
<datalist id="doc-categories">${DOC_CATEGORIES.map((c) => html`<option value="${c}"></option>`)}</datalist>
</details></fieldset>`;
}

function viewForm(ctx: PageContext): Html {
  const l = (key: StringKey) => label(ctx.lang, key);
  const hidden = html`<input type="hidden" name="lang" value="${ctx.lang}">`;
  const form = (role: string, body: Html, submit: StringKey) =>
    html`<form id="view-form" method="get" action="${VIEW_PATHS[ctx.view]}"${role ? html` role="${role}"` : null}>${hidden}${body}<div class="actions"><button type="submit">${l(submit)}</button></div></form>`;
  switch (ctx.view) {
    case 'search': {
      const translate = html`<div class="field check"><input type="checkbox" id="f-translate" name="${SEARCH_TRANSLATE_PARAM}" value="true"${ctx.query.get(SEARCH_TRANSLATE_PARAM) === null || ctx.query.get(SEARCH_TRANSLATE_PARAM) === 'true' ? html` checked` : null}><label for="f-translate">${l('translate')}</label></div>`;
      return form(
        'search',
        html`<p class="intro">${l('searchIntro')}</p>
<div class="fields wide">${input(ctx, 'q', 'q', html`type="search" required maxlength="1000"`)}${select(ctx, 'sort', 'sort', [
          ['relevance', l('sortRelevance')],
          ['date', l('sortDate')],
        ])}${select(
          ctx,
          'limit',
          'perPage',
          PER_PAGE.map((n) => [n, n]),
          '20',
        )}${translate}</div>
${filterFields(ctx)}`,
        'submitSearch',
      );
    }
    case 'entity':
      return form(
        '',
        html`<p class="intro">${l('entityIntro')}</p>
<div class="fields wide">${input(ctx, 'id', 'identifier', html`required maxlength="200" autocomplete="off"`)}${select(ctx, 'type', 'type', [
          ['', l('typeAuto')],
          ['afm', l('typeAfm')],
          ['name', l('typeName')],
          ['ada', l('typeAda')],
        ])}</div>`,
        'submitEntity',
      );
    case 'analysis':
      return form(
        '',
        html`<p class="intro">${l('analysisIntro')}</p>
<div class="fields wide">${input(ctx, 'q', 'qOptional', html`type="search" maxlength="1000"`)}${select(
          ctx,
          'group_by',
          'groupBy',
          ANALYSIS_GROUPINGS.map((g) => [g, groupingLabel(ctx.lang, g)]),
        )}${select(ctx, 'order_by', 'orderBy', [
          ['value', l('orderValue')],
          ['documents', l('orderDocuments')],
        ])}${select(
          ctx,
          'limit',
          'rows',
          ['10', '20', '50', '100'].map((n) => [n, n]),
          '20',
        )}</div>
${filterFields(ctx)}`,
        'submitAnalysis',
      );
    case 'ask':
      return form(
        '',
        html`<p class="intro">${l('askIntro')}</p>
<div class="field wide"><label for="f-question">${l('question')}</label><textarea id="f-question" name="question" rows="2" maxlength="1000" required>${ctx.query.get('question') ?? ''}</textarea></div>
<div class="fields">${select(
          ctx,
          'limit',
          'sourcesShown',
          ['3', '5', '10', '20'].map((n) => [n, n]),
          '5',
        )}</div>
${filterFields(ctx)}`,
        'submitAsk',
      );
  }
}

/** A view's page: the frame, the sign-in (shown by the script when the tab holds no key) and the view's form. */
export function explorePage(ctx: PageContext): Html {
  const l = (key: StringKey) => label(ctx.lang, key);
  const other = LANGS.find((x) => x !== ctx.lang)!;
  const nav = VIEWS.map(
    (v) => html`<li><a href="${VIEW_PATHS[v]}?lang=${ctx.lang}" data-view="${v}"${v === ctx.view ? html` aria-current="page"` : null}>${l(v)}</a></li>`,
  );
  // A data block, not a script: the policy runs no inline script, and a browser never runs this type.
  const labels = JSON.stringify(labelsIn(ctx.lang)).replace(/</g, '\\u003c');
  return html`<!doctype html>
<html lang="${ctx.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${l(ctx.view)} — ${l('appName')}</title>
<link rel="stylesheet" href="${ctx.assets}/explore.css">
<script type="module" src="${ctx.assets}/main.js"></script>
${ctx.modules.map((m) => html`<link rel="modulepreload" href="${ctx.assets}/${m}">`)}
</head>
<body data-view="${ctx.view}" data-lang="${ctx.lang}">
<a class="skip" href="#main">${l('skip')}</a>
<header class="top">
<p class="brand"><a href="${VIEW_PATHS.search}?lang=${ctx.lang}">${l('appName')}</a></p>
<nav aria-label="${l('views')}"><ul>${nav}</ul></nav>
<p class="account"><span id="account">${l('signedOut')}</span> <button type="button" id="sign-out" hidden>${l('signOut')}</button></p>
<p class="lang"><a href="${otherLanguageHref(ctx)}" hreflang="${other}" lang="${other}" aria-label="${l('otherLanguageName')}">${l('otherLanguage')}</a></p>
</header>
<main id="main" tabindex="-1">
<section id="sign-in" aria-labelledby="sign-in-title" hidden>
<h1 id="sign-in-title">${l('signIn')}</h1>
<form id="sign-in-form">
<div class="field"><label for="api-key">${l('apiKey')}</label><input id="api-key" type="password" autocomplete="off" spellcheck="false" required></div>
<div class="actions"><button type="submit">${l('signIn')}</button></div>
</form>
<p class="note">${l('signInNote')}</p>
<div id="sign-in-problem" class="problem" role="alert" hidden></div>
</section>
<section id="view" aria-labelledby="view-title">
<h1 id="view-title" tabindex="-1">${l(ctx.view)}</h1>
${viewForm(ctx)}
<div id="problem" class="problem" role="alert" hidden></div>
<p id="status" role="status"></p>
<div id="results"></div>
</section>
<section id="requests" class="requests" aria-labelledby="requests-title" hidden>
<h2 id="requests-title">${l('request')}</h2>
<p class="note">${l('requestNote')}</p>
<ol id="request-list"></ol>
</section>
<noscript><p class="problem">${l('noscript')}</p></noscript>
</main>
<script type="application/json" id="labels">${new Html(labels)}</script>
</body>
</html>
`;
}
