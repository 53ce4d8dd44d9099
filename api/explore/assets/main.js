// The explore page's script: sign-in, then the view the server rendered (search, entity, analysis,
// ask) asks the API for what its address says. Each view's state is its address (the form's fields,
// a facet, a page), so the back button, a reload and a shared link all work; the key is never in it.
import { ApiError, callApi, problemText } from './api.js';
import { clearRequests } from './requests.js';
import { session } from './session.js';
import { L } from './text.js';
import { ui } from './ui.js';
import { showAnalysis } from './view-analysis.js';
import { showAsk } from './view-ask.js';
import { showEntity } from './view-entity.js';
import { showSearch } from './view-search.js';

const VIEWS = { search: showSearch, entity: showEntity, analysis: showAnalysis, ask: showAsk };

const signInSection = document.getElementById('sign-in');
const signInForm = document.getElementById('sign-in-form');
const signInProblem = document.getElementById('sign-in-problem');
const viewSection = document.getElementById('view');
const viewForm = document.getElementById('view-form');

function showSignIn(problem) {
  viewSection.hidden = true;
  signInSection.hidden = false;
  signInProblem.hidden = !problem;
  signInProblem.textContent = problem ?? '';
  document.getElementById('api-key').focus();
}

async function showView() {
  signInSection.hidden = true;
  viewSection.hidden = false;
  ui.reset();
  try {
    await VIEWS[document.body.dataset.view](ui.pageParams());
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      // The key was revoked since sign-in: it is of no more use in this tab.
      session.signOut();
      return showSignIn(problemText(err));
    }
    ui.problem(problemText(err));
  } finally {
    ui.done();
  }
}

signInForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('api-key');
  const key = input.value.trim();
  if (!key) return showSignIn(L.keyMissing);
  clearRequests();
  try {
    const usage = await callApi({ path: '/v1/usage' }, key);
    input.value = '';
    session.signIn(key, usage);
    await showView();
    document.getElementById('view-title').focus();
  } catch (err) {
    showSignIn(problemText(err));
  }
});

document.getElementById('sign-out').addEventListener('click', () => {
  session.signOut();
  clearRequests();
  document.getElementById('results').replaceChildren();
  showSignIn();
});

// Empty fields are left out of the address: the API refuses a parameter given empty.
viewForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(viewForm)) if (String(value).trim() !== '') params.append(name, String(value).trim());
  location.assign(`${viewForm.getAttribute('action')}?${params}`);
});

session.showAccount();
if (session.key === null) showSignIn();
else showView();
