// Entry of an entity reader thread (entity-readers.ts). Run from the sources only (the compiled
// worker is its own entry): JavaScript, because a worker starts without the TypeScript loader its
// parent may have registered in code.
import { register } from 'tsx/esm/api';

register();
await import('./entity-reader-worker.ts');
