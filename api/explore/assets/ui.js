// What every view shares: its address's parameters, links to a view with other parameters, and the
// status line, the problem box and the results area the server rendered.
import { clearRequests } from './requests.js';
import { L, LANG } from './text.js';

const status = document.getElementById('status');
const problem = document.getElementById('problem');
const results = document.getElementById('results');

/** Each view's path, as the navigation links name them (the server's one list of them). */
const PATHS = Object.fromEntries([...document.querySelectorAll('nav a[data-view]')].map((a) => [a.dataset.view, a.pathname]));

export const ui = {
  results,

  /** The address's parameters but the page's language, those given empty left out (the last of a repeated one). */
  pageParams() {
    const params = {};
    for (const [name, value] of new URLSearchParams(location.search)) if (name !== 'lang' && value.trim() !== '') params[name] = value.trim();
    return params;
  },

  /** The address of `view` with `params` (null and empty values left out), in this page's language. */
  href(view, params) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined && value !== '') query.set(name, String(value));
    query.set('lang', LANG);
    return `${PATHS[view]}?${query}`;
  },

  /** The names of the filter controls of the view's form (docs/api.md "Filters"). */
  filterNames() {
    return [...document.querySelectorAll('#view-form .filters [name]')].map((control) => control.name);
  },

  reset() {
    clearRequests();
    problem.hidden = true;
    problem.textContent = '';
    results.replaceChildren();
    results.setAttribute('aria-busy', 'true');
    status.textContent = L.loading;
    delete document.body.dataset.state;
  },

  done() {
    results.removeAttribute('aria-busy');
    if (status.textContent === L.loading) status.textContent = '';
    // What a test or a benchmark waits for: the view has drawn what the API answered (and when).
    document.body.dataset.state = 'ready';
    performance.mark('explore-ready');
  },

  status(text) {
    status.textContent = text;
  },

  problem(text) {
    problem.textContent = text;
    problem.hidden = false;
  },
};
