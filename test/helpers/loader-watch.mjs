// Preloaded (`node --import`) into a process under test: writes `LOADER-IMPORT <url>` to stderr for
// every module it resolves from tsx or typescript, or any .ts file, so a test can show that the
// compiled build runs with no TypeScript loader.
import { register } from 'node:module';

const hooks = `export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  if (/\\/node_modules\\/(tsx|typescript)\\/|\\.[cm]?ts$/.test(found.url)) process.stderr.write('LOADER-IMPORT ' + found.url + '\\n');
  return found;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
