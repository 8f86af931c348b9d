#!/usr/bin/env node
// `npx cpp-workbench <command>`: runs the TypeScript command line through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../cli/index.ts');
