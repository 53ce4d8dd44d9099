// Entry of an embedded-engine reader thread (read-pool.ts). JavaScript, because a worker starts
// without the TypeScript loader its parent may have registered in code (the `pdi` launcher does).
import { register } from 'tsx/esm/api';

register();
await import('./read-worker.ts');
