// Where tests find things. Upstream fixtures stay in ../shared/fixtures (never copied into the repo).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.resolve(REPO_ROOT, '../shared/fixtures');
