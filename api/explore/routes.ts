// The explore page: /explore (search), /explore/entity, /explore/analysis and /explore/ask, for people
// who would rather look than read JSON. The server renders each view's frame and form (pages.ts); the
// page's own script (assets/, no library) calls /v1 from the browser with the key the tab keeps in
// sessionStorage, so the key's tier, quota and limits apply to every request as to any client's, and
// the key never reaches an address, a log line or a referrer. No key and no quota to load the page.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, RequestHandler, Server } from 'restify';
import { pageHeaders, reply } from '../middleware/reply.js';
import { explorePage, pageLang, VIEW_PATHS, VIEWS } from './pages.js';

/** The script's modules and the stylesheet, beside this module (the build copies them into dist/). */
export const ASSET_DIR = fileURLToPath(new URL('./assets/', import.meta.url));
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * Only this server's script and stylesheet, requests to this server alone, no inline script or style
 * (the labels' JSON block is data, never run), and the DOM written through its methods only (Trusted
 * Types: no HTML string ever becomes markup).
 */
export const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; require-trusted-types-for 'script'";

// No referrer: links lead to the publishers' originals, which learn nothing of the query that found them.
const PAGE_HEADERS = pageHeaders(PAGE_POLICY);

/** Assets live under a path named by their content's digest, so a browser may keep them for good. */
const ASSET_HEADERS = ['Cache-Control', 'public, max-age=31536000, immutable'];

export interface ExploreAssets {
  /** The path they are served under: /explore/assets/<digest>. */
  base: string;
  files: Map<string, { type: string; body: Buffer }>;
}

export function exploreAssets(dir = ASSET_DIR): ExploreAssets {
  const files = new Map<string, { type: string; body: Buffer }>();
  const digest = createHash('sha256');
  for (const name of fs.readdirSync(dir).sort()) {
    const type = ASSET_TYPES[path.extname(name)];
    if (type === undefined) continue;
    const body = fs.readFileSync(path.join(dir, name));
    digest.update(name).update(body);
    files.set(name, { type, body });
  }
  return { base: `/explore/assets/${digest.digest('hex').slice(0, 12)}`, files };
}

function queryOf(req: Request): URLSearchParams {
  return new URLSearchParams(req.getQuery());
}

export function registerExplore(server: Server): void {
  const assets = exploreAssets();
  const modules = [...assets.files.keys()].filter((name) => name.endsWith('.js') && name !== 'main.js');
  for (const view of VIEWS) {
    const send: RequestHandler = async (req, res) => {
      const query = queryOf(req);
      const lang = pageLang(query, req.headers['accept-language']);
      reply(res, 200, 'text/html; charset=utf-8', explorePage({ view, lang, query, assets: assets.base, modules }).text, PAGE_HEADERS);
    };
    server.get(VIEW_PATHS[view], send);
    server.head(VIEW_PATHS[view], send);
  }
  for (const [name, asset] of assets.files) {
    const send: RequestHandler = async (_req, res) => {
      reply(res, 200, asset.type, asset.body, ASSET_HEADERS);
    };
    server.get(`${assets.base}/${name}`, send);
    server.head(`${assets.base}/${name}`, send);
  }
}
