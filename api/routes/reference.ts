// GET /openapi.json (docs/openapi.json, with what the composer completes in it) and GET /docs, a reference page rendered from it by
// Swagger UI (swagger-ui-dist, pinned) served from node_modules: the page loads nothing from outside,
// so it works offline and behind a firewall. No key, no quota (outside /v1).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RequestHandler, Server } from 'restify';
import { projectPath } from '../../lib/paths.js';
import { NO_STORE, reply } from '../middleware/reply.js';

const require = createRequire(import.meta.url);
const RENDERER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const DOCUMENT = projectPath('docs', 'openapi.json');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Greek public-sector data API — reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// A separate file rather than an inline script, so a Content-Security-Policy of script-src 'self'
// holds. validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', validatorUrl: null, deepLinking: true });\n`;

interface Asset {
  type: string;
  body: Buffer | string;
}

/** The OpenAPI document, parsed. */
export type OpenApiDocument = Record<string, unknown>;

/**
 * What the reference page loads, by path: every one of them served here. `complete` fills in the parts
 * of docs/openapi.json that follow from the code (the alert channels: api/alerts/openapi.ts); the document
 * is written back as the file is, two spaces to the level.
 */
function referenceAssets(complete: (doc: OpenApiDocument) => OpenApiDocument): Map<string, Asset> {
  const renderer = (file: string, type: string): Asset => ({ type, body: fs.readFileSync(path.join(RENDERER_DIR, file)) });
  const document = `${JSON.stringify(complete(JSON.parse(fs.readFileSync(DOCUMENT, 'utf8')) as OpenApiDocument), null, 2)}\n`;
  return new Map<string, Asset>([
    ['/openapi.json', { type: 'application/json', body: document }],
    ['/docs', { type: 'text/html; charset=utf-8', body: PAGE }],
    ['/docs/init.js', { type: 'text/javascript; charset=utf-8', body: INIT }],
    ['/docs/swagger-ui.css', renderer('swagger-ui.css', 'text/css; charset=utf-8')],
    ['/docs/swagger-ui-bundle.js', renderer('swagger-ui-bundle.js', 'text/javascript; charset=utf-8')],
  ]);
}

/**
 * The reference page runs only this server's scripts, fetches only this server, and may not be framed
 * (clickjacking). Swagger UI sets inline styles and draws icons from data: URIs.
 */
const PAGE_HEADERS = [
  'Content-Security-Policy',
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options',
  'DENY',
  NO_STORE[0],
  NO_STORE[1],
];

export function registerReference(server: Server, complete: (doc: OpenApiDocument) => OpenApiDocument): void {
  for (const [route, asset] of referenceAssets(complete)) {
    const headers = route === '/docs' ? PAGE_HEADERS : NO_STORE;
    const send: RequestHandler = async (_req, res) => {
      reply(res, 200, asset.type, asset.body, headers);
    };
    server.get(route, send);
    server.head(route, send);
  }
}
