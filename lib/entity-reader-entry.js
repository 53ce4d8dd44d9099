// Entry of an entity reader thread (entity-readers.ts). JavaScript, because a worker starts without
// the TypeScript loader its parent may have registered in code (the `pdi` launcher does).
import { register } from 'tsx/esm/api';

register();
await import('./entity-reader-worker.ts');
