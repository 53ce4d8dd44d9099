#!/usr/bin/env node
// Launcher of the `pdi` command: the CLI is TypeScript, run through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../cli/pdi.ts');
