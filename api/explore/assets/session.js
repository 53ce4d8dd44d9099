// The key of this tab and what the API last said of its quota. sessionStorage: the key lives as long
// as the tab, is never written to a cookie or an address, and another site cannot read it.
import { fmt, formatCount, L } from './text.js';

const KEY = 'pdi-explore-key';
const ACCOUNT = 'pdi-explore-account';
const line = document.getElementById('account');
const signOut = document.getElementById('sign-out');

function showAccount() {
  const account = JSON.parse(sessionStorage.getItem(ACCOUNT) ?? 'null');
  signOut.hidden = session.key === null;
  line.textContent =
    session.key === null || account === null
      ? L.signedOut
      : fmt(L.signedInAs, { tier: account.tier, left: formatCount(account.left), quota: formatCount(account.quota) });
}

export const session = {
  get key() {
    return sessionStorage.getItem(KEY);
  },
  signIn(key, usage) {
    sessionStorage.setItem(KEY, key);
    sessionStorage.setItem(ACCOUNT, JSON.stringify({ tier: usage.tier, left: usage.daily_remaining, quota: usage.daily_quota }));
    showAccount();
  },
  signOut() {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(ACCOUNT);
    showAccount();
  },
  /** The quota headers every answer to a valid key carries (docs/api.md "Quota"). */
  noteQuota(headers) {
    const tier = headers.get('x-tier');
    const left = headers.get('x-ratelimit-remaining');
    const quota = headers.get('x-ratelimit-limit');
    if (session.key === null || tier === null || left === null || quota === null) return;
    sessionStorage.setItem(ACCOUNT, JSON.stringify({ tier, left: Number(left), quota: Number(quota) }));
    showAccount();
  },
  showAccount,
};
