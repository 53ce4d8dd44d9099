// Entry of a report thread (render.ts), run from the sources only (compiled, the worker is its own
// entry): JavaScript, because a worker starts without the TypeScript loader its parent may have
// registered in code.
import { register } from 'tsx/esm/api';

register();
await import('./render-worker.ts');
