// "The API request" panel: every request a view makes, with its method, path and parameters, and the
// same request as a curl command whose key is left as $PDI_KEY, to copy into a terminal.
import { el } from './dom.js';
import { L } from './text.js';

const panel = document.getElementById('requests');
const list = document.getElementById('request-list');

/** A word for a POSIX shell: single-quoted, a quote inside written '\''. */
const shellWord = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The curl command of a request; `output` saves the answer to that file. */
export function curlOf({ method, path, params, body, output }) {
  const entries = Object.entries(params ?? {});
  const parts = ['curl -s'];
  if (method === 'GET' && entries.length > 0) parts.push('-G');
  if (method !== 'GET' && body === undefined) parts.push(`-X ${method}`);
  parts.push('-H "Authorization: Bearer $PDI_KEY"');
  if (body !== undefined) parts.push(`-H 'Content-Type: application/json'`);
  parts.push(shellWord(`${location.origin}${path}`));
  for (const [name, value] of entries) parts.push(`--data-urlencode ${shellWord(`${name}=${value}`)}`);
  if (body !== undefined) parts.push(`-d ${shellWord(JSON.stringify(body))}`);
  if (output) parts.push(`-o ${shellWord(output)}`);
  return parts.join(' \\\n  ');
}

/** The request line as a person reads it: the parameters decoded. */
function requestLine({ method, path, params }) {
  const query = Object.entries(params ?? {})
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  return `${method} ${decodeURIComponent(path)}${query ? `?${query}` : ''}`;
}

function copyButton(text, target) {
  const button = el('button', { type: 'button', class: 'copy' }, L.copy);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = L.copied;
    } catch {
      // No clipboard (a page over plain http elsewhere than loopback): select the text to copy by hand.
      getSelection().selectAllChildren(target);
    }
  });
  return button;
}

export function clearRequests() {
  list.replaceChildren();
  panel.hidden = true;
}

/** Lists a request; the same request again (a report polled) replaces its earlier entry. */
export function showRequest(request) {
  const line = requestLine(request);
  for (const item of list.children) if (item.dataset.line === line) item.remove();
  const curl = curlOf(request);
  const code = el('code', {}, curl);
  list.append(
    el(
      'li',
      { 'data-line': line },
      el('p', {}, el('code', { class: 'line' }, line)),
      el('div', { class: 'curl' }, el('pre', {}, code), copyButton(curl, code)),
    ),
  );
  panel.hidden = false;
}
