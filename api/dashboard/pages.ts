// The dashboard's pages, rendered on the server; every value is escaped by the html template.
import type { KeyRecord } from '../db/keys.js';
import { TIERS } from '../db/keys.js';
import { DAILY_QUOTA } from '../tiers.js';
import { usageChart } from './chart.js';
import { html, type Html } from '../presenters/html.js';
import { BASE } from './http.js';
import type { NewKey } from './sessions.js';

function layout(title: string, body: Html, csrf?: string): Html {
  const signOut =
    csrf === undefined
      ? null
      : html`<form class="inline" method="post" action="${BASE}/sign-out">
<input type="hidden" name="csrf" value="${csrf}"><button type="submit">Sign out</button></form>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} — Greek public-sector data API</title>
<link rel="stylesheet" href="${BASE}/style.css">
</head>
<body>
<header><h1>${title}</h1>${signOut}</header>
${body}
</body>
</html>
`;
}

export function signInPage(problem?: string): Html {
  return layout(
    'API Tokens: sign in',
    html`${problem ? html`<p class="problem" role="alert">${problem}</p>` : null}
<form method="post" action="${BASE}/sign-in">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
<p>The admin token is the server's <code>PDI_ADMIN_TOKEN</code>.</p>`,
  );
}

/** A refusal or a problem, on a page of its own. */
export function messagePage(title: string, message: string, signedIn = false): Html {
  return layout(
    title,
    html`<p class="problem" role="alert">${message}</p>
<p><a href="${BASE}${signedIn ? '' : '/sign-in'}">${signedIn ? 'Back to the API tokens' : 'Sign in'}</a></p>`,
  );
}

export interface KeyRow extends KeyRecord {
  today: number;
  lastUsed: string | null;
  /** Requests per UTC day over the chart's days. */
  days: ReadonlyMap<string, number> | undefined;
}

export interface KeysView {
  csrf: string;
  keys: KeyRow[];
  chartDays: string[];
  newKey?: NewKey;
  /** Why the last create failed, with what was typed. */
  problem?: { message: string; org: string; tier: string };
}

function createForm(view: KeysView): Html {
  const org = view.problem?.org ?? '';
  const chosen = view.problem?.tier ?? 'free';
  return html`<h2>Create a key</h2>
${view.problem ? html`<p class="problem" role="alert">${view.problem.message}</p>` : null}
<form method="post" action="${BASE}/keys">
<input type="hidden" name="csrf" value="${view.csrf}">
<label for="org">Organization</label>
<input id="org" name="org" value="${org}" maxlength="200" required>
<label for="tier">Tier</label>
<select id="tier" name="tier">${TIERS.map((t) => html`<option value="${t}"${t === chosen ? html` selected` : null}>${t} (${DAILY_QUOTA[t].toLocaleString('en')} a day)</option>`)}</select>
<button type="submit">Create key</button>
</form>`;
}

function newKeyNotice(k: NewKey): Html {
  return html`<div class="notice" role="status">
<p>New ${k.tier} key <code>${k.id}</code> for <strong>${k.org}</strong>:</p>
<p><code id="new-key">${k.key}</code></p>
<p>Copy it now: it will not be shown again.</p>
</div>`;
}

function keyRow(k: KeyRow, view: KeysView): Html {
  const status = k.revoked_at
    ? html`Revoked ${k.revoked_at}`
    : html`Active <form class="inline" method="post" action="${BASE}/keys/${encodeURIComponent(k.id)}/revoke">
<input type="hidden" name="csrf" value="${view.csrf}"><button class="danger" type="submit" aria-label="Revoke ${k.id}">Revoke</button></form>`;
  return html`<tr id="${k.id}"${k.revoked_at ? html` class="revoked"` : null}>
<td><code>${k.id}</code></td><td>${k.org}</td><td>${k.tier}</td><td>${k.created_at}</td><td>${k.lastUsed ?? '—'}</td>
<td class="num">${k.today} / ${DAILY_QUOTA[k.tier]}</td><td>${usageChart(view.chartDays, k.days)}</td><td>${status}</td>
</tr>`;
}

export function keysPage(view: KeysView): Html {
  const table =
    view.keys.length === 0
      ? html`<p>No keys yet.</p>`
      : html`<table>
<thead><tr><th>Key id</th><th>Organization</th><th>Tier</th><th>Created (UTC)</th><th>Last used (UTC day)</th><th>Today</th><th>Last ${view.chartDays.length} days</th><th>Status</th></tr></thead>
<tbody>
${view.keys.map((k) => keyRow(k, view))}
</tbody>
</table>`;
  return layout(
    'API Tokens',
    html`${view.newKey ? newKeyNotice(view.newKey) : null}
${createForm(view)}
<h2>Keys</h2>
${table}`,
    view.csrf,
  );
}
