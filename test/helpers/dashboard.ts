// A dashboard client for the API tests: keeps the session cookie, reads the CSRF token off the page
// and posts forms as a browser does (never following redirects, so each answer can be looked at).

// 128 random bits as `openssl rand -hex 16` prints them (lib/config.ts refuses less).
export const ADMIN_TOKEN = 'b7f3c9e1a4d2086f5e1c3a9b7d0f2e4a';

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
}

export class DashboardClient {
  cookie: string | null = null;

  /** `headers` go with every request (an X-Forwarded-For, as a proxy in front would add). */
  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async get(path: string): Promise<PageResponse> {
    const res = await fetch(`${this.base}${path}`, { redirect: 'manual', headers: { ...this.headers, ...(this.cookie ? { Cookie: this.cookie } : {}) } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  /** Posts `fields` as an HTML form; a Set-Cookie in the answer replaces the client's cookie. */
  async post(path: string, fields: Record<string, string>): Promise<PageResponse> {
    const headers: Record<string, string> = { ...this.headers, 'Content-Type': 'application/x-www-form-urlencoded' };
    if (this.cookie) headers.Cookie = this.cookie;
    const res = await fetch(`${this.base}${path}`, { method: 'POST', redirect: 'manual', headers, body: new URLSearchParams(fields).toString() });
    const set = res.headers.get('set-cookie');
    if (set) {
      const pair = set.split(';')[0]!;
      this.cookie = pair.endsWith('=') ? null : pair;
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  async signIn(token = ADMIN_TOKEN): Promise<PageResponse> {
    return this.post('/dashboard/sign-in', { token });
  }

  /** The CSRF token of the keys page's forms. */
  async csrf(): Promise<string> {
    const page = await this.get('/dashboard');
    const token = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
    if (!token) throw new Error(`no CSRF token on the page (status ${page.status})`);
    return token;
  }

  /** Creates a key through the form; returns the key shown once on the next page. */
  async createKey(org: string, tier: string): Promise<{ key: string; id: string; page: string }> {
    const created = await this.post('/dashboard/keys', { csrf: await this.csrf(), org, tier });
    if (created.status !== 303) throw new Error(`create answered ${created.status}: ${created.text}`);
    const page = await this.get('/dashboard');
    const key = /<code id="new-key">([^<]+)<\/code>/.exec(page.text)?.[1];
    const id = /New \w+ key <code>([^<]+)<\/code>/.exec(page.text)?.[1];
    if (!key || !id) throw new Error('the new key is not shown');
    return { key, id, page: page.text };
  }
}
